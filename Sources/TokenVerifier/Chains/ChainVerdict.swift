/// What a chain must satisfy beyond RFC 5280 path validation.
enum ChainProfile: Sendable {
    /// A token's chain: the leaf key Ed25519 or P-256 and, when keyUsage is present, digitalSignature.
    case token
    /// Plain RFC 5280 path validation (the x509-limbo cases).
    case pathOnly
}

/// The key of a chain's leaf certificate.
enum LeafKey: Sendable, Equatable {
    /// The 32-byte public key.
    case ed25519([UInt8])
    /// The affine coordinates, 32 bytes each, big-endian.
    case p256(x: [UInt8], y: [UInt8])
}

/// A chain that validated, and what the token checks need of it.
struct TrustedChain: Sendable, Equatable {
    /// The leaf's key. Under `.pathOnly` a leaf whose key is neither gives `.ed25519([])`, which
    /// verifies nothing; `.token` refuses such a leaf.
    let key: LeafKey
    /// The environment of the anchor it validated to (nil: an untagged anchor).
    let environment: Environment?
    /// The validated path's joint validity: the same path validates for every time t with
    /// notBefore ≤ t ≤ notAfter (seconds since 1970).
    let notBefore: Int64
    let notAfter: Int64
    /// The leaf's subjectAltName URIs and dNSNames.
    let uris: [String]
    let dnsNames: [String]
    /// SHA-256 of each certificate of the validated path, leaf first, anchor last.
    let thumbprints: [[UInt8]]
    /// The leaf's subject in RFC 2253 form.
    let leafSubject: String
    /// Each certificate of the validated path as revocations name it, leaf first, anchor last.
    let certificates: [CertificateIdentity]
}

/// The outcome of validating a chain.
enum ChainVerdict: Sendable, Equatable {
    case trusted(TrustedChain)
    case untrusted(ChainFailure)
}
