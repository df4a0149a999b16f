internal import CTokenCrypto
internal import CTokenSigning
import TokenVerifier

/// A P-256 private key, for the signing tools and tests.
final class P256PrivateKey: @unchecked Sendable {
    private let handle: UnsafeMutableRawPointer
    /// The private scalar, 32 bytes big-endian.
    let d: [UInt8]
    /// The public point's coordinates, 32 bytes each.
    let x: [UInt8]
    let y: [UInt8]

    /// A key from the scalar `d`; nil when `d` is not in [1, n-1].
    init?(d: [UInt8]) {
        guard d.count == 32 else { return nil }
        var x = [UInt8](repeating: 0, count: 32)
        var y = [UInt8](repeating: 0, count: 32)
        guard let handle = tv_p256_private_key_new(d, &x, &y) else { return nil }
        self.handle = handle
        self.d = d
        self.x = x
        self.y = y
    }

    /// A new random key.
    convenience init() {
        var d = [UInt8](repeating: 0, count: 32)
        var x = [UInt8](repeating: 0, count: 32)
        var y = [UInt8](repeating: 0, count: 32)
        guard tv_p256_generate(&d, &x, &y) == 1 else { fatalError("OpenSSL could not generate a P-256 key") }
        self.init(d: d)!
    }

    deinit { tv_p256_key_free(handle) }

    /// Whether `scalar` (32 bytes) is in [1, n-1].
    static func isValidScalar(_ scalar: [UInt8]) -> Bool {
        scalar.count == 32 && tv_p256_scalar_in_range(scalar) == 1
    }

    /// The 64-byte r‖s ECDSA-SHA256 signature of `message`.
    func sign(_ message: [UInt8]) -> [UInt8] {
        var signature = [UInt8](repeating: 0, count: 64)
        guard tv_p256_sign(handle, message, message.count, &signature) == 1 else {
            fatalError("OpenSSL could not sign with a valid P-256 key")
        }
        return signature
    }
}
