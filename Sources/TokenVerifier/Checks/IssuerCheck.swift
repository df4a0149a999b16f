/// Check 8 (`wrong_issuer`): `iss` equals the key's `iss` and the run's `--issuer`, where they
/// are given.
struct IssuerCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        if let index = findings.keyIndex, let keyIssuer = input.state.keys.keys[index].issuer,
            !token.equals(token.issuer, keyIssuer)
        {
            failures.add(
                .wrongIssuer,
                "iss \"\(token.string(token.issuer))\" differs from key \"\(input.state.keys.keys[index].keyID)\"'s issuer \"\(keyIssuer)\""
            )
        } else if let required = input.options.issuer, !token.equals(token.issuer, required) {
            failures.add(
                .wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from the required issuer \"\(required)\"")
        }
    }
}
