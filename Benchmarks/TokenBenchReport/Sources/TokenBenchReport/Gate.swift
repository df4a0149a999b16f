import Foundation

/// The figures a baseline comparison looks at.
public enum Figure: String, CaseIterable, Codable, Sendable {
    /// Instructions per token outside the signature library (valgrind): deterministic.
    case instructions
    /// Median efficiency of interleaved repetitions (throughput ÷ raw rate).
    case efficiency
    /// Open-loop p99 latency.
    case p99

    public var label: String {
        switch self {
        case .instructions: "instructions/token"
        case .efficiency: "efficiency"
        case .p99: "p99 µs"
        }
    }

    /// Throughput and efficiency are better bigger; instructions and latency smaller.
    public var biggerIsBetter: Bool { self == .efficiency }
}

/// Per-figure thresholds (fractions: 0.015 = 1.5%) and which figures decide the exit code.
public struct Thresholds: Sendable {
    public var instructions = 0.015
    public var efficiency = 0.10
    public var p99 = 1.0
    public var gated: Set<Figure> = [.instructions, .efficiency]

    public init() {}

    public func threshold(_ figure: Figure) -> Double {
        switch figure {
        case .instructions: instructions
        case .efficiency: efficiency
        case .p99: p99
        }
    }
}

/// One figure of one scenario against the baseline.
public struct Comparison: Sendable {
    public enum Verdict: String, Sendable {
        case pass, regression, improvement
        case notGated = "not gated"
    }

    public var scenario: String
    public var figure: Figure
    public var baseline: Double
    public var current: Double
    /// The accepted change, a fraction: the threshold, or wider when the run's own noise is.
    public var tolerance: Double
    public var verdict: Verdict

    /// (current − baseline) ÷ baseline.
    public var change: Double { (current - baseline) / baseline }

    /// The line a CI log shows for a regression or an improvement.
    public var message: String {
        let direction = figure.biggerIsBetter ? "lower" : "higher"
        let what =
            verdict == .improvement
            ? "better than the baseline beyond the threshold: refresh it with --update-baseline"
            : "more than \(Self.percent(tolerance)) \(direction) than the baseline"
        return
            "\(scenario): \(figure.label) \(Self.format(current)) against a baseline of \(Self.format(baseline)), threshold \(Self.percent(tolerance)) (\(Self.signedPercent(change))): \(what)"
    }

    static func format(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f", value) : String(format: "%.3f", value)
    }

    static func percent(_ fraction: Double) -> String { String(format: "%.1f%%", fraction * 100) }

    public static func signedPercent(_ fraction: Double) -> String { String(format: "%+.1f%%", fraction * 100) }
}

/// The baseline comparison and the exit code a CI script branches on.
public enum Gate {
    public enum ExitStatus: Int32, Sendable {
        case pass = 0
        case regression = 2
        case baselineMissing = 3
        case improvement = 4
    }

    public enum BaselineError: Error, CustomStringConvertible {
        case missing(String)
        case unreadable(String, String)
        public var description: String {
            switch self {
            case .missing(let path): "the baseline \(path) does not exist"
            case .unreadable(let path, let why): "the baseline \(path) cannot be read: \(why)"
            }
        }
    }

