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
        let headerSegment = UnsafeBufferPointer(rebasing: token[..<firstDot])
        let payloadSegment = UnsafeBufferPointer(rebasing: token[(firstDot + 1)..<secondDot])
        guard let headerCount = Base64URL.decodedCount(headerSegment.count) else {
            return .failure(ParseError(description: "the header segment is not canonical base64url"))
        }
        guard let payloadCount = Base64URL.decodedCount(payloadSegment.count) else {
            return .failure(ParseError(description: "the payload segment is not canonical base64url"))
        }
        guard let signature = Base64URL.decode(UnsafeBufferPointer(rebasing: token[(secondDot + 1)...])) else {
            return .failure(ParseError(description: "the signature segment is not canonical base64url"))
        }
        // The header and the claims are decoded into one scratch buffer (on the stack when
        // small) and read from there; only the values kept are copied out.
        let decoded = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, headerCount + payloadCount)) {
            (scratch) -> Result<(TokenHeader, TokenClaims), ParseError> in
            let headerBuffer = UnsafeMutableBufferPointer(rebasing: scratch[0..<headerCount])
            let payloadBuffer = UnsafeMutableBufferPointer(rebasing: scratch[headerCount..<(headerCount + payloadCount)])
            guard Base64URL.decode(headerSegment, into: headerBuffer) != nil else {
                return .failure(ParseError(description: "the header segment is not canonical base64url"))
            }
            guard Base64URL.decode(payloadSegment, into: payloadBuffer) != nil else {
                return .failure(ParseError(description: "the payload segment is not canonical base64url"))
            }
            let header: TokenHeader
            do throws(JSONError) {
                header = try TokenHeader(json: UnsafeBufferPointer(headerBuffer))
            } catch {
                return .failure(ParseError(description: "the header is not a valid JSON object: \(error.description)"))
            }
            do throws(JSONError) {
                return .success((header, try TokenClaims(json: UnsafeBufferPointer(payloadBuffer))))
            } catch {
                return .failure(ParseError(description: "the claims are not valid: \(error.description)"))
            }
        }
        let header: TokenHeader, claims: TokenClaims
        switch decoded {
        case .success(let pair): (header, claims) = pair
        case .failure(let error): return .failure(error)
        }
        return .success(CompactToken(header: header, claims: claims, signature: signature, signingInputLength: secondDot))
    }
}
