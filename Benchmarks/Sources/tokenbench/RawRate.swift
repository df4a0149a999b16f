import ArgumentParser
import CRawCrypto
import Foundation

/// The raw verify rate of a signature back end: libsodium's `crypto_sign_verify_detached`, or
/// OpenSSL's SHA-256 and `EVP_PKEY_verify` with a context set up once, called in a tight loop on
/// `threads` threads at once. This is the ceiling the verifier's efficiency is measured against.
/// `es256-per-key` is the bare rate of tokenverify's ES256 per-key table path (SHA-256 and
/// `tv_p256_table_verify`), the second reference for ES256; `ed25519-per-key` the same for
/// Ed25519 (`tv_ed25519_table_verify`).
enum RawRate {
    enum Algorithm: String, Codable, ExpressibleByArgument {
        case ed25519, es256
        case es256PerKey = "es256-per-key"
        case ed25519PerKey = "ed25519-per-key"

        var code: Int32 {
            switch self {
            case .ed25519: Int32(RAW_ED25519)
            case .es256: Int32(RAW_ES256)
            case .es256PerKey: Int32(RAW_ES256_PER_KEY)
            case .ed25519PerKey: Int32(RAW_ED25519_PER_KEY)
            }
        }
    }

    /// Verifies per second on `threads` threads, over messages of `messageLength` bytes, for
    /// about `seconds`: cycling through `variants` different signatures (1: the same signature
    /// over and over, as `openssl speed` measures).
    static func measure(
        _ algorithm: Algorithm, threads: Int, seconds: Double, messageLength: Int, variants: Int = 256
    ) -> Double {
        let message = [UInt8](repeating: 0x61, count: messageLength)
        let code = algorithm.code
        // Per thread: verifies done, and when it stopped.
        let slots = UnsafeMutableBufferPointer<(count: Int, end: UInt64)>.allocate(capacity: threads)
        slots.initialize(repeating: (0, 0))
        defer { slots.deallocate() }
        let box = UncheckedSlots(slots)
        let group = DispatchGroup()
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        for index in 0..<threads {
            group.enter()
            let thread = Thread {
                let bench = message.withUnsafeBufferPointer {
                    raw_bench_new(code, $0.baseAddress, $0.count, Int32(variants))
                }
                guard let bench else { fatalError("cannot set up the raw \(algorithm) baseline") }
                var done = 0
                while DispatchTime.now().uptimeNanoseconds < deadline {
                    let verified = raw_bench_run(bench, 50)
                    precondition(verified == 50, "the raw \(algorithm) baseline failed to verify its own signature")
                    done += 50
                }
                box.slots[index] = (done, DispatchTime.now().uptimeNanoseconds)
                raw_bench_free(bench)
                group.leave()
            }
            thread.start()
        }
        group.wait()
        let end = slots.map(\.end).max() ?? deadline
        return Double(slots.map(\.count).reduce(0, +)) / (Double(end - start) / 1e9)
    }
}

/// Slots handed to threads that each write their own.
struct UncheckedSlots: @unchecked Sendable {
    let slots: UnsafeMutableBufferPointer<(count: Int, end: UInt64)>
    init(_ slots: UnsafeMutableBufferPointer<(count: Int, end: UInt64)>) { self.slots = slots }
}
