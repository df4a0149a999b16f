import CSodium
import CTokenCrypto
import Foundation

/// The raw signing rate of the back ends on given threads: libsodium's `crypto_sign_detached`
/// (Ed25519) and OpenSSL's own ES256 signing (SHA-256 and `EVP_PKEY_sign`, contexts set up once
/// per thread), over messages as long as a token's signing input. The ceiling `gen` is held to.
public enum SigningRate {
    /// Signatures per second of one back end on `threads` threads, each signing for `seconds`.
    public static func measure(es256: Bool, threads: Int, seconds: Double, messageLength: Int = 330) -> Double {
        precondition(sodium_init() >= 0)
        let counts = Counts(threads)
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            var message = [UInt8](repeating: UInt8(ascii: "a"), count: messageLength)
            var signature = [UInt8](repeating: 0, count: 64)
            var done = 0
            if es256 {
                var d = [UInt8](repeating: 0, count: 32)
                var x = d, y = d
                guard tv_p256_generate(&d, &x, &y) == 1, let key = tv_p256_private_key_new(d, nil, nil),
                      let signer = tv_p256_openssl_signer_new(key) else { fatalError("OpenSSL could not make a P-256 key") }
                defer { tv_p256_openssl_signer_free(signer); tv_p256_key_free(key) }
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    for _ in 0..<64 {
                        message[done & 0xFF] &+= 1
                        _ = tv_p256_openssl_sign(signer, message, message.count)
                        done += 1
                    }
                }
            } else {
                var publicKey = [UInt8](repeating: 0, count: 32)
                var secretKey = [UInt8](repeating: 0, count: 64)
                crypto_sign_keypair(&publicKey, &secretKey)
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    for _ in 0..<64 {
                        message[done & 0xFF] &+= 1
                        crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey)
                        done += 1
                    }
                }
            }
            counts.set(worker, Double(done) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }
        return counts.total
    }

    /// Signatures per second for a mix with `es256Share` ES256: the time one signature of the mix
    /// takes, from both back ends' rates.
    public static func mixRate(es256Share: Double, ed25519Rate: Double, es256Rate: Double) -> Double {
        let secondsPerToken = (es256Share > 0 ? es256Share / es256Rate : 0) + (es256Share < 1 ? (1 - es256Share) / ed25519Rate : 0)
        return 1 / secondsPerToken
    }

    private final class Counts: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Double]
        init(_ count: Int) { values = Array(repeating: 0, count: count) }
        func set(_ index: Int, _ value: Double) { lock.withLock { values[index] = value } }
        var total: Double { lock.withLock { values.reduce(0, +) } }
    }
}
