/// Check 9 (`not_yet_valid`, `expired`): at check time t the token is valid iff
/// `nbf − leeway ≤ t < exp + leeway`.
struct ValidityWindowCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        let time = input.time
        let leeway = input.options.leeway
        if let notBefore = token.notBefore, time < notBefore - leeway {
            failures.add(
                .notYetValid, "the token is valid from \(describe(notBefore)); the check time is \(describe(time))")
            if failures.isDone { return }
        }
        if !(time < token.expiresAt + leeway) {
            failures.add(
                .expired, "the token expired at \(describe(token.expiresAt)); the check time is \(describe(time))")
        }
    }
}
