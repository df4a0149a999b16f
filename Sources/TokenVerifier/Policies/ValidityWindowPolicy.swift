/// Check 9: at check time t the token is valid iff `nbf − leeway ≤ t < exp + leeway`.
struct ValidityWindowPolicy {
    let leeway: Double

    func check(_ token: ParsedToken, at time: Double, _ failures: inout FailureList) {
        if let notBefore = token.notBefore, time < notBefore - leeway {
            failures.add(.notYetValid, "the token is valid from \(describe(notBefore)); the check time is \(describe(time))")
            if failures.isDone { return }
        }
        if !(time < token.expiresAt + leeway) {
            failures.add(.expired, "the token expired at \(describe(token.expiresAt)); the check time is \(describe(time))")
        }
    }
}
/// A NumericDate for people: `2026-01-01T01:00:00Z (1767229200)`.
func describe(_ time: Double) -> String {
    "\(NumericDate.rfc3339(time)) (\(formatNumericDate(time)))"
}

/// A NumericDate as JSON would write it: an integer when it is one, else a decimal.
func formatNumericDate(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
    return String(value)
}
