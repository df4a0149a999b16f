/// The checks of SPEC §5, composed in order. Checks 1 and 2 are the parsers that make a check's
/// input (`malformed_request`: the line protocol's request parser; `malformed_token`:
/// ``ParsedToken``); every later check is one value here. To add a check, write its file in this
/// folder and add it at its place in the list.
///
/// | order | reason | check |
/// | --- | --- | --- |
/// | 3 | `unsupported_alg` | ``AlgorithmPolicy`` |
/// | 4 | `bad_header` | ``HeaderPolicy`` |
/// | 5 | `unknown_key` | ``KeyLookupPolicy`` |
/// | 6 | `key_alg_mismatch` | ``KeyAlgorithmPolicy`` |
/// | 7 | `wrong_environment` | ``EnvironmentPolicy`` |
/// | 8 | `wrong_issuer` | ``IssuerPolicy`` |
/// | 9 | `not_yet_valid`, `expired` | ``ValidityWindowPolicy`` |
/// | 10 | `revoked_*` | ``RevocationPolicy`` |
/// | 11 | `wrong_device`, `wrong_object`, `channel_not_permitted`, `command_not_permitted` | ``RequestContextPolicy`` |
/// | 11b | `step_required` | ``SecurityStepPolicy`` |
/// | 12 | `bad_signature` | ``SignaturePolicy`` |
enum StandardChecks {
    /// Checks 3 to 11b in order: every token runs them first. (Built once: the checks are
    /// stateless values.)
    static let beforeSignature: some TokenPolicy = PolicyList(
        AlgorithmPolicy(),
        HeaderPolicy(),
        KeyLookupPolicy(),
        KeyAlgorithmPolicy(),
        EnvironmentPolicy(),
        IssuerPolicy(),
        ValidityWindowPolicy(),
        RevocationPolicy(),
        RequestContextPolicy(),
        SecurityStepPolicy()
    )

    /// Check 12, last: run right after the others for one token, or for a whole batch after
    /// its other checks, so that the signatures are verified back to back.
    static let signature: some TokenPolicy = SignaturePolicy()
}
