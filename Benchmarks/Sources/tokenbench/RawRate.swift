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

    /// Verifies in one call of the loop: 64, so that the per-key paths share their inversions
    /// as in the verifier's batches.
    static let round = 64

    /// What a raw run did: its verifies, the wall time from the moment every thread was set up
    /// to the last one's stop, and the CPU time its threads spent in the verify loop.
    struct Measurement {
        var verifies: Int
        var wallSeconds: Double
        var cpuSeconds: Double

        /// Verifies per second of wall time.
        var rate: Double { Double(verifies) / wallSeconds }
        /// Verifies per second of the loop's CPU time.
        var perCPUSecond: Double { Double(verifies) / cpuSeconds }
    }

    /// Verifies per second on `threads` threads, over messages of `messageLength` bytes, for
    /// about `seconds`: cycling through `variants` different signatures (1: the same signature
    /// over and over, as `openssl speed` measures).
    static func measure(
        _ algorithm: Algorithm, threads: Int, seconds: Double, messageLength: Int, variants: Int = 256
    ) -> Double {
        run(algorithm, threads: threads, seconds: seconds, messageLength: messageLength, variants: variants).rate
    }

    /// A raw run, as ``measure(_:threads:seconds:messageLength:variants:)`` makes it. Each thread
    /// first sets up (a key, its table, `variants` signatures: milliseconds, hundreds of
    /// verifies' worth), and the clocks start only once every thread has: the setup is not a
    /// verify, and counting it would understate the rate.
    static func run(
        _ algorithm: Algorithm, threads: Int, seconds: Double, messageLength: Int, variants: Int = 256
    ) -> Measurement {
        let message = [UInt8](repeating: 0x61, count: messageLength)
        let code = algorithm.code
        // Per thread: verifies done, when it stopped, and its CPU seconds in the loop.
        let slots = UnsafeMutableBufferPointer<(count: Int, end: UInt64, cpu: Double)>.allocate(capacity: threads)
        slots.initialize(repeating: (0, 0, 0))
        defer { slots.deallocate() }
        let box = UncheckedSlots(slots)
        let setUp = DispatchGroup()
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        // Written once, before `go` is signalled; read by the threads after it.
        let deadline = UncheckedDeadline()
        for index in 0..<threads {
            setUp.enter()
            done.enter()
            let thread = Thread {
                let bench = message.withUnsafeBufferPointer {
                    raw_bench_new(code, $0.baseAddress, $0.count, Int32(variants))
                }
                guard let bench else { fatalError("cannot set up the raw \(algorithm) baseline") }
                setUp.leave()
                go.wait()
                let cpuStart = cpuSeconds(CLOCK_THREAD_CPUTIME_ID)
                // At least one round, so that every thread has a rate even when it wakes late.
                var count = 0
                repeat {
                    let verified = raw_bench_run(bench, Self.round)
                    precondition(
                        verified == Self.round, "the raw \(algorithm) baseline failed to verify its own signature")
                    count += Self.round
                } while DispatchTime.now().uptimeNanoseconds < deadline.value
                let cpu = cpuSeconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart
                box.slots[index] = (count, DispatchTime.now().uptimeNanoseconds, cpu)
                raw_bench_free(bench)
                done.leave()
            }
            thread.start()
        }
        setUp.wait()
        let start = DispatchTime.now().uptimeNanoseconds
        deadline.value = start + UInt64(seconds * 1e9)
        for _ in 0..<threads { go.signal() }
        done.wait()
        let end = slots.map(\.end).max() ?? deadline.value
        return Measurement(
            verifies: slots.map(\.count).reduce(0, +), wallSeconds: Double(end - start) / 1e9,
            cpuSeconds: slots.map(\.cpu).reduce(0, +))
    }
}

/// The end of a raw run, set before its threads start their loops.
final class UncheckedDeadline: @unchecked Sendable {
    var value: UInt64 = 0
}

/// Slots handed to threads that each write their own.
struct UncheckedSlots: @unchecked Sendable {
    let slots: UnsafeMutableBufferPointer<(count: Int, end: UInt64, cpu: Double)>
    init(_ slots: UnsafeMutableBufferPointer<(count: Int, end: UInt64, cpu: Double)>) { self.slots = slots }
}
