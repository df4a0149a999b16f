/// A pull-request comment (`--format markdown`): the verdict, the table, the baseline
/// comparison with the changes marked, and the machine.
public enum MarkdownFormat {
    /// The columns a scenario table shows (the latency mode and notes stay in the JSON).
    static let columns = Array(TableFormat.header.prefix(13))

    public static func render(_ report: Report, comparisons: [Comparison]?, status: Gate.ExitStatus?) -> String {
        var lines: [String] = []
        if let status, let comparisons {
            let mark = status == .pass ? "✅" : status == .improvement ? "🚀" : "❌"
            lines.append("**tokenbench: \(mark) \(Gate.verdictLine(status, comparisons))**")
        } else {
            lines.append("**tokenbench** (no baseline compared)")
        }
        lines.append("")
        lines.append(row(columns))
        lines.append(row(columns.indices.map { $0 < 1 ? "---" : "---:" }))
        for cells in TableFormat.rows(report) { lines.append(row(Array(cells.prefix(columns.count)))) }
        if let comparisons, !comparisons.isEmpty {
            lines.append("")
            lines.append("Against the baseline:")
            lines.append("")
            lines.append(row(["scenario", "figure", "baseline", "now", "change", "threshold", ""]))
            lines.append(row(["---", "---", "---:", "---:", "---:", "---:", "---"]))
            for comparison in comparisons {
                lines.append(
                    row([
                        comparison.scenario, comparison.figure.label, Comparison.format(comparison.baseline),
                        Comparison.format(comparison.current), Comparison.signedPercent(comparison.change),
                        "±" + Comparison.percent(comparison.tolerance), mark(comparison.verdict),
                    ]))
            }
        }
        lines.append("")
        var machine = "Machine: \(report.machine.host), \(report.machine.cores) cores, \(report.machine.date)"
        if let valgrind = report.machine.valgrind { machine += ", \(valgrind)" }
        lines.append(machine + ".")
        return lines.joined(separator: "\n") + "\n"
    }

    static func mark(_ verdict: Comparison.Verdict) -> String {
        switch verdict {
        case .pass: "✅ pass"
        case .regression: "❌ **regression**"
        case .improvement: "🚀 **improvement**"
        case .notGated: "not gated"
        }
    }

    static func row(_ cells: [String]) -> String {
        "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
    }
}
