/// Check 8 (`wrong_issuer`): `iss` equals the key's `iss` (for a chain: names its leaf, one of
/// its subjectAltName URIs or dNSNames, spec §3b) and the run's `--issuer`, where they are given
/// (``SignerRule``, the rule a status list's signer is held to as well).
struct IssuerCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        if findings.chain != nil && Self.chainRefuses(token, findings, &failures) {
            return
        } else if let index = findings.keyIndex, let keyIssuer = input.keys.facts[index].issuer,
            !SignerRule.keyIssuerBinds(keyIssuer, token.issuer, of: token)
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

    /// Whether `iss` is not a name of the chain's leaf (then the failure is added). Out of line:
    /// tokens with a `kid` keep this check small.
    @inline(never)
    private static func chainRefuses(
        _ token: borrowing ParsedToken, _ findings: CheckFindings, _ failures: inout FailureList
    ) -> Bool {
        guard let chain = findings.chainKey, !token.withBytes(token.issuer, { SignerRule.chainBinds(chain, $0) }) else {
            return false
        }
        let names = (chain.chain.uris + chain.chain.dnsNames).map { "\"\($0)\"" }
        failures.add(
            .wrongIssuer,
            "iss \"\(token.string(token.issuer))\" is not a name of the chain's \(chain.leafDescription) (its names: \(names.isEmpty ? "none" : names.joined(separator: ", ")))"
        )
        return true
    }
}
