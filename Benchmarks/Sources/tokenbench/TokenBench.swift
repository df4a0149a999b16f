import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenVerifier

/// `tokenbench`: throughput, latency and efficiency of the verifier (spec §8), and the CI gate.
@main
struct TokenBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenbench",
        abstract: "Measures tokenverify's throughput and latency against the raw signature back ends.",
        discussion: """
            Generates token sets in process, streams them through the same engine as \
            `tokenverify verify`, and reports tokens/s, latency percentiles and efficiency = \
            throughput ÷ raw verify rate of libsodium / OpenSSL on the same threads. Scenarios: \
            \(Scenario.allCases.map(\.rawValue).joined(separator: ", ")). With --baseline the exit \
            status is 0 pass, 2 regression, 3 baseline missing or unreadable, 4 improvement beyond \
            the threshold (refresh the baseline with --update-baseline).

            Your own set: --requests FILE… --keys K… [--revocations R…] [--step-policy P] \
            [--device-steps D…] [--at T] [--cache-slots N] measures that set instead, as one \
            scenario (--set-name) with the same figures, formats and gate; its raw rate is that of \
            the set's own algorithm mix, and its instructions per token include the signature library's. A missing or unreadable file, or any other usage error, \
            stops the run before any work with exit status 64 (not 2, which is the gate's regression).
            """)

    @Option(name: .long, help: "Tokens per scenario.") var count = 200_000
    @Option(
        name: .customLong("threads"),
        help: ArgumentHelp(
            "Verifier threads (and raw baseline threads); a list (1,2,4) gives the scaling scenario's counts, the others use the largest.",
            valueName: "n[,n…]"))
    var threadCounts: ThreadCounts?
    @Option(name: .long, parsing: .upToNextOption, help: "Scenarios to run (default: all).") var scenario: [Scenario] =
        []
    @Option(name: .long, help: "Entries in the large revocation list.") var revocationEntries = 10_000_000
    @Option(name: .long, help: "Entries (1 bit each) in the status-list scenario's list.") var statusListEntries =
        100_000_000
    @Option(name: .long, help: "Leaf certificates per algorithm in the chain scenario's set.") var chainLeaves = 150
    @Option(
        name: .long,
        help: "Leaf certificates per algorithm in the chain scenario's memory run (distinct chains; 0: no run).")
    var chainDistinctLeaves = 20_000
    @Option(name: .long, help: "Distinct chains (each with its own leaf key) in the chain-memory scenario.")
    var chains = 100_000
    @Option(name: .long, help: "Chains made and verified at a time in the chain-memory scenario (a multiple of 4).")
    var chainBatch = 10_000
    @Option(name: .long, help: "Chain cache slots of the chain-memory scenario's verifier.") var chainCacheEntries =
        4096
    @Option(name: .long, help: "Round trips in the closed-loop latency run.") var closedLoopRequests = 3_000
    @Option(name: .long, help: "Open-loop load as a share of the scenario's measured throughput.") var openLoopLoad =
        0.5
    @Option(name: .long, help: "Seconds of requests in each open-loop latency run.") var openLoopSeconds = 2.0
    @Option(name: .long, help: "Seconds of each raw baseline measurement.") var rawSeconds = 1.0
    @Option(name: .long, help: "Tokens per verifier run in the efficiency and scaling scenarios.") var efficiencyCount =
        10_000
    @Option(
        name: .long,
        help:
            "Interleaved raw/verifier repetitions in the efficiency scenario (scaling: up to 5); each raw run lasts min(--raw-seconds, 0.5)."
    )
    var repetitions = 15
    @Flag(name: .long, help: "A quick run to check the benchmark works (small sets; CI).") var smoke = false
    @Option(
        name: .long, parsing: .upToNextOption,
        help: "Report formats: table, json, markdown, github-benchmark (several need --output-dir).")
    var format: [OutputFormat] = [.table]
    @Option(name: .long, help: ArgumentHelp("Write each format to a file in this folder.", valueName: "dir"))
    var outputDir: String?
    @Option(name: .long, help: ArgumentHelp("Write the full report as JSON.", valueName: "file")) var json: String?
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write SVG pictures (latency distributions, thread scaling) to this folder.", valueName: "dir")) var plots:
        String?
    @Option(
        name: .long,
        help: ArgumentHelp("A previous report to compare with (exit 2 on a regression).", valueName: "file"))
    var baseline: String?
    @Flag(
        name: .long,
        help: "Write this run's scenarios into --baseline (replacing those of the same name) instead of comparing.")
    var updateBaseline = false
    @Option(name: .long, help: "Figures that decide the exit status: instructions, efficiency, p99 (comma-separated).")
    var gate = "instructions,efficiency"
    @Option(name: .long, help: "Largest accepted rise of instructions per token (0.015 = 1.5%).")
    var maxInstructionsRegression = 0.015
    @Option(
        name: .long, help: "Largest accepted fall of median efficiency, widened to the runs' own interquartile spread.")
    var maxEfficiencyRegression = 0.10
    @Option(name: .long, help: "Largest accepted rise of p99 latency (gated only with --gate …,p99).")
    var maxP99Regression = 1.0
    @Option(name: .long, help: "Seed of the generated sets.") var seed: UInt64 = 7
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Only measure the raw verify rate of one back end (ed25519, es256, ed25519-per-key or es256-per-key) for --raw-seconds on --threads, print it and stop.",
            valueName: "algorithm"))
    var rawOnly: RawRate.Algorithm?
    @Option(name: .long, help: "Message length for --raw-only (a token's signing input is about 330 bytes).")
    var messageLength = 330
    @Option(
        name: .long,
        help:
            "Different signatures the raw baseline cycles through (1: one signature over and over, as `openssl speed`)."
    )
    var rawVariants = 256
    @OptionGroup(title: "Your own set") var ownSet: OwnSetOptions
    @Option(name: .long, help: .hidden) var streamFile: String?
    @Option(name: .long, help: .hidden) var keysFile: String?
    @Option(name: .long, help: .hidden) var revocationsFile: String?
    @Option(name: .long, help: .hidden) var anchorsFile: String?
    @Option(name: .long, help: .hidden) var warmFile: String?

    /// Verifier threads of the throughput scenarios.
    var threads: Int { threadCounts?.values.max() ?? activeProcessorCount() }

    mutating func validate() throws {
        if smoke {
            count = min(count, 4_000)
            efficiencyCount = min(efficiencyCount, 2_000)
            repetitions = min(repetitions, 5)
            revocationEntries = min(revocationEntries, 200_000)
            statusListEntries = min(statusListEntries, 1_000_000)
            closedLoopRequests = min(closedLoopRequests, 300)
            openLoopSeconds = min(openLoopSeconds, 0.5)
            rawSeconds = min(rawSeconds, 0.3)
            chainLeaves = min(chainLeaves, 20)
            chainDistinctLeaves = min(chainDistinctLeaves, 300)
            chains = min(chains, 8_000)
            chainBatch = min(chainBatch, 2_000)
        }
        if chains < 1 || chainBatch < 4 || chainBatch % 4 != 0 || !(2...(1 << 24)).contains(chainCacheEntries) {
            throw ValidationError(
                "--chains must be positive, --chain-batch a positive multiple of 4, --chain-cache-entries 2 to 16777216"
            )
        }
        if !(1...65536).contains(chainLeaves) || !(0...65536).contains(chainDistinctLeaves) {
            throw ValidationError("--chain-leaves must be 1 to 65536, --chain-distinct-leaves 0 to 65536")
        }
        if statusListEntries < count {
            throw ValidationError("--status-list-entries must be at least --count (each token names its own entry)")
        }
        guard count >= 10, efficiencyCount >= 10, repetitions >= 1, threads >= 1, openLoopLoad > 0, rawSeconds > 0,
            rawVariants >= 1
        else {
            throw ValidationError(
                "--count and --efficiency-count must be at least 10; --repetitions, --threads, --open-loop-load, --raw-seconds and --raw-variants positive"
            )
        }
        if outputDir == nil && (format.count > 1 || format.contains(.githubBenchmark)) {
            throw ValidationError("several formats, or github-benchmark (two files), need --output-dir")
        }
        if ownSet.isActive && !scenario.isEmpty {
            throw ValidationError("--scenario does not apply to your own set (--requests)")
        }
        if updateBaseline && baseline == nil { throw ValidationError("--update-baseline needs --baseline FILE") }
        _ = try thresholds()
    }

    func thresholds() throws -> Thresholds {
        var thresholds = Thresholds()
        thresholds.instructions = maxInstructionsRegression
        thresholds.efficiency = maxEfficiencyRegression
        thresholds.p99 = maxP99Regression
        thresholds.gated = Set(
            try gate.split(separator: ",").map { name in
                guard let figure = Figure(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw ValidationError("--gate takes instructions, efficiency, p99; not \(name)")
                }
                return figure
            })
        return thresholds
    }

    func run() throws {
        if let rawOnly {
            let rate = RawRate.measure(
                rawOnly, threads: threads, seconds: rawSeconds, messageLength: messageLength, variants: rawVariants)
            print(
                "raw \(rawOnly.rawValue): \(Int(rate)) verifies/s on \(threads) threads (\(rawVariants) different signatures)"
            )
            return
        }
        if ownSet.ownSetChild { return try OwnSet.streamChild(ownSet) }
        if let streamFile, let keysFile, let revocationsFile {
            return try InstructionCount.streamChild(
                requests: streamFile, keys: keysFile, revocations: revocationsFile, anchors: anchorsFile,
                warm: warmFile)
        }
        // A missing or unreadable baseline fails before minutes of measuring (exit 3).
        var baselineReport: Report?
        if let baseline {
            do { baselineReport = try Gate.loadBaseline(baseline) } catch {
                if !(updateBaseline && error is Gate.BaselineError && !FileManager.default.fileExists(atPath: baseline))
                {
                    log("tokenbench: \(error)")
                    throw ExitCode(Gate.ExitStatus.baselineMissing.rawValue)
                }
            }
        }
        let report = try measure()
        try GateOutput(command: self, report: report, baseline: baselineReport).finish()
    }

    /// Runs the scenarios.
    func measure() throws -> Report {
        var report = Report(
            machine: .init(
                host: ProcessInfo.processInfo.hostName, cores: activeProcessorCount(),
                date: ISO8601DateFormatter().string(from: Date())))
        let bench = Bench(settings: self)
        defer { bench.cleanUp() }
        let interleaved = Interleaved(
            workDirectory: bench.workDirectory, count: efficiencyCount,
            rawSeconds: min(rawSeconds, 0.5), rawVariants: rawVariants)
        if ownSet.isActive {
            report.scenarios = try OwnSet(settings: self, workDirectory: bench.workDirectory).measure()
            return report
        }
        for scenario in (self.scenario.isEmpty ? Scenario.allCases : self.scenario) {
            log("\(scenario.rawValue)…")
            switch scenario {
            case .instructions:
                guard let version = InstructionCount.valgrindVersion() else {
                    log("  valgrind is not installed: no instruction counts (scripts/install-dependencies installs it)")
                    continue
                }
                report.machine.valgrind = version
                report.scenarios += try InstructionCount.measure(workDirectory: bench.workDirectory)
            case .efficiency:
                for algorithm in [RawRate.Algorithm.ed25519, .es256] {
                    let workload = try interleaved.workload(algorithm)
                    report.scenarios.append(
                        try interleaved.measure(
                            workload, name: "efficiency-\(algorithm.rawValue)",
                            threads: threads, repetitions: repetitions, perCPUSecond: true))
                }
            case .scaling:
                let counts = threadCounts?.values ?? Interleaved.defaultThreadCounts(cores: activeProcessorCount())
                for algorithm in [RawRate.Algorithm.ed25519, .es256] {
                    let workload = try interleaved.workload(algorithm)
                    for threads in counts {
                        report.scenarios.append(
                            try interleaved.measure(
                                workload, name: "scaling-\(algorithm.rawValue)",
                                threads: threads, repetitions: min(5, repetitions), perCPUSecond: false))
                    }
                }
            default:
                report.scenarios.append(try bench.run(scenario))
            }
        }
        return report
    }
}

