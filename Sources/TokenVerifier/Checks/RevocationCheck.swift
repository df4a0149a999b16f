/// Check 10 (`revoked_key`, `revoked_token`, `revoked_device`, `revoked_object`,
/// `revoked_grant`): the revocation snapshot, by key (its `kid`, or for a chain each certificate's
/// `x5t#S256`, spec §3b), token, device, object and grant, in that order.
struct RevocationCheck: TokenCheck {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList
    ) {
        input.withState { check(token, $0.revocations, chain: findings.chain, at: input.time, &failures) }
    }

    /// The check against `revocations` (lent by the snapshot for the call).
    private func check(
        _ token: borrowing ParsedToken, _ revocations: RevocationList, chain: Unmanaged<ChainKey>?, at time: Double,
        _ failures: inout FailureList
    ) {
        guard revocations.count > 0 else { return }
        let issuedAt = token.issuedAt
        func revokes(_ kind: RevocationList.Kind, _ text: ParsedToken.Text) -> Bool {
            token.withBytes(text) { revocations.revokes(kind, $0, issuedAt: issuedAt, at: time) }
        }
        if let chain {
            let revoked = chain._withUnsafeGuaranteedRef {
                Self.revokedCertificate($0, revocations, issuedAt: issuedAt, at: time)
            }
            if let revoked {
                failures.add(.revokedKey, revoked)
                if failures.isDone { return }
            }
        } else if let keyID = token.keyID, revokes(.key, keyID) {
            failures.add(.revokedKey, "key \"\(token.string(keyID))\" is revoked")
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

    /// The detail for the first certificate of `chain`'s path that `revocations` revoke, if any.
    private static func revokedCertificate(
        _ chain: ChainKey, _ revocations: RevocationList, issuedAt: Double?, at time: Double
    ) -> String? {
        guard revocations.contains(kind: .certificate) else { return nil }
        for (position, thumbprint) in chain.thumbprints.enumerated() {
            let revoked = thumbprint.withUnsafeBufferPointer {
                revocations.revokes(.certificate, $0, issuedAt: issuedAt, at: time)
            }
            guard revoked else { continue }
            let role =
                position == 0
                ? "leaf" : position == chain.thumbprints.count - 1 ? "anchor" : "intermediate \(position)"
            return
                "the chain's certificate x5t#S256 \(String(decoding: thumbprint, as: UTF8.self)) (\(role)) is revoked"
        }
        return nil
    }
}
