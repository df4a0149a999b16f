import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenVerifier

/// End-to-end efficiency measured so that machine noise shows as spread instead of a shift:
/// raw, verifier, raw, verifier, …, raw on the same threads, each verifier repetition divided by
/// the mean of the raw rates right before and right after it. The report keeps every
/// repetition; its figures are the medians.
struct Interleaved {
    let workDirectory: String
    let count: Int
    let rawSeconds: Double
    let rawVariants: Int

    /// A set of one algorithm, written once, and its verifier.
    struct Workload {
        var algorithm: RawRate.Algorithm
        var requests: String
        var lines: Int
        var messageLength: Int
        var keys: KeySet
        var revocations: RevocationList

        /// A verifier with an empty signature cache, as `tokenverify verify` starts: a second
        /// repetition over the same tokens must not be answered from the first one's cache.
        func freshVerifier() -> TokenVerifier {
            TokenVerifier(keys: keys, revocations: revocations, options: VerificationOptions(checkTime: 1_800_000_000))
        }
    }

    func workload(_ algorithm: RawRate.Algorithm) throws -> Workload {
        var spec = TokenSetSpec(count: count, seed: 7)
        spec.es256Share = algorithm == .es256 ? 1 : 0
        let start = Date()
        let set = TokenSetGenerator.generate(spec)
        log("  generated \(set.requests.count) \(algorithm.rawValue) requests in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        let path = workDirectory + "/interleaved-\(algorithm.rawValue).jsonl"
        try Data((set.requests.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: path))
        let keys = try KeySet.parse(Array(set.keySet.utf8)).0
        let list = try RevocationList.parse(Array(set.revocations.joined(separator: "\n").utf8))
        let token = set.tokens[0].utf8
        let signingInput = token.split(separator: UInt8(ascii: "."), maxSplits: 2).prefix(2).map(\.count).reduce(1, +)
        return Workload(algorithm: algorithm, requests: path, lines: set.requests.count, messageLength: signingInput, keys: keys, revocations: list)
    }

    /// `repetitions` interleaved runs of `workload` on `threads` threads.
    func measure(_ workload: Workload, name: String, threads: Int, repetitions: Int) throws -> Report.Scenario {
        let output = workDirectory + "/interleaved.answers.jsonl"
        var raw = [rawRate(workload, threads: threads)]
        var throughput: [Double] = [], efficiency: [Double] = [], seconds = 0.0
        for _ in 0..<repetitions {
            let run = StreamRunner.throughput(verifier: workload.freshVerifier(), input: workload.requests, output: output, threads: threads)
            guard run.lines == workload.lines else {
                throw ValidationError("\(name): \(run.lines) answers for \(workload.lines) requests")
            }
            raw.append(rawRate(workload, threads: threads))
            throughput.append(run.rate)
            efficiency.append(run.rate / ((raw[raw.count - 2] + raw[raw.count - 1]) / 2))
            seconds += run.seconds
        }
        try? FileManager.default.removeItem(atPath: output)
        var scenario = Report.Scenario(name: name, tokens: workload.lines, threads: threads, seconds: seconds,
                                       throughput: Statistics.median(throughput), rawRate: Statistics.median(raw),
                                       efficiency: Statistics.median(efficiency))
        scenario.samples = .init(throughput: throughput, rawRate: raw, efficiency: efficiency)
        return scenario
    }

    private func rawRate(_ workload: Workload, threads: Int) -> Double {
        RawRate.measure(workload.algorithm, threads: threads, seconds: rawSeconds, messageLength: workload.messageLength, variants: rawVariants)
    }

    /// The thread counts of the scaling scenario: 1, 2, 4, … below the core count, and the count.
    static func defaultThreadCounts(cores: Int) -> [Int] {
        var counts: [Int] = []
        var next = 1
        while next < cores { counts.append(next); next *= 2 }
        return counts + [max(1, cores)]
    }
}