/// The scenarios of spec §8, and those of the CI gate.
enum Scenario: String, CaseIterable, ExpressibleByArgument, Codable {
    case ed25519, es256, mixed, realistic
    /// The Ed25519 and ES256 streams written as CWTs (spec §2b).
    case cwtEd25519 = "cwt-ed25519"
    case cwtES256 = "cwt-es256"
    case revocations = "revocations-10m"
    /// A 100-million-entry status list (spec §4c): load time, bytes held, and the CPU a token that
    /// names an entry costs beside the same token without the claim.
    case statusList = "status-list-100m"
    case repeatedUncached = "repeated-uncached"
    case repeatedCached = "repeated-cached"
    case closedLoop = "closed-loop"
    /// Tokens with a 3-certificate chain (a few hundred distinct chains, repeated) beside the
    /// same tokens by `kid`, by CPU per token; a first sighting's cost; memory with many chains.
    case chain
    /// `--chains` tokens, each with a chain and a leaf key of its own, made and verified in
    /// batches: resident memory per 100,000 chains against the chain cache's slots.
    case chainMemory = "chain-memory"
    /// Instructions per token outside the signature library (valgrind): the deterministic figure.
    case instructions
    /// Median efficiency of interleaved raw/verifier repetitions.
    case efficiency
    /// Ed25519 and ES256 on 1, 2, 4, … threads.
    case scaling
}

enum OutputFormat: String, CaseIterable, ExpressibleByArgument {
    case table, json, markdown
    case githubBenchmark = "github-benchmark"
}

/// `--threads 4` or `--threads 1,2,4`.
struct ThreadCounts: ExpressibleByArgument {
    var values: [Int]
    init?(argument: String) {
        let values = argument.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0 >= 1 }), values.count == argument.split(separator: ",").count
        else { return nil }
        self.values = values
    }
}

func log(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
