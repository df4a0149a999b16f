/// Check 6 (`key_alg_mismatch`): the token's `alg` fits the key's type and the key's declared
/// `alg`. The algorithm always comes from the key; the header only has to agree with it.
struct KeyAlgorithmCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard let facts = findings.keyFacts(input), let algorithm = findings.algorithm else { return }
        guard VerificationKey.accepts(algorithm, type: facts.type, declared: facts.algorithm) else {
            let declared = facts.algorithm.map { " with alg \($0.rawValue)" } ?? ""
            failures.add(
                .keyAlgorithmMismatch,
                "alg \(algorithm.rawValue) does not fit \(findings.keyDescription(input)) (\(facts.type.rawValue)\(declared))"
            )
            return
        }
        findings.keyFits = true
    }
}
