internal import CSodium
import TokenVerifier

/// The RFC 7638 JWK thumbprint (SHA-256, base64url) of a public key.
func jwkThumbprint(type: KeyType, publicKeyBytes: [UInt8]) -> String {
    // The required members in lexicographic order, no white space (RFC 7638 §3.2).
    let json: String
    switch type {
    case .ed25519:
        json = "{\"crv\":\"Ed25519\",\"kty\":\"OKP\",\"x\":\"\(Base64URL.encodeString(publicKeyBytes))\"}"
    case .p256:
        json =
            "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"\(Base64URL.encodeString(Array(publicKeyBytes[0..<32])))\",\"y\":\"\(Base64URL.encodeString(Array(publicKeyBytes[32..<64])))\"}"
    }
    precondition(Sodium.ready)
    var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
    let input = Array(json.utf8)
    _ = crypto_hash_sha256(&digest, input, UInt64(input.count))
    return Base64URL.encodeString(digest)
}

extension VerificationKey {
    /// The key's RFC 7638 thumbprint (SHA-256, base64url): the `kid` that `keys import` gives a
    /// key that has none.
    package var thumbprint: String { jwkThumbprint(type: type, publicKeyBytes: publicKeyBytes) }
}
