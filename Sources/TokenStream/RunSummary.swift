import TokenFormats
import TokenVerifier

/// Counts of a run: answers, valid ones, and failures by reason.
public struct RunSummary: Sendable {
    public var answered = 0
    public var valid = 0
    public var byReason: [Reason: Int] = [:]
    /// Tokens whose status list entry was left unchecked (`--skip-status-lists`).
    public var statusUnchecked = 0
    /// Signature-cache lookups that answered check 12, and that did not.
    public var signatureCacheHits = 0
    public var signatureCacheMisses = 0

    public var invalid: Int { answered - valid }

    mutating func add(_ other: RunSummary) {
        answered += other.answered
        valid += other.valid
        statusUnchecked += other.statusUnchecked
        signatureCacheHits += other.signatureCacheHits
        signatureCacheMisses += other.signatureCacheMisses
        for (reason, count) in other.byReason { byReason[reason, default: 0] += count }
    }

    /// One line for stderr: counts and the rate over `seconds`.
    public func line(seconds: Double) -> String {
        let rate = seconds > 0 ? Double(answered) / seconds : 0
        var text =
            "tokenverify: \(answered) answered (\(valid) valid, \(invalid) invalid) in \(formatted(seconds, 2)) s, \(Int(saturating: rate.rounded())) tokens/s"
        if !byReason.isEmpty {
            let reasons = byReason.sorted { $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
            text += "; " + reasons.joined(separator: ", ")
        }
        if statusUnchecked > 0 {
            text +=
                "; status not checked (--skip-status-lists) for \(statusUnchecked) token\(statusUnchecked == 1 ? "" : "s")"
        }
        return text
    }
}

func formatted(_ value: Double, _ decimals: Int) -> String {
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let fraction = text[text.index(after: dot)...]
        if fraction.count < decimals { text += String(repeating: "0", count: decimals - fraction.count) }
    }
    return text
}
