/// A key's `spki#S256` (spec §4): the base64url SHA-256 of its SubjectPublicKeyInfo in DER, the
/// same for a key given in a key set (JWK) and for the key of a certificate, so that one
/// revocation names the key wherever it appears. A key has one DER encoding: unlike a
/// certificate's bytes, its thumbprint cannot be changed by re-encoding.
enum KeyThumbprint {
    /// SubjectPublicKeyInfo up to the key bits: Ed25519 (RFC 8410), 32 bytes follow.
    private static let ed25519Prefix: [UInt8] = [
        0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00,
    ]
    /// SubjectPublicKeyInfo up to the point: id-ecPublicKey, prime256v1 (RFC 5480), then
    /// 0x04 ‖ x ‖ y.
    private static let p256Prefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
        0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ]

    /// The DER SubjectPublicKeyInfo of a key of `type` with raw public key `bytes` (32 bytes for
    /// Ed25519, x ‖ y for P-256).
    static func subjectPublicKeyInfo(type: KeyType, publicKey bytes: [UInt8]) -> [UInt8] {
        switch type {
        case .ed25519: ed25519Prefix + bytes
        case .p256: p256Prefix + bytes
        }
    }

    /// The `spki#S256` of a key, as base64url text.
    static func of(type: KeyType, publicKey bytes: [UInt8]) -> String {
        Base64URL.encodeString(sha256(subjectPublicKeyInfo(type: type, publicKey: bytes)))
    }
}
