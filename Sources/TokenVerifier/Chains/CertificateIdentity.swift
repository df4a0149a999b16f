/// One certificate of a validated path as revocations name it (spec §3b, §4).
struct CertificateIdentity: Sendable {
    /// x5t#S256 of every DER encoding of this certificate (as carried, and its ECDSA (r, n − s)
    /// twin), base64url, UTF-8. The first is the one carried.
    let thumbprints: [[UInt8]]
    /// spki#S256: base64url SHA-256 of its SubjectPublicKeyInfo (DER), UTF-8.
    let keyThumbprint: [UInt8]
}

extension ChainKey {
    // INTERIM until the chain identities land: the carried thumbprint only.
    var certificates: [CertificateIdentity] {
        thumbprints.map { CertificateIdentity(thumbprints: [$0], keyThumbprint: []) }
    }
}
