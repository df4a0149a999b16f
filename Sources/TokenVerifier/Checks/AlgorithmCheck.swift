/// Check 3 (`unsupported_alg`): the header's `alg` is `Ed25519`, `EdDSA` or `ES256`. Records the
/// algorithm for the key checks; the algorithm is only ever used if the key agrees (check 6).
struct AlgorithmCheck: TokenCheck {
    func check(
        _ header: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        findings.algorithm = header.supportedAlgorithm
        guard findings.algorithm == nil else { return }
        if let name = header.algorithm {
            failures.add(
                .unsupportedAlgorithm,
                "alg \"\(header.string(name))\" is not accepted (accepted: Ed25519, EdDSA, ES256)")
        } else if header.hasAlgorithmMember {
            failures.add(.unsupportedAlgorithm, "alg must be a string naming Ed25519, EdDSA or ES256")
        } else {
            failures.add(.unsupportedAlgorithm, "the header has no alg")
        }
    }
}
