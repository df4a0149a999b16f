/// Check 8 (`wrong_issuer`): `iss` equals the key's `iss` and the run's `--issuer`, where they
/// are given.
struct IssuerCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        if let index = findings.keyIndex, let keyIssuer = input.keys.facts[index].issuer,
            !token.equals(token.issuer, keyIssuer)
        {
            let key = input.state.keys.keys[index]
            failures.add(
                .wrongIssuer,
                "iss \"\(token.string(token.issuer))\" differs from key \"\(key.keyID)\"'s issuer \"\(key.issuer!)\""
            )
        } else if let required = input.options.issuer, !token.equals(token.issuer, required) {
            failures.add(
                .wrongIssuer, "iss \"\(token.string(token.issuer))\" differs from the required issuer \"\(required)\"")
        }
    }
}
