internal import CTokenCrypto

/// A P-256 public key decoded once into an OpenSSL `EVP_PKEY`.
final class P256PublicKey: @unchecked Sendable {
    // Immutable after init; OpenSSL allows concurrent use of one EVP_PKEY by many contexts.
    fileprivate let handle: UnsafeMutableRawPointer

    /// Nil when (x, y) is not a point on P-256 or a coordinate is not 32 bytes.
    init?(x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32, let handle = tv_p256_public_key_new(x, y) else { return nil }
        self.handle = handle
    }

    deinit { tv_p256_key_free(handle) }
}

/// An OpenSSL verify context for one key, for one thread at a time.
final class P256VerifyContext {
    private let key: P256PublicKey
    private let handle: UnsafeMutableRawPointer

    init(key: P256PublicKey) {
        guard let handle = tv_p256_verify_context_new(key.handle) else {
            fatalError("OpenSSL could not create a verify context for a valid P-256 key")
        }
        self.key = key
        self.handle = handle
    }

    deinit { tv_p256_verify_context_free(handle) }

    /// Verifies a 64-byte r‖s `signature` of `message` (hashed with SHA-256 here). A signature of
    /// another length, or with r or s zero or not below the group order, is invalid.
    @inline(__always)
    func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        return tv_p256_verify(handle, message.baseAddress, message.count, signature.baseAddress) == 1
    }
}
