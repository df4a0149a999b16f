/// How a token is written on a line (spec §2, §2b).
public enum TokenFormat: String, Sendable {
    /// JWS Compact Serialization: `header.payload.signature`.
    case jws
    /// A CWT: a COSE_Sign1 message, as base64url of its CBOR bytes (no dot).
    case cwt
}
