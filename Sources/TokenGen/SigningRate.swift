import Dispatch
import TokenConcurrency
import TokenTools

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The raw signing rate of the back ends on given threads: libsodium's `crypto_sign_detached`
/// (Ed25519) and OpenSSL's own ES256 signing (SHA-256 and `EVP_PKEY_sign`, contexts set up once
/// per thread), over messages as long as a token's signing input. The ceiling `gen` is held to.
package enum SigningRate {
    /// A measured rate: per second of wall-clock time (all threads together), and per second of
    /// CPU time the signing threads got (what a shared machine disturbs least).
    package struct Rate: Sendable {
        package var perSecond: Double
        package var perCPUSecond: Double

        package init(perSecond: Double, perCPUSecond: Double) {
            self.perSecond = perSecond
            self.perCPUSecond = perCPUSecond
        }
    }

    /// Signatures per second of one back end on `threads` threads, each signing for `seconds`.
    package static func measure(es256: Bool, threads: Int, seconds: Double, messageLength: Int = 330) -> Rate {
        let counts = Counts(threads)
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        DispatchQueue.concurrentPerform(iterations: threads) { worker in
            let cpuStart = threadCPUSeconds()
            var message = [UInt8](repeating: UInt8(ascii: "a"), count: messageLength)
            let signer = RawSigner(es256: es256)
            var done = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                for _ in 0..<64 {
                    message[done & 0xFF] &+= 1
                    signer.sign(message)
                    done += 1
                }
            }
            counts.set(
                worker, rate: Double(done) / (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9),
                done: done, cpuSeconds: threadCPUSeconds() - cpuStart)
        }
        return counts.total
    }

    /// Signatures per second for a mix with `es256Share` ES256: the time one signature of the mix
    /// takes, from both back ends' rates.
    package static func mixRate(es256Share: Double, ed25519Rate: Double, es256Rate: Double) -> Double {
        guard es256Share > 0 || ed25519Rate > 0, es256Share < 1 || es256Rate > 0 else { return 0 }
        let secondsPerToken =
            (es256Share > 0 ? es256Share / es256Rate : 0) + (es256Share < 1 ? (1 - es256Share) / ed25519Rate : 0)
        return 1 / secondsPerToken
    }

    /// CPU seconds the calling thread has used.
    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// CPU seconds (user and system) this process has used, all threads.
    package static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
            usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    /// Each thread's figures, set once by that thread, summed at the end.
    private final class Counts: Sendable {
        private struct Figures {
            var rates: [Double], done: [Int], cpu: [Double]
        }
        private let figures: LockedValue<Figures>
        init(_ count: Int) {
            figures = LockedValue(
                Figures(
                    rates: Array(repeating: 0, count: count), done: Array(repeating: 0, count: count),
                    cpu: Array(repeating: 0, count: count)))
        }
        func set(_ index: Int, rate: Double, done count: Int, cpuSeconds: Double) {
            figures.withLock {
                $0.rates[index] = rate
                $0.done[index] = count
                $0.cpu[index] = cpuSeconds
            }
        }
        var total: Rate {
            figures.withLock {
                Rate(
                    perSecond: $0.rates.reduce(0, +),
                    perCPUSecond: Double($0.done.reduce(0, +)) / max(1e-9, $0.cpu.reduce(0, +)))
            }
        }
    }
}
