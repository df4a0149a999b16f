/// A token in JWS Compact Serialization, split and decoded but not yet checked.
public struct CompactToken: Sendable {
    /// The decoded header.
    public var header: TokenHeader
    /// The decoded, type-checked claims.
    public var claims: TokenClaims
    /// The decoded signature segment (any length; the signature check judges it).
    public var signature: [UInt8]
    /// Length in bytes of the signing input `header.payload` at the start of the token (0 for a
    /// CWT, whose signed message is its Sig_structure).
    public var signingInputLength: Int
    /// JWS or CWT.
    public var format: TokenFormat = .jws

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
        ParsedToken.parse(token).map(CompactToken.init)
    }
}

extension CompactToken {
    /// The public form of a parsed token.
    init(_ parsed: ParsedToken) {
        self.init(
            header: TokenHeader(parsed), claims: TokenClaims(parsed),
            signature: parsed.withBytes(parsed.signature) { Array($0) },
            signingInputLength: parsed.signingInputLength, format: parsed.format)
    }
}
