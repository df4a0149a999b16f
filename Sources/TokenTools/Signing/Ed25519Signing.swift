internal import CSodium
import TokenVerifier

/// Ed25519 key derivation and signing through libsodium (`crypto_sign_seed_keypair`,
/// `crypto_sign_detached`): for the tools; verification lives in TokenVerifier.
enum Ed25519Signing {
    /// The public key of the 32-byte private `seed`.
    static func publicKey(seed: [UInt8]) -> [UInt8] {
        expandedSecretKey(seed: seed).publicKey
    }

    /// libsodium's 64-byte secret key (seed ‖ public key) and the public key of `seed`.
    static func expandedSecretKey(seed: [UInt8]) -> (secretKey: [UInt8], publicKey: [UInt8]) {
        precondition(Sodium.ready && seed.count == 32)
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        return (secretKey, publicKey)
    }

    /// Signs `message` with libsodium's 64-byte secret key.
    static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
        return signature
    }

    /// Signs `message` with the 32-byte private `seed`.
    static func sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8] {
        sign(message, secretKey: expandedSecretKey(seed: seed).secretKey)
    }
}
