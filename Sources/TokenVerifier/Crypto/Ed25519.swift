internal import CSodium

/// Ed25519 signatures through libsodium (`crypto_sign_verify_detached`), which rejects
/// non-canonical `S`, small-order `R` and small-order or non-canonical public keys.
enum Ed25519 {
    static let publicKeyLength = 32
    static let signatureLength = 64
    static let seedLength = 32

    /// Whether `publicKey` is a canonical encoding of a point of the main subgroup that is not of
    /// small order (the keys libsodium will verify with).
    static func isValidPublicKey(_ publicKey: [UInt8]) -> Bool {
        guard Sodium.ready, publicKey.count == publicKeyLength else { return false }
        return publicKey.withUnsafeBufferPointer { crypto_core_ed25519_is_valid_point($0.baseAddress!) == 1 }
    }

    /// Verifies a 64-byte `signature` of `message` under the 32-byte `publicKey`.
    @inline(__always)
    static func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, publicKey: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == signatureLength, publicKey.count == publicKeyLength else { return false }
        return crypto_sign_verify_detached(signature.baseAddress!, message.baseAddress, UInt64(message.count), publicKey.baseAddress!) == 0
    }

    /// The public key of the 32-byte private `seed`.
    static func publicKey(seed: [UInt8]) -> [UInt8] {
        expandedSecretKey(seed: seed).publicKey
    }

    /// libsodium's 64-byte secret key (seed ‖ public key) and the public key of `seed`.
    static func expandedSecretKey(seed: [UInt8]) -> (secretKey: [UInt8], publicKey: [UInt8]) {
        precondition(Sodium.ready && seed.count == seedLength)
        var publicKey = [UInt8](repeating: 0, count: publicKeyLength)
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return (secretKey, publicKey)
    }

    /// Signs `message` with libsodium's 64-byte secret key.
    static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: signatureLength)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    /// Signs `message` with the 32-byte private `seed`.
    static func sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8] {
        sign(message, secretKey: expandedSecretKey(seed: seed).secretKey)
    }
}
