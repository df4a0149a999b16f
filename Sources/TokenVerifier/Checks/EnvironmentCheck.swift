/// Check 7 (`wrong_environment`): the token's `env`, the key's `env` (for a chain, its anchor's,
/// spec §3b) and the run's `--env` agree wherever they are given.
struct EnvironmentCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        let required = input.options.environment
        let tokenEnvironment = token.environment
        let keyEnvironment = findings.keyFacts(input)?.environment
        if let tokenEnvironment, let keyEnvironment, tokenEnvironment != keyEnvironment {
            failures.add(
                .wrongEnvironment,
                "the token is for env \"\(tokenEnvironment.rawValue)\" but \(findings.keyDescription(input)) is for \"\(keyEnvironment.rawValue)\""
            )
        } else if let required, let tokenEnvironment, tokenEnvironment != required {
            failures.add(
                .wrongEnvironment,
                "the token is for env \"\(tokenEnvironment.rawValue)\", this run accepts \"\(required.rawValue)\"")
        } else if let required, let keyEnvironment, keyEnvironment != required {
            failures.add(
                .wrongEnvironment,
                "\(findings.keyDescription(input)) is for env \"\(keyEnvironment.rawValue)\", this run accepts \"\(required.rawValue)\""
            )
        }
    }
}
