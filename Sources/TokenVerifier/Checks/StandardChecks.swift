/// The checks of spec §5, composed in order. Checks 1 and 2 are the parsers that make a check's
/// input (`malformed_request`: the line protocol's request parser; `malformed_token`:
/// ``ParsedToken``); every later check is one value here. To add a check, write its file in this
/// folder and add it at its place in the table and in ``BeforeSignature``.
///
/// | order | reason | check |
/// | --- | --- | --- |
/// | 3 | `unsupported_alg` | ``AlgorithmCheck`` |
/// | 4 | `bad_header` | ``HeaderCheck`` |
/// | 5 | `unknown_key` | ``KeyLookupCheck`` |
/// | 6 | `key_alg_mismatch` | ``KeyAlgorithmCheck`` |
/// | 7 | `wrong_environment` | ``EnvironmentCheck`` |
/// | 8 | `wrong_issuer` | ``IssuerCheck`` |
/// | 9 | `not_yet_valid`, `expired` | ``ValidityWindowCheck`` |
/// | 10 | `revoked_*` | ``RevocationCheck`` |
/// | 10 | `status_invalid`, `status_suspended`, `status_unavailable` | ``StatusListCheck`` |
/// | 11 | `wrong_device`, `wrong_object`, `channel_not_permitted`, `command_not_permitted` | ``RequestContextCheck`` |
/// | 11b | `step_required` | ``SecurityStepsCheck`` |
/// | 12 | `bad_signature` | ``SignatureCheck`` |
enum StandardChecks {
    /// Checks 3 to 11b in order: every token runs them first. Each is called on its own concrete
    /// type, so that no check value is copied per token.
    static let beforeSignature = BeforeSignature()

    /// Check 12, last: run right after the others for one token, or for a whole batch after
    /// its other checks, so that the signatures are verified back to back.
    static let signature = SignatureCheck()

    /// Checks 3 to 11b, as one check.
    struct BeforeSignature: TokenCheck {
        @inline(__always)
        func check(
            _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
            _ failures: inout FailureList
        ) {
            runCheck(AlgorithmCheck(), token, input, &findings, &failures)
            runCheck(HeaderCheck(), token, input, &findings, &failures)
            runCheck(KeyLookupCheck(), token, input, &findings, &failures)
            runCheck(KeyAlgorithmCheck(), token, input, &findings, &failures)
            runCheck(EnvironmentCheck(), token, input, &findings, &failures)
            runCheck(IssuerCheck(), token, input, &findings, &failures)
            runCheck(ValidityWindowCheck(), token, input, &findings, &failures)
            runCheck(RevocationCheck(), token, input, &findings, &failures)
            runCheck(StatusListCheck(), token, input, &findings, &failures)
            runCheck(RequestContextCheck(), token, input, &findings, &failures)
            runCheck(SecurityStepsCheck(), token, input, &findings, &failures)
        }
    }
}
