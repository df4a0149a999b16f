import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenVerifier

/// End-to-end efficiency measured so that machine noise shows as spread instead of a shift:
/// raw, verifier, raw, verifier, …, raw on the same threads, each verifier repetition divided by
/// the mean of the raw rates right before and right after it. The report keeps every
/// repetition; its figures are the medians.
///
/// Each rate is counted two ways: per second of wall time (tokens/s, raw/s, what a user sees)
/// and per second of the process's CPU time. On a machine shared with other work the wall-time
/// ratio is biased, not just noisy: the scheduler shares the cores out by runnable thread, and
/// the pipeline runs one more thread (its reader) than the raw loop, so under load it gets the
/// larger share and its "efficiency" rises past 1. Per CPU second both sides pay only for what
/// they execute, so the ratio holds under load; the efficiency scenario gates on it.
struct Interleaved {
    let workDirectory: String
    let count: Int
    let rawSeconds: Double
    let rawVariants: Int

    /// A set written once, its algorithm mix (shares of the tokens, summing to 1) and its verifier.
    struct Workload {
        var mix: [RawRate.Algorithm: Double]
        var requests: String
        var lines: Int
        var messageLength: Int
        var keys: KeySet
        var revocations: RevocationList
        var steps = SecuritySteps.none
        var options = VerificationOptions(checkTime: 1_800_000_000)

        /// A verifier with an empty signature cache, as `tokenverify verify` starts: a second
        /// repetition over the same tokens must not be answered from the first one's cache.
        /// Keys' tables are ready before it runs (the steady state, as a long stream sees).
        func freshVerifier() -> Verifier {
            let verifier = Verifier(keys: keys, revocations: revocations, steps: steps, options: options)
            verifier.waitForKeyTables()
            return verifier
        }

        /// The mix measured on the per-key table paths instead of the standard calls (ES256 and
        /// Ed25519 alike); nil when no share has a table path.
        var perKeyMix: [RawRate.Algorithm: Double]? {
            var perKey: [RawRate.Algorithm: Double] = [:]
            for (algorithm, share) in mix where share > 0 {
                switch algorithm {
                case .es256: perKey[.es256PerKey, default: 0] += share
                case .ed25519: perKey[.ed25519PerKey, default: 0] += share
                default: perKey[algorithm, default: 0] += share
                }
            }
            return perKey == mix.filter({ $0.value > 0 }) ? nil : perKey
        }
    }

