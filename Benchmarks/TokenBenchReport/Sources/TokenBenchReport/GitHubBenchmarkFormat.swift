import Foundation

/// The JSON arrays github-action-benchmark's `customBiggerIsBetter` and `customSmallerIsBetter`
/// tools read: `[{name, unit, value, range, extra}]`, one file each.
public enum GitHubBenchmarkFormat {
    public struct Entry: Codable, Equatable, Sendable {
        public var name: String
        public var unit: String
        public var value: Double
        public var range: String?
        public var extra: String?
    }

    /// Throughput, raw rate and efficiency.
    public static func biggerIsBetter(_ report: Report) -> [Entry] {
        report.scenarios.flatMap { scenario -> [Entry] in
            let label = name(scenario)
            var entries: [Entry] = []
            let extra = "threads: \(scenario.threads); tokens: \(scenario.tokens)"
            if let value = scenario.throughput {
                entries.append(
                    Entry(
                        name: "\(label) throughput", unit: "tokens/s", value: value,
                        range: spread(scenario.samples?.throughput), extra: extra))
            }
            if let value = scenario.rawRate {
                entries.append(
                    Entry(
                        name: "\(label) raw rate", unit: "verifies/s", value: value,
                        range: spread(scenario.samples?.rawRate), extra: extra))
            }
            if let value = scenario.efficiency {
                entries.append(
                    Entry(
                        name: "\(label) efficiency", unit: "ratio", value: value,
                        range: spread(scenario.samples?.efficiency),
                        extra: extra
                            + (scenario.samples.map { "; median of \($0.efficiency.count) interleaved repetitions" }
                                ?? "")
                            + (scenario.notes["wallTimeEfficiency"].map {
                                String(format: "; per CPU second (wall time: %.3f)", $0)
                            } ?? "")))
            }
            return entries
        }
    }

    /// Latency percentiles and instructions per token.
    public static func smallerIsBetter(_ report: Report) -> [Entry] {
        report.scenarios.flatMap { scenario -> [Entry] in
            let label = name(scenario)
            var entries: [Entry] = []
            if let instructions = scenario.instructions {
                entries.append(
                    Entry(
                        name: "\(label) instructions per token", unit: "instructions", value: instructions.perToken,
                        range: nil,
                        extra:
                            "outside libsodium/libcrypto, callgrind, sets of \(instructions.setSizes.map(String.init).joined(separator: " and ")) tokens; signature library: \(Int(instructions.signatureLibraryPerToken))"
                    ))
            }
            if let latency = scenario.latency {
                for (percentile, value) in [
                    ("p50", latency.p50Microseconds), ("p99", latency.p99Microseconds),
                    ("p99.9", latency.p999Microseconds),
                ] {
                    entries.append(
                        Entry(
                            name: "\(label) \(percentile) latency", unit: "µs", value: value, range: nil,
                            extra: "\(latency.mode); \(latency.requests) requests"))
                }
            }
            return entries
        }
    }

    static func name(_ scenario: Report.Scenario) -> String {
        scenario.name.hasPrefix("scaling-") ? "\(scenario.name) ×\(scenario.threads)" : scenario.name
    }

    /// "± half the interquartile range" of the repetitions.
    static func spread(_ values: [Double]?) -> String? {
        guard let values, values.count > 1, let lower = Statistics.quantile(values, 0.25),
            let upper = Statistics.quantile(values, 0.75)
        else { return nil }
        let half = (upper - lower) / 2
        return "± " + (half >= 100 ? String(format: "%.0f", half) : String(format: "%.4f", half))
    }

    public static func encode(_ entries: [Entry]) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(entries)
    }
}
