/// Check 10, after ``RevocationCheck`` (`status_invalid`, `status_suspended`,
/// `status_unavailable`): the token's entry in the status list it names (spec §4c), in the
/// generation in force at the check time.
struct StatusListCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard let status = token.status, !input.options.skipStatusLists else { return }
        let index = input.state.statusIndex
        func uri() -> String { token.string(status.uri) }
        guard index.isConfigured else {
            failures.add(
                .statusUnavailable,
                "token index \(status.index) of status list \"\(uri())\" cannot be checked: no status lists are loaded (--status-lists; --skip-status-lists leaves status unchecked)"
            )
            return
        }
        guard let generations = token.withBytes(status.uri, { index.generations(of: $0) }) else {
            let why =
                index.outOfForce[uri()].map { "the loaded one is out of force: \($0)" } ?? "none is loaded for that URI"
            failures.add(
                .statusUnavailable, "token index \(status.index) of status list \"\(uri())\" cannot be checked: \(why)")
            return
        }
        let time = input.time
        guard let list = generations.inForce(at: time, leeway: input.options.leeway) else {
            failures.add(
                .statusUnavailable,
                "no generation of status list \"\(uri())\" was issued by \(NumericDate.rfc3339(time)) (the first is issued \(NumericDate.rfc3339(generations.lists[0].issuedAt)))"
            )
            return
        }
        if let expiresAt = list.expiresAt, expiresAt <= time {
            failures.add(
                .statusUnavailable,
                "status list \"\(uri())\" (issued \(NumericDate.rfc3339(list.issuedAt))) expired at \(NumericDate.rfc3339(expiresAt)); the check time is \(NumericDate.rfc3339(time))"
            )
            return
        }
        guard let value = list.status(at: status.index) else {
            failures.add(
                .statusUnavailable,
                "token index \(status.index) is beyond status list \"\(uri())\" (issued \(NumericDate.rfc3339(list.issuedAt))), which has \(list.count) entries"
            )
            return
        }
        guard value != 0 else { return }
        let reason: Reason = value == 2 ? .statusSuspended : .statusInvalid
        failures.add(
            reason,
            "token index \(status.index) of status list \"\(uri())\" (issued \(NumericDate.rfc3339(list.issuedAt))) is \(StatusValue.describe(value))"
        )
    }
}

/// The values of a status list entry (draft §7.1).
enum StatusValue {
    /// `0x01 INVALID`, `0x02 SUSPENDED`, `0x03 (application-specific)`, `0x05 (reserved)`, …
    static func describe(_ value: UInt8) -> String {
        let hex = "0x" + (value < 16 ? "0" : "") + String(value, radix: 16, uppercase: true)
        switch value {
        case 0: return hex + " VALID"
        case 1: return hex + " INVALID"
        case 2: return hex + " SUSPENDED"
        case 3, 0x0C...0x0F: return hex + " (application-specific)"
        default: return hex + " (reserved)"
        }
    }
}
