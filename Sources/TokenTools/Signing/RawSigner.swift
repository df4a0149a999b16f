internal import CSodium
internal import CTokenCrypto
internal import CTokenSigning
import TokenVerifier

/// The back ends' own signing with a fresh random key, set up once: libsodium's
/// `crypto_sign_detached` (Ed25519) or OpenSSL's randomised ES256 (SHA-256 and `EVP_PKEY_sign`).
/// The reference for the raw signing rate; one per thread.
package final class RawSigner {
    private let es256Key: UnsafeMutableRawPointer?
    private let es256Signer: UnsafeMutableRawPointer?
    private let ed25519SecretKey: [UInt8]
    private var signature = [UInt8](repeating: 0, count: 64)

    /// A signer for ES256 (`es256`) or Ed25519 with a new random key.
    package init(es256: Bool) {
        precondition(Sodium.ready, "libsodium failed to initialise")
        if es256 {
            var d = [UInt8](repeating: 0, count: 32)
            var x = d
            var y = d
            guard tv_p256_generate(&d, &x, &y) == 1, let key = tv_p256_private_key_new(d, nil, nil),
                let signer = tv_p256_openssl_signer_new(key)
            else { fatalError("OpenSSL could not make a P-256 key") }
            es256Key = key
            es256Signer = signer
            ed25519SecretKey = []
        } else {
            var publicKey = [UInt8](repeating: 0, count: 32)
            var secretKey = [UInt8](repeating: 0, count: 64)
            crypto_sign_keypair(&publicKey, &secretKey)
            es256Key = nil
            es256Signer = nil
            ed25519SecretKey = secretKey
        }
    }

    deinit {
        tv_p256_openssl_signer_free(es256Signer)
        tv_p256_key_free(es256Key)
    }

    /// Signs `message`, discarding the signature.
    package func sign(_ message: [UInt8]) {
        if let es256Signer {
            _ = tv_p256_openssl_sign(es256Signer, message, message.count)
        } else {
            crypto_sign_detached(&signature, nil, message, UInt64(message.count), ed25519SecretKey)
        }
    }
}
