/// A NumericDate for people: `2026-01-01T01:00:00Z (1767229200)`.
func describe(_ time: Double) -> String {
    "\(NumericDate.rfc3339(time)) (\(formatNumericDate(time)))"
}

/// A NumericDate as JSON would write it: an integer when it is one, else a decimal.
@usableFromInline func formatNumericDate(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
    return String(value)
}
