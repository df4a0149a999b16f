import ArgumentParser
import TokenVerifier

/// The rules every command's time and duration options share (spec §6, §7): a time (`--at`,
/// `--iat`, `--not-after`, …) is a NumericDate or an RFC 3339 date-time within the times the engine
/// represents (``NumericDate/rangeText``); a duration (`--leeway`, `--interval`, …) a finite
/// number of seconds up to ``maximumDuration``. Anything else stops start-up (exit status 2)
/// naming the option and the bound, before any conversion to whole seconds could trap.
enum TimeOptionRules {
    /// The longest duration an option takes: 10^9 seconds (about 31.7 years), so that a
    /// duration in nanoseconds (10^18) stays within an Int64 and a timer's deadline too.
    static let maximumDuration = 1e9

    /// Refuses the time option `name` when `text` is given and is not a time within the range
    /// (with `whole`, not a whole second either).
    static func validate(time text: String?, _ name: String, whole: Bool = false) throws {
        guard let text else { return }
        switch NumericDate.parseOption(text, option: name) {
        case .failure(let problem): throw ValidationError(problem.description)
        case .success(let value):
            if whole && value != value.rounded(.down) {
                throw ValidationError(
                    "\(name) must be a whole NumericDate (seconds) or an RFC 3339 date-time, not \"\(text)\"")
            }
        }
    }

    /// The value of a time option that ``validate(time:_:whole:)`` accepted.
    static func time(_ text: String) -> Double {
        (try? NumericDate.parseOption(text, option: "").get()) ?? 0
    }

    /// Refuses the duration option `name` unless it is finite, at most ``maximumDuration`` and
    /// not negative (with `positive`, above zero).
    static func validate(duration value: Double, _ name: String, positive: Bool) throws {
        let low = positive ? value > 0 : value >= 0
        guard low, value <= maximumDuration else {
            throw ValidationError(
                "\(name) must be a \(positive ? "positive" : "non-negative") number of seconds, at most 1000000000 (about 31.7 years), not \(value)"
            )
        }
    }
}
