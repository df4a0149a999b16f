import Foundation

/// The full report of one run (`--format json`), also the baseline format (`--baseline`).
/// Every field added since the first baseline is optional, so older reports still decode.
public struct Report: Codable, Sendable {
    public struct Machine: Codable, Sendable {
        public var host: String
        public var cores: Int
        public var date: String
        /// `valgrind --version`, when the instruction counts were measured.
        public var valgrind: String?

        public init(host: String, cores: Int, date: String, valgrind: String? = nil) {
            self.host = host
            self.cores = cores
            self.date = date
            self.valgrind = valgrind
        }
    }

    /// One point of a latency distribution: the latency under which `percentile` % of requests fell.
    public struct PercentilePoint: Codable, Sendable, Equatable {
        public var percentile: Double
        public var microseconds: Double
        public init(percentile: Double, microseconds: Double) {
            self.percentile = percentile
            self.microseconds = microseconds
        }
    }

    public struct Latency: Codable, Sendable {
        /// How the latency was measured: `closed-loop` or `open-loop at N/s`.
        public var mode: String
        public var requests: Int
        public var p50Microseconds: Double
        public var p99Microseconds: Double
        public var p999Microseconds: Double
        public var maxMicroseconds: Double
        /// Open loop: p99 of how late the sender wrote a request against its schedule.
        public var senderLatenessP99Microseconds: Double?
        /// Closed loop: the same run against a minimal server (one thread that reads a line, does
        /// one raw verify and writes a fixed answer): what this machine's scheduler and pipes
        /// allow a one-at-a-time client.
        public var floorP50Microseconds: Double?
        public var floorP99Microseconds: Double?
        /// The distribution, HdrHistogram style (for the latency plot).
        public var percentiles: [PercentilePoint]?

        public init(
            mode: String, requests: Int, p50Microseconds: Double, p99Microseconds: Double,
            p999Microseconds: Double, maxMicroseconds: Double, percentiles: [PercentilePoint]? = nil
        ) {
            self.mode = mode
            self.requests = requests
            self.p50Microseconds = p50Microseconds
            self.p99Microseconds = p99Microseconds
            self.p999Microseconds = p999Microseconds
            self.maxMicroseconds = maxMicroseconds
            self.percentiles = percentiles
        }
    }

    /// Repetitions that interleave raw and verifier runs: raw, verifier, raw, verifier, …, raw.
    /// Repetition i's efficiency divides its throughput by the mean of the raw rates measured
    /// right before and right after it.
    public struct Samples: Codable, Sendable {
        public var throughput: [Double]
        public var rawRate: [Double]
        public var efficiency: [Double]
        public init(throughput: [Double], rawRate: [Double], efficiency: [Double]) {
            self.throughput = throughput
            self.rawRate = rawRate
            self.efficiency = efficiency
        }
    }

    /// The deterministic cost figure, counted by valgrind (callgrind).
    public struct Instructions: Codable, Sendable {
        /// Instructions per token outside libsodium and libcrypto: parsing, checks, lookups,
        /// output, allocation. The gated figure.
        public var perToken: Double
        /// Instructions per token inside libsodium and libcrypto (for reference; not gated).
        public var signatureLibraryPerToken: Double
        /// The two set sizes whose difference gives the per-token figures.
        public var setSizes: [Int]
        public init(perToken: Double, signatureLibraryPerToken: Double, setSizes: [Int]) {
            self.perToken = perToken
            self.signatureLibraryPerToken = signatureLibraryPerToken
            self.setSizes = setSizes
        }
    }

    public struct Scenario: Codable, Sendable {
        public var name: String
        public var tokens: Int
        public var threads: Int
        public var seconds: Double?
        /// Tokens per second through the streaming engine (the median, with samples).
        public var throughput: Double?
        /// Raw verifies per second of the signature back ends for this scenario's mix, on the
        /// same threads (the mean of before and after, or the median with samples).
        public var rawRate: Double?
        /// throughput ÷ rawRate (the median of the repetitions' efficiencies, with samples).
        public var efficiency: Double?
        /// ES256 only: the bare rate of tokenverify's per-key table path (SHA-256 and the table
        /// verify, no parsing or checks), measured in the same run beside ``rawRate``.
        public var perKeyRawRate: Double?
        /// ES256 only: throughput ÷ perKeyRawRate, counted as ``efficiency`` is.
        public var perKeyEfficiency: Double?
        public var latency: Latency?
        public var samples: Samples?
        public var instructions: Instructions?
        /// Scenario-specific figures (load time, bytes per entry, speedup, …).
        public var notes: [String: Double] = [:]

        public init(
            name: String, tokens: Int, threads: Int, seconds: Double? = nil, throughput: Double? = nil,
            rawRate: Double? = nil, efficiency: Double? = nil, latency: Latency? = nil
        ) {
            self.name = name
            self.tokens = tokens
            self.threads = threads
            self.seconds = seconds
            self.throughput = throughput
            self.rawRate = rawRate
            self.efficiency = efficiency
            self.latency = latency
        }

        /// The name and, for a scaling row, its thread count: what a baseline is matched by.
        public var key: String { name.hasPrefix("scaling-") ? "\(name)@\(threads)" : name }
    }

    public var machine: Machine
    public var scenarios: [Scenario] = []

    public init(machine: Machine, scenarios: [Scenario] = []) {
        self.machine = machine
        self.scenarios = scenarios
    }

    /// This report merged into `baseline`: scenarios of this run replace the baseline's of the
    /// same key; the others are kept (what `--update-baseline` writes). The machine is this
    /// run's, with the baseline's valgrind version where this run counted no instructions (the
    /// kept instruction rows were counted with it).
    public func merged(into baseline: Report?) -> Report {
        var machine = machine
        if machine.valgrind == nil { machine.valgrind = baseline?.machine.valgrind }
        var result = Report(machine: machine, scenarios: baseline?.scenarios ?? [])
        for scenario in scenarios {
            if let index = result.scenarios.firstIndex(where: { $0.key == scenario.key }) {
                result.scenarios[index] = scenario
            } else {
                result.scenarios.append(scenario)
            }
        }
        return result
    }

    /// Pretty JSON with sorted keys.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
