/// Check 5 (`unknown_key`): the `kid` names a key of the snapshot's key set (compared byte for
/// byte). Records the key for the checks after it. A token without a string `kid` already
/// failed check 4 and has no key.
struct KeyLookupCheck: TokenCheck {
    func check(
        _ header: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        guard let keyID = header.keyID else { return }
        guard let index = header.withBytes(keyID, input.keys.index(of:)) else {
            failures.add(.unknownKey, "no key with kid \"\(header.string(keyID))\" is configured")
            return
        }
        findings.keyIndex = index
    }
}
