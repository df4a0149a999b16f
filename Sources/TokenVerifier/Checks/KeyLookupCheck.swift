/// Check 5 (`unknown_key`, `untrusted_chain`): with trust anchors configured, a token that
/// carries a chain (`x5c`, `x5chain`) is checked with its leaf's key once the chain validates to
/// an anchor at the check time (spec §3b; its `kid` is not used); otherwise the `kid` names a key
/// of the snapshot's key set (compared byte for byte). Records the key for the checks after it. A
/// token without a string `kid` or a chain already failed check 4 and has no key.
struct KeyLookupCheck: TokenCheck {
    func check(
        _ header: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        if header.chain != nil && input.state.chains != nil {
            return Self.checkChain(header, input, &findings, &failures)
        }
        guard let keyID = header.keyID else { return }
        guard let index = header.withBytes(keyID, input.keys.index(of:)) else {
            failures.add(.unknownKey, "no key with kid \"\(header.string(keyID))\" is configured")
            return
        }
        findings.keyIndex = index
    }

    /// The key of the token's chain (out of line: tokens with a `kid` keep this check small).
    @inline(never)
    private static func checkChain(
        _ header: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard let chain = header.chain, let trust = input.state.chains else { return }
        let found = header.withBytes(chain) {
            trust.key(for: $0, format: header.format, at: input.time, signatureCache: input.state.signatureCache)
        }
        switch found {
        case .success(let key):
            input.crypto.hold(key)
            findings.chain = Unmanaged.passUnretained(key)
        case .failure(let refusal): failures.add(.untrustedChain, refusal.detail)
        }
    }
}
