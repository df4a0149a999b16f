import Foundation
import Testing

/// The tally of a randomized comparison of a library's standard verify with a per-key table path,
/// by the variant of input: how many were checked, found valid, and judged differently (each
/// difference recorded as an issue with its input).
struct PathComparisonTally<Variant: Hashable & CaseIterable> {
    private(set) var checked: [Variant: Int] = [:]
    private(set) var valid: [Variant: Int] = [:]
    private(set) var mismatches: [Variant: Int] = [:]
    private let started = Date()

    /// Records one input's verdicts: `standard` (the library's call, named `standardName`) and `table`.
    mutating func record(
        _ variant: Variant, standard: Bool, table: Bool, standardName: String, input: @autoclosure () -> String
    ) {
        checked[variant, default: 0] += 1
        if table { valid[variant, default: 0] += 1 }
        if standard != table {
            mismatches[variant, default: 0] += 1
            Issue.record("\(variant): \(standardName) \(standard), table \(table); \(input())")
        }
    }

    /// Prints `title`, the time taken and one line of figures per variant.
    func report(_ title: String) {
        let seconds = Date().timeIntervalSince(started)
        let lines = Variant.allCases.map {
            "  \($0): \(checked[$0] ?? 0) checked, \(valid[$0] ?? 0) valid, \(mismatches[$0] ?? 0) mismatches"
        }
        print("\(title) in \(String(format: "%.1f", seconds)) s\n" + lines.joined(separator: "\n"))
    }
}
