import Foundation

/// The human table (`--format table`) and the cells the Markdown table shares with it.
public enum TableFormat {
    public static let header = [
        "scenario", "threads", "tokens", "tokens/s", "raw/s", "efficiency", "spread",
        "per-key raw/s", "per-key eff.",
        "instr/token", "sig instr/token", "p50 µs", "p99 µs", "p99.9 µs", "max µs",
        "floor p50/p99", "latency mode", "notes",
    ]

    /// One row per scenario, cells as text ("-" where a scenario has no such figure).
    public static func rows(_ report: Report) -> [[String]] {
        report.scenarios.map { scenario in
            let notes = scenario.notes.sorted { $0.key < $1.key }.map { "\($0.key)=\(number($0.value, 3))" }.joined(
                separator: " ")
            let spread = scenario.samples.flatMap { Statistics.relativeSpread($0.efficiency) }
            let latency = scenario.latency
            return [
                scenario.name, "\(scenario.threads)", "\(scenario.tokens)", number(scenario.throughput),
                number(scenario.rawRate),
                number(scenario.efficiency, 3), spread.map { String(format: "%.3f", $0) } ?? "-",
                number(scenario.perKeyRawRate), number(scenario.perKeyEfficiency, 3),
                number(scenario.instructions?.perToken), number(scenario.instructions?.signatureLibraryPerToken),
                number(latency?.p50Microseconds), number(latency?.p99Microseconds),
                number(latency?.p999Microseconds), number(latency?.maxMicroseconds),
                latency?.floorP50Microseconds.map { "\(Int($0))/\(Int(latency?.floorP99Microseconds ?? 0))" } ?? "-",
                latency?.mode ?? "-", notes,
            ]
        }
    }

    public static func number(_ value: Double?, _ digits: Int = 0) -> String {
        guard let value else { return "-" }
        return String(format: "%.\(digits)f", value)
    }

    /// The report as aligned columns, then the baseline comparison and the verdict, if any.
    public static func render(_ report: Report, comparisons: [Comparison]? = nil, verdict: String? = nil) -> String {
        var text = align([header] + rows(report), leftColumns: [0, 16, 17])
        if let comparisons, !comparisons.isEmpty {
            let lines = comparisons.map { row in
                [
                    row.scenario, row.figure.label, Comparison.format(row.baseline), Comparison.format(row.current),
                    Comparison.signedPercent(row.change), "±" + Comparison.percent(row.tolerance), row.verdict.rawValue,
                ]
            }
            text += "\n\nagainst the baseline:\n"
            text += align(
                [["scenario", "figure", "baseline", "now", "change", "threshold", "verdict"]] + lines,
                leftColumns: [0, 1, 6])
        }
        if let verdict { text += "\n\n" + verdict }
        return text
    }

    static func align(_ rows: [[String]], leftColumns: Set<Int>) -> String {
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                leftColumns.contains(column)
                    ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }
}
