/// One public key of a key set, with the JWKS members tokenverify uses.
public struct VerificationKey: Sendable {
    /// `kid`, unique across the key set.
    public var keyID: String
    /// The kind of key (`OKP`/`Ed25519` or `EC`/`P-256`). Fixed with the key material: a key is
    /// only ever made by loading a key set, where both are checked.
    public private(set) var type: KeyType
    /// The key's declared `alg`, if any (already known to fit `type`).
    public var algorithm: SignatureAlgorithm?
    /// The key's `env` extension member, if any.
    public var environment: Environment?
    /// The key's `iss` extension member, if any.
    public var issuer: String?
    /// The raw public key: 32 bytes for Ed25519, x‖y (64 bytes) for P-256 (the bytes the key's
    /// verification objects were made from, so not to be changed).
    public private(set) var publicKeyBytes: [UInt8]

    /// The key's `spki#S256`: base64url SHA-256 of its SubjectPublicKeyInfo (DER), the name a
    /// revocation gives the key wherever it appears (key set or certificate, spec §4).
    public let keyThumbprint: String

    /// The decoded OpenSSL key, for P-256 keys.
    let p256: P256PublicKey?
    /// The key and its precomputed table once built, for Ed25519 keys.
    let ed25519: Ed25519PublicKey?

    init(
        keyID: String, type: KeyType, algorithm: SignatureAlgorithm?, environment: Environment?, issuer: String?,
        publicKeyBytes: [UInt8], p256: P256PublicKey?, ed25519: Ed25519PublicKey?
    ) {
        (self.keyID, self.type, self.algorithm, self.environment, self.issuer) =
            (keyID, type, algorithm, environment, issuer)
        self.publicKeyBytes = publicKeyBytes
        self.keyThumbprint = KeyThumbprint.of(type: type, publicKey: publicKeyBytes)
        (self.p256, self.ed25519) = (p256, ed25519)
    }

    /// Whether this key may verify a token whose header says `algorithm` (spec §3: the key's
    /// type decides, and a declared `alg` must agree, `EdDSA` ≡ `Ed25519`).
    public func accepts(_ algorithm: SignatureAlgorithm) -> Bool {
        Self.accepts(algorithm, type: type, declared: self.algorithm)
    }

    /// Whether a key of `type` declaring `declared` may verify a token whose header says
    /// `algorithm` (``accepts(_:)``).
    static func accepts(_ algorithm: SignatureAlgorithm, type: KeyType, declared: SignatureAlgorithm?) -> Bool {
        guard algorithm.keyType == type else { return false }
        guard let declared else { return true }
        return declared.keyType == algorithm.keyType
    }
}
