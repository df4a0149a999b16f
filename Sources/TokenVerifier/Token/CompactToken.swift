/// A token in JWS Compact Serialization, split and decoded but not yet checked.
public struct CompactToken: Sendable {
    /// The decoded header.
    public var header: TokenHeader
    /// The decoded, type-checked claims.
    public var claims: TokenClaims
    /// The decoded signature segment (any length; the signature check judges it).
    public var signature: [UInt8]
    /// Length in bytes of the signing input `header.payload` at the start of the token.
    public var signingInputLength: Int

    /// Why a token could not be parsed: always reported as `malformed_token`.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Parses a compact token: three canonical base64url segments, a header object and a claims
    /// object of strict JSON with no duplicate member, and claims of the right types.
    public static func parse(_ token: some Collection<UInt8>) -> Result<CompactToken, ParseError> {
        let bytes = Array(token)
        return bytes.withUnsafeBufferPointer { parse($0) }
    }

    /// Parses a compact token held in `token`.
    static func parse(_ token: UnsafeBufferPointer<UInt8>) -> Result<CompactToken, ParseError> {
        guard let firstDot = token.firstIndex(of: UInt8(ascii: ".")) else {
            return .failure(ParseError(description: "a token has three base64url segments separated by dots; found one"))
        }
        guard let secondDot = token[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")) else {
            return .failure(ParseError(description: "a token has three base64url segments separated by dots; found two"))
        }
        if token[(secondDot + 1)...].contains(UInt8(ascii: ".")) {
            return .failure(ParseError(description: "a token has three base64url segments separated by dots; found more"))
        }
        guard let headerBytes = Base64URL.decode(UnsafeBufferPointer(rebasing: token[..<firstDot])) else {
            return .failure(ParseError(description: "the header segment is not canonical base64url"))
        }
        guard let payloadBytes = Base64URL.decode(UnsafeBufferPointer(rebasing: token[(firstDot + 1)..<secondDot])) else {
            return .failure(ParseError(description: "the payload segment is not canonical base64url"))
        }
        guard let signature = Base64URL.decode(UnsafeBufferPointer(rebasing: token[(secondDot + 1)...])) else {
            return .failure(ParseError(description: "the signature segment is not canonical base64url"))
        }
        let header: TokenHeader
        do {
            header = try headerBytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in try TokenHeader(json: buffer) }
        } catch {
            return .failure(ParseError(description: "the header is not a valid JSON object: \(error.description)"))
        }
        let claims: TokenClaims
        do {
            claims = try payloadBytes.withUnsafeBufferPointer { (buffer) throws(JSONError) in try TokenClaims(json: buffer) }
        } catch {
            return .failure(ParseError(description: "the claims are not valid: \(error.description)"))
        }
        return .success(CompactToken(header: header, claims: claims, signature: signature, signingInputLength: secondDot))
    }
}
