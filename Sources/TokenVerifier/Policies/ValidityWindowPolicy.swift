/// Check 9: at check time t the token is valid iff `nbf − leeway ≤ t < exp + leeway`.
struct ValidityWindowPolicy {
    let leeway: Double

    func check(_ claims: TokenClaims, at time: Double, _ failures: inout FailureList) {
        if let notBefore = claims.notBefore, time < notBefore - leeway {
            failures.add(.notYetValid, "the token is valid from \(formatNumericDate(notBefore)); the check time is \(formatNumericDate(time))")
            if failures.isDone { return }
        }
        if !(time < claims.expiresAt + leeway) {
            failures.add(.expired, "the token expired at \(formatNumericDate(claims.expiresAt)); the check time is \(formatNumericDate(time))")
        }
    }
}

/// A NumericDate as JSON would write it: an integer when it is one, else a decimal.
func formatNumericDate(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
    return String(value)
}