    /// Reads a baseline report (exit status 3 when this throws).
    public static func loadBaseline(_ path: String) throws -> Report {
        guard FileManager.default.fileExists(atPath: path) else { throw BaselineError.missing(path) }
        do {
            return try JSONDecoder().decode(Report.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw BaselineError.unreadable(path, "\(error)")
        }
    }

    /// Every figure present in both reports, each with its verdict.
    public static func compare(_ report: Report, against baseline: Report, thresholds: Thresholds) -> [Comparison] {
        var rows: [Comparison] = []
        for scenario in report.scenarios {
            guard let previous = baseline.scenarios.first(where: { $0.key == scenario.key }) else { continue }
            let name = scenario.name.hasPrefix("scaling-") ? "\(scenario.name) ×\(scenario.threads)" : scenario.name
            for figure in Figure.allCases {
                guard let (now, before, noise) = values(figure, scenario, previous), before > 0 else { continue }
                let tolerance = max(thresholds.threshold(figure), noise)
                var verdict = Comparison.Verdict.pass
                let worse = figure.biggerIsBetter ? now < before * (1 - tolerance) : now > before * (1 + tolerance)
                let better = figure.biggerIsBetter ? now > before * (1 + tolerance) : now < before * (1 - tolerance)
                if worse { verdict = .regression } else if better { verdict = .improvement }
                // Single-shot efficiencies (no repetitions) are shown but never gate: they cry wolf.
                let gated = thresholds.gated.contains(figure) && (figure != .efficiency || scenario.samples != nil)
                if !gated { verdict = .notGated }
                rows.append(
                    Comparison(
                        scenario: name, figure: figure, baseline: before, current: now,
                        tolerance: tolerance, verdict: verdict))
            }
        }
        return rows
    }

    /// The current value, the baseline's, and the noise both runs measured (a fraction).
    private static func values(
        _ figure: Figure, _ now: Report.Scenario, _ before: Report.Scenario
    ) -> (Double, Double, Double)? {
        switch figure {
        case .instructions:
            guard let current = now.instructions?.perToken, let previous = before.instructions?.perToken else {
                return nil
            }
            return (current, previous, 0)
        case .efficiency:
            guard let current = now.efficiency, let previous = before.efficiency else { return nil }
            // With repetitions: the tolerance widens to twice the standard error of the
            // difference of the two medians, when the runs were noisier than the threshold allows for.
            let errors = [now.samples, before.samples].map {
                $0.flatMap { Statistics.relativeStandardErrorOfMedian($0.efficiency) } ?? 0
            }
            return (current, previous, 2 * errors.map { $0 * $0 }.reduce(0, +).squareRoot())
        case .p99:
            guard let current = now.latency?.p99Microseconds, let previous = before.latency?.p99Microseconds else {
                return nil
            }
            return (current, previous, 0)
        }
    }

    /// Regression beats improvement; with nothing gated in common, the baseline is missing the
    /// run's figures (3), unless the run measured no gated figure at all (then it passes).
    public static func status(_ comparisons: [Comparison], report: Report, thresholds: Thresholds) -> ExitStatus {
        if comparisons.contains(where: { $0.verdict == .regression }) { return .regression }
        if comparisons.contains(where: { $0.verdict == .improvement }) { return .improvement }
        let gatedCompared = comparisons.contains { $0.verdict != .notGated }
        if !gatedCompared && measuresGatedFigure(report, thresholds) { return .baselineMissing }
        return .pass
    }

    static func measuresGatedFigure(_ report: Report, _ thresholds: Thresholds) -> Bool {
        report.scenarios.contains { scenario in
            (thresholds.gated.contains(.instructions) && scenario.instructions != nil)
                || (thresholds.gated.contains(.efficiency) && scenario.samples != nil)
                || (thresholds.gated.contains(.p99) && scenario.latency != nil)
        }
    }

    /// One line: what the gate decided and why.
    public static func verdictLine(_ status: ExitStatus, _ comparisons: [Comparison]) -> String {
        let gated = comparisons.filter { $0.verdict != .notGated }
        switch status {
        case .pass: return "pass: \(gated.count) gated figures within their thresholds"
        case .regression:
            let worst = gated.filter { $0.verdict == .regression }
            return "regression: "
                + worst.map { "\($0.scenario) \($0.figure.label) \(Comparison.signedPercent($0.change))" }.joined(
                    separator: ", ")
        case .improvement:
            let better = gated.filter { $0.verdict == .improvement }
            return "improvement beyond the threshold (refresh the baseline): "
                + better.map { "\($0.scenario) \($0.figure.label) \(Comparison.signedPercent($0.change))" }.joined(
                    separator: ", ")
        case .baselineMissing: return "baseline missing: it has none of this run's gated figures"
        }
    }
}
