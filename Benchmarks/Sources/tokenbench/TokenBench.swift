import ArgumentParser
import Foundation
import TokenGen
import TokenVerifier

/// `tokenbench`: throughput, latency and efficiency of the verifier (SPEC §8).
@main
struct TokenBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenbench",
        abstract: "Measures tokenverify's throughput and latency against the raw signature back ends.",
        discussion: """
            Generates token sets in process, streams them through the same engine as \
            `tokenverify verify`, and reports tokens/s, latency percentiles and efficiency = \
            throughput ÷ raw verify rate of libsodium / OpenSSL on the same threads, measured \
            right before and after each run. Scenarios: \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")).
            """)

    @Option(name: .long, help: "Tokens per scenario.") var count = 200_000
    @Option(name: .long, help: "Verifier threads (and raw baseline threads).") var threads = activeProcessorCount()
    @Option(name: .long, parsing: .upToNextOption, help: "Scenarios to run (default: all).") var scenario: [Scenario] = []
    @Option(name: .long, help: "Entries in the large revocation list.") var revocationEntries = 10_000_000
    @Option(name: .long, help: "Round trips in the closed-loop latency run.") var closedLoopRequests = 3_000
    @Option(name: .long, help: "Open-loop load as a share of the scenario's measured throughput.") var openLoopLoad = 0.5
    @Option(name: .long, help: "Seconds of requests in each open-loop latency run.") var openLoopSeconds = 2.0
    @Option(name: .long, help: "Seconds of each raw baseline measurement.") var rawSeconds = 1.0
    @Flag(name: .long, help: "A quick run to check the benchmark works (small sets; CI).") var smoke = false
    @Option(name: .long, help: ArgumentHelp("Write the full report as JSON.", valueName: "file")) var json: String?
    @Option(name: .long, help: ArgumentHelp("A previous --json report to compare with.", valueName: "file")) var baseline: String?
    @Option(name: .long, help: "Largest accepted fall of efficiency against the baseline (0.1 = 10%).") var maxRegression = 0.1
    @Option(name: .long, help: "Seed of the generated sets.") var seed: UInt64 = 7
    @Option(name: .long, help: ArgumentHelp("Only measure the raw verify rate of one back end (ed25519 or es256) for --raw-seconds on --threads, print it and stop.", valueName: "algorithm"))
    var rawOnly: RawRate.Algorithm?
    @Option(name: .long, help: "Message length for --raw-only (a token's signing input is about 330 bytes).") var messageLength = 330
    @Option(name: .long, help: "Different signatures the raw baseline cycles through (1: one signature over and over, as `openssl speed`).")
    var rawVariants = 256

    mutating func validate() throws {
        if smoke {
            count = min(count, 4_000)
            revocationEntries = min(revocationEntries, 200_000)
            closedLoopRequests = min(closedLoopRequests, 300)
            openLoopSeconds = min(openLoopSeconds, 0.5)
            rawSeconds = min(rawSeconds, 0.3)
        }
        guard count >= 10, threads >= 1, openLoopLoad > 0, rawSeconds > 0, rawVariants >= 1 else {
            throw ValidationError("--count must be at least 10; --threads, --open-loop-load, --raw-seconds and --raw-variants positive")
        }
    }

    func run() throws {
        if let rawOnly {
            let rate = RawRate.measure(rawOnly, threads: threads, seconds: rawSeconds, messageLength: messageLength, variants: rawVariants)
            print("raw \(rawOnly.rawValue): \(Int(rate)) verifies/s on \(threads) threads (\(rawVariants) different signatures)")
            return
        }
        let baselineReport: Report? = try baseline.map { path in
            do { return try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path))) }
            catch { throw ValidationError("cannot read the baseline \(path): \(error)") }
        }
        let formatter = ISO8601DateFormatter()
        var report = Report(machine: .init(host: ProcessInfo.processInfo.hostName, cores: activeProcessorCount(),
                                           date: formatter.string(from: Date())))
        let bench = Bench(settings: self)
        defer { bench.cleanUp() }
        for scenario in (self.scenario.isEmpty ? Scenario.allCases : self.scenario) {
            log("\(scenario.rawValue)…")
            report.scenarios.append(try bench.run(scenario))
        }
        print(report.table())
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
        if let baselineReport {
            let regressions = report.regressions(against: baselineReport, maximum: maxRegression)
            if !regressions.isEmpty {
                log("tokenbench: regression against \(baseline!):\n  " + regressions.joined(separator: "\n  "))
                throw ExitCode(1)
            }
            log("tokenbench: no scenario fell more than \(Int(maxRegression * 100))% below \(baseline!)")
        }
    }
}

/// The scenarios of SPEC §8.
enum Scenario: String, CaseIterable, ExpressibleByArgument, Codable {
    case ed25519, es256, mixed, realistic
    case revocations = "revocations-10m"
    case repeatedUncached = "repeated-uncached"
    case repeatedCached = "repeated-cached"
    case closedLoop = "closed-loop"
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
