import Foundation
import Testing

/// Tests that need something from outside the repository (the Token Status List vectors of
/// `../shared/`, another library to mint or verify tokens) state it with ``require(_:_:sourceLocation:)``:
/// when it is missing the test is skipped with the reason, and in CI (the variable `CI` set to
/// anything but "", "0" or "false") it fails instead, so CI never passes a test it did not run.
package enum ExternalRequirement {
    /// Whether the CI rule is in force.
    package static var inCI: Bool {
        guard let value = ProcessInfo.processInfo.environment["CI"] else { return false }
        return !["", "0", "false"].contains(value.lowercased())
    }

    /// Returns when `available`; otherwise skips the running test with `reason` (or, in CI,
    /// records a failure and stops it).
    package static func require(
        _ available: Bool, _ reason: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        if available { return }
        if inCI {
            Issue.record("\(reason()) (CI is set: a skipped external test fails)", sourceLocation: sourceLocation)
            throw Missing(reason: reason())
        }
        try Test.cancel("skipped: \(reason())", sourceLocation: sourceLocation)
    }

    /// What stopped a test in CI.
    package struct Missing: Error, CustomStringConvertible {
        package var reason: String
        package var description: String { reason }
    }
}