    func workload(_ algorithm: RawRate.Algorithm) throws -> Workload {
        var spec = TokenSetSpec(count: count, seed: 7)
        spec.es256Share = algorithm == .es256 ? 1 : 0
        let start = Date()
        let set = TokenSetGenerator.generate(spec)
        log(
            "  generated \(set.requests.count) \(algorithm.rawValue) requests in \(String(format: "%.1f", Date().timeIntervalSince(start))) s"
        )
        let path = workDirectory + "/interleaved-\(algorithm.rawValue).jsonl"
        try Data((set.requests.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let keys = try KeySet.parse(Array(set.keySet.utf8)).0
        let list = try RevocationList.parse(Array(set.revocations.joined(separator: "\n").utf8))
        let token = set.tokens[0].utf8
        let signingInput = token.split(separator: UInt8(ascii: "."), maxSplits: 2).prefix(2).map(\.count).reduce(1, +)
        return Workload(
            mix: [algorithm: 1], requests: path, lines: set.requests.count, messageLength: signingInput, keys: keys,
            revocations: list)
    }

    /// `repetitions` interleaved runs of `workload` on `threads` threads. With `perCPUSecond`
    /// the efficiency (and its samples) is the CPU-time ratio, the wall-time one going to the
    /// notes; without, the other way round.
    func measure(
        _ workload: Workload, name: String, threads: Int, repetitions: Int, perCPUSecond: Bool
    ) throws -> Report.Scenario {
        let output = workDirectory + "/interleaved.answers.jsonl"
        // Also against the per-key table paths' bare rate, measured beside the raw one.
        let perKey = workload.perKeyMix
        var raw = [rawRate(workload.mix, workload, threads: threads)]
        var perKeyRaw = perKey.map { [rawRate($0, workload, threads: threads)] } ?? []
        var perKeyRatios: [Double] = []
        var throughput: [Double] = []
        var wall: [Double] = []
        var cpu: [Double] = []
        var seconds = 0.0
        for _ in 0..<repetitions {
            let verifier = workload.freshVerifier()
            let cpuBefore = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            let run = StreamRunner.throughput(
                verifier: verifier, input: workload.requests, output: output, threads: threads)
            let cpuRate = Double(run.lines) / (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpuBefore)
            guard run.lines == workload.lines else {
                throw ValidationError("\(name): \(run.lines) answers for \(workload.lines) requests")
            }
            raw.append(rawRate(workload.mix, workload, threads: threads))
            throughput.append(run.rate)
            wall.append(run.rate / Self.meanOfLastTwo(raw, \.wall))
            cpu.append(cpuRate / Self.meanOfLastTwo(raw, \.perCPUSecond))
            if let perKey {
                perKeyRaw.append(rawRate(perKey, workload, threads: threads))
                perKeyRatios.append(
                    perCPUSecond
                        ? cpuRate / Self.meanOfLastTwo(perKeyRaw, \.perCPUSecond)
                        : run.rate / Self.meanOfLastTwo(perKeyRaw, \.wall))
            }
            seconds += run.seconds
        }
        try? FileManager.default.removeItem(atPath: output)
        let (gated, other) = perCPUSecond ? (cpu, wall) : (wall, cpu)
        var scenario = Report.Scenario(
            name: name, tokens: workload.lines, threads: threads, seconds: seconds,
            throughput: Statistics.median(throughput), rawRate: Statistics.median(raw.map(\.wall)),
            efficiency: Statistics.median(gated))
        scenario.samples = .init(throughput: throughput, rawRate: raw.map(\.wall), efficiency: gated)
        scenario.notes[perCPUSecond ? "wallTimeEfficiency" : "cpuTimeEfficiency"] = Statistics.median(other)
        if perKey != nil {
            scenario.perKeyRawRate = Statistics.median(perKeyRaw.map(\.wall))
            scenario.perKeyEfficiency = Statistics.median(perKeyRatios)
        }
        return scenario
    }

    /// The mean of the last two rates (the raw runs right before and right after a verifier run).
    private static func meanOfLastTwo(
        _ rates: [(wall: Double, perCPUSecond: Double)],
        _ figure: KeyPath<(wall: Double, perCPUSecond: Double), Double>
    ) -> Double {
        (rates[rates.count - 2][keyPath: figure] + rates[rates.count - 1][keyPath: figure]) / 2
    }

    /// Raw verifies per second of wall time and per second of the verify loops' CPU time (each
    /// thread's setup left out, see ``RawRate/run(_:threads:seconds:messageLength:variants:)``):
    /// each back end of the mix timed on its own, combined as the time one token of the mix
    /// takes (the weighted harmonic mean).
    private func rawRate(
        _ mix: [RawRate.Algorithm: Double], _ workload: Workload, threads: Int
    ) -> (wall: Double, perCPUSecond: Double) {
        var wallSeconds = 0.0
        var cpuSeconds = 0.0
        for (algorithm, share) in mix.sorted(by: { $0.key.rawValue < $1.key.rawValue }) where share > 0 {
            let run = RawRate.run(
                algorithm, threads: threads, seconds: rawSeconds, messageLength: workload.messageLength,
                variants: rawVariants)
            wallSeconds += share / run.rate
            cpuSeconds += share / run.perCPUSecond
        }
        return (1 / wallSeconds, 1 / cpuSeconds)
    }

    /// The thread counts of the scaling scenario: 1, 2, 4, … below the core count, and the count.
    static func defaultThreadCounts(cores: Int) -> [Int] {
        var counts: [Int] = []
        var next = 1
        while next < cores {
            counts.append(next)
            next *= 2
        }
        return counts + [max(1, cores)]
    }
}

/// CPU time, user and system, of this process (all threads: `CLOCK_PROCESS_CPUTIME_ID`) or of
/// the calling thread (`CLOCK_THREAD_CPUTIME_ID`).
func cpuSeconds(_ clock: clockid_t) -> Double {
    var now = timespec()
    clock_gettime(clock, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
