internal import CSodium

/// Ed25519 signatures through libsodium (`crypto_sign_verify_detached`), which rejects
/// non-canonical `S`, small-order `R` and small-order or non-canonical public keys.
enum Ed25519 {
    static let publicKeyLength = 32
    static let signatureLength = 64

    /// Whether `publicKey` is a canonical encoding of a point of the main subgroup that is not of
    /// small order (the keys libsodium will verify with).
    static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        guard Sodium.ready, publicKey.count == publicKeyLength else { return false }
        return publicKey.withUnsafeBufferPointer { crypto_core_ed25519_is_valid_point($0.baseAddress!) == 1 }
    }

    /// Verifies a 64-byte `signature` of `message` under the 32-byte `publicKey`.
    @inline(__always)
    static func verify(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>,
        publicKey: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return false }
        return crypto_sign_verify_detached(
            signature.baseAddress!, message.baseAddress, UInt64(message.count), publicKey.baseAddress!) == 0
    }
}
