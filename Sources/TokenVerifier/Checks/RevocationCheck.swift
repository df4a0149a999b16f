/// Check 10 (`revoked_key`, `revoked_token`, `revoked_device`, `revoked_object`,
/// `revoked_grant`): the revocation snapshot, by signer (``SignerRule``: its `kid` and
/// `spki#S256`, or for a chain each certificate's `x5t#S256` and `spki#S256`, spec §3b, §4),
/// token, device, object and grant, in that order.
struct RevocationCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        input.withState {
            check(token, $0.revocations, findings: findings, keys: input.keys, at: input.time, &failures)
        }
    }

    /// The check against `revocations` (lent by the snapshot for the call).
    private func check(
        _ token: borrowing ParsedToken, _ revocations: RevocationList, findings: CheckFindings, keys: KeyFactsTable,
        at time: Double, _ failures: inout FailureList
    ) {
        guard revocations.count > 0 else { return }
        let issuedAt = token.issuedAt
        func revokes(_ kind: RevocationList.Kind, _ text: ParsedToken.Text) -> Bool {
            token.withBytes(text) { revocations.revokes(kind, $0, issuedAt: issuedAt, at: time) }
        }
        if let detail = Self.signerRevocation(token, findings, keys, revocations, at: time) {
            failures.add(.revokedKey, detail)
            if failures.isDone { return }
        }
        if revokes(.token, token.tokenID) {
            failures.add(.revokedToken, "token \"\(token.string(token.tokenID))\" is revoked")
            if failures.isDone { return }
        }
        if revokes(.device, token.subject) {
            failures.add(.revokedDevice, "device \"\(token.string(token.subject))\" is revoked")
            if failures.isDone { return }
        }
        if revocations.contains(kind: .object) {
            for index in 0..<Int(token.audience.count) {
                let object = token.item(token.audience, index)
                guard revokes(.object, object) else { continue }
                failures.add(.revokedObject, "object \"\(token.string(object))\" is revoked")
                if failures.isDone { return }
                break
            }
        }
        if revocations.contains(kind: .grant) {
            for index in 0..<Int(token.audience.count) {
                let object = token.item(token.audience, index)
                let revoked = token.withBytes(token.subject) { device in
                    token.withBytes(object) {
                        revocations.revokesGrant(device: device, object: $0, issuedAt: issuedAt, at: time)
                    }
                }
                guard revoked else { continue }
                failures.add(
                    .revokedGrant,
                    "device \"\(token.string(token.subject))\"'s grant on object \"\(token.string(object))\" is revoked"
                )
                return
            }
        }
    }

    /// The detail of the first revocation of the token's signer in force at `time` (the key
    /// check 5 found: in the key set, or the chain; a token whose key was not found, in audit
    /// mode, by its `kid` alone).
    @inline(__always)
    private static func signerRevocation(
        _ token: borrowing ParsedToken, _ findings: CheckFindings, _ keys: KeyFactsTable,
        _ revocations: RevocationList, at time: Double
    ) -> String? {
        let issuedAt = token.issuedAt
        if let chain = findings.chain {
            return chain._withUnsafeGuaranteedRef {
                SignerRule.revocation(of: .chain($0), in: revocations, issuedAt: issuedAt, at: time)
            }
        }
        guard let keyID = token.keyID else { return nil }
        let keyThumbprint = findings.keyIndex.map { keys.facts[$0].keyThumbprint }
        return token.withBytes(keyID) {
            SignerRule.revocation(
                of: .key(keyID: $0, keyThumbprint: keyThumbprint), in: revocations, issuedAt: issuedAt, at: time)
        }
    }
}
