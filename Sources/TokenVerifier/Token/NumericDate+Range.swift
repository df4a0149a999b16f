/// The times the engine represents (spec §2, §2b, §6): 0001-01-01T00:00:00Z up to the end of
/// 9999-12-31T23:59:59Z, the years an RFC 3339 date-time writes in four digits and X.509 times
/// reach. Every time read from outside (a request's `at`, `--at` and the other time options, a
/// token's `exp`, `nbf` and `iat`, a status list's `iat`, `exp` and `ttl`, a revocation's `since`
/// and `issued_before`) is refused outside it, so that a time converted to whole seconds
/// (`Int64`, OpenSSL's `time_t`) never traps and every answer names its times in RFC 3339.
extension NumericDate {
    /// 0001-01-01T00:00:00Z, the earliest time represented.
    public static let earliest: Double = -62_135_596_800
    /// 9999-12-31T23:59:59Z, the last whole second represented (its fractions are too).
    public static let latest: Double = 253_402_300_799

    /// Whether `value` is a time the engine represents: `earliest` ≤ value < `latest` + 1 (NaN
    /// and the infinities are not).
    @inlinable @inline(__always)
    public static func isRepresentable(_ value: Double) -> Bool {
        value >= earliest && value < latest + 1
    }

    /// The range in words, for a message: `0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z
    /// (NumericDate −62135596800 … 253402300799)`.
    public static let rangeText =
        "0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z (NumericDate -62135596800 … 253402300799)"

    /// Why `value`, read for `what` (`claim "exp"`, `"at"`, `--at`), is not a time the engine
    /// represents; nil when it is one.
    public static func rangeProblem(_ value: Double, what: String) -> String? {
        guard !isRepresentable(value) else { return nil }
        return "\(what) must be a time within \(rangeText), not \(formatNumericDate(value))"
    }

    /// `text` (a NumericDate or an RFC 3339 date-time, as ``parse(_:)`` reads it) as a time the
    /// engine represents, or why it is not one: for time options (`--at`), refused at start-up.
    public static func parseOption(_ text: String, option: String) -> Result<Double, OptionProblem> {
        guard let value = parse(text) else {
            return .failure(
                OptionProblem(
                    description: "\(option) must be a NumericDate (seconds) or an RFC 3339 date-time, not \"\(text)\""))
        }
        if let problem = rangeProblem(value, what: option) { return .failure(OptionProblem(description: problem)) }
        return .success(value)
    }

    /// Why a time option's value is refused.
    public struct OptionProblem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }
}
