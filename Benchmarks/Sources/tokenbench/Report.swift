import Foundation
import Histogram

/// The full report of one run (`--json`), also the baseline format (`--baseline`).
struct Report: Codable {
    struct Machine: Codable {
        var host: String
        var cores: Int
        var date: String
    }

    struct Latency: Codable {
        /// How the latency was measured: `closed-loop` or `open-loop at N/s`.
        var mode: String
        var requests: Int
        var p50Microseconds: Double
        var p99Microseconds: Double
        var p999Microseconds: Double
        var maxMicroseconds: Double
        /// Open loop: p99 of how late the sender wrote a request against its schedule.
        var senderLatenessP99Microseconds: Double?
        /// Closed loop: the same run against a minimal server (one thread that reads a line, does
        /// one raw verify and writes a fixed answer): what this machine's scheduler and pipes
        /// allow a one-at-a-time client.
        var floorP50Microseconds: Double?
        var floorP99Microseconds: Double?

        init(mode: String, histogram: Histogram<UInt64>) {
            self.mode = mode
            requests = Int(histogram.totalCount)
            p50Microseconds = Double(histogram.valueAtPercentile(50)) / 1000
            p99Microseconds = Double(histogram.valueAtPercentile(99)) / 1000
            p999Microseconds = Double(histogram.valueAtPercentile(99.9)) / 1000
            maxMicroseconds = Double(histogram.max) / 1000
        }
    }

    struct Scenario: Codable {
        var name: String
        var tokens: Int
        var threads: Int
        var seconds: Double?
        /// Tokens per second through the streaming engine.
        var throughput: Double?
        /// Raw verifies per second of the signature back ends for this scenario's mix, on the
        /// same threads, measured right before and after the run (the mean).
        var rawRate: Double?
        /// throughput ÷ rawRate.
        var efficiency: Double?
        var latency: Latency?
        /// Scenario-specific figures (load time, bytes per entry, speedup, …).
        var notes: [String: Double] = [:]
    }

    var machine: Machine
    var scenarios: [Scenario] = []

    /// The figure a regression gate compares: efficiency, or for the cached stream its speedup.
    static func gateFigure(_ scenario: Scenario) -> Double? {
        scenario.notes["speedupOverUncached"] ?? scenario.efficiency
    }

    /// The human table.
    func table() -> String {
        func number(_ value: Double?, _ digits: Int = 0) -> String {
            guard let value else { return "-" }
            return String(format: "%.\(digits)f", value)
        }
        var rows = [["scenario", "tokens", "tokens/s", "raw/s", "efficiency", "p50 µs", "p99 µs", "p99.9 µs", "max µs", "floor p50/p99", "latency mode", "notes"]]
        for scenario in scenarios {
            let notes = scenario.notes.sorted { $0.key < $1.key }.map { "\($0.key)=\(number($0.value, 3))" }.joined(separator: " ")
            rows.append([
                scenario.name, "\(scenario.tokens)", number(scenario.throughput), number(scenario.rawRate),
                number(scenario.efficiency, 3),
                number(scenario.latency?.p50Microseconds, 0), number(scenario.latency?.p99Microseconds, 0),
                number(scenario.latency?.p999Microseconds, 0), number(scenario.latency?.maxMicroseconds, 0),
                scenario.latency?.floorP50Microseconds.map { "\(Int($0))/\(Int(scenario.latency?.floorP99Microseconds ?? 0))" } ?? "-",
                scenario.latency?.mode ?? "-", notes,
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                column == 0 || column >= 10 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// Scenarios whose gate figure fell by more than `maximum` (a fraction) below the baseline.
    func regressions(against baseline: Report, maximum: Double) -> [String] {
        var found: [String] = []
        for scenario in scenarios {
            guard let current = Self.gateFigure(scenario),
                  let previous = baseline.scenarios.first(where: { $0.name == scenario.name }).flatMap(Self.gateFigure)
            else { continue }
            if current < previous * (1 - maximum) {
                found.append(String(format: "%@: %.3f against a baseline of %.3f (more than %.0f%% lower)",
                                    scenario.name, current, previous, maximum * 100))
            }
        }
        return found
    }
}
