/// The JWS algorithms tokenverify accepts.
public enum SignatureAlgorithm: String, Sendable, CaseIterable {
    /// Ed25519 as named by RFC 9864.
    case ed25519 = "Ed25519"
    /// EdDSA as named by RFC 8037; verified only with an Ed25519 key.
    case edDSA = "EdDSA"
    /// ECDSA with P-256 and SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"

    /// The kind of key that verifies this algorithm.
    public var keyType: KeyType {
        switch self {
        case .ed25519, .edDSA: .ed25519
        case .es256: .p256
        }
    }
}

/// The kinds of public key a key set can hold.
public enum KeyType: String, Sendable {
    /// `{"kty":"OKP","crv":"Ed25519"}`
    case ed25519 = "Ed25519"
    /// `{"kty":"EC","crv":"P-256"}`
    case p256 = "P-256"
}

/// The environment a key, a token or a run belongs to.
public enum Environment: String, Sendable, CaseIterable {
    case integration = "int"
    case production = "prod"
}
