/// Check 7 (`wrong_environment`): the token's `env`, the key's `env` (for a chain, its anchor's,
/// spec §3b) and the run's `--env` agree wherever they are given (``SignerRule``, the rule a
/// status list's signer is held to as well).
struct EnvironmentCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        let conflict = SignerRule.environmentConflict(
            signed: token.environment, signer: findings.keyFacts(input)?.environment, run: input.options.environment)
        guard let conflict else { return }
        switch conflict {
        case .signedVersusSigner(let signed, let signer):
            failures.add(
                .wrongEnvironment,
                "the token is for env \"\(signed.rawValue)\" but \(findings.keyDescription(input)) is for \"\(signer.rawValue)\""
            )
        case .signedVersusRun(let signed, let run):
            failures.add(
                .wrongEnvironment, "the token is for env \"\(signed.rawValue)\", this run accepts \"\(run.rawValue)\"")
        case .signerVersusRun(let signer, let run):
            failures.add(
                .wrongEnvironment,
                "\(findings.keyDescription(input)) is for env \"\(signer.rawValue)\", this run accepts \"\(run.rawValue)\""
            )
        }
    }
}
