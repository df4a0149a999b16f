/// Check 10: the revocation snapshot, by key, token, device, object and grant, in that order.
struct RevocationPolicy {
    let revocations: RevocationList

    func check(_ claims: TokenClaims, keyID: String?, at time: Double, _ failures: inout FailureList) {
        guard revocations.count > 0 else { return }
        let issuedAt = claims.issuedAt
        if let keyID, revocations.revokes(.key, keyID, issuedAt: issuedAt, at: time) {
            failures.add(.revokedKey, "key \"\(keyID)\" is revoked")
            if failures.isDone { return }
        }
        if revocations.revokes(.token, claims.tokenID, issuedAt: issuedAt, at: time) {
            failures.add(.revokedToken, "token \"\(claims.tokenID)\" is revoked")
            if failures.isDone { return }
        }
        if revocations.revokes(.device, claims.subject, issuedAt: issuedAt, at: time) {
            failures.add(.revokedDevice, "device \"\(claims.subject)\" is revoked")
            if failures.isDone { return }
        }
        if revocations.contains(kind: .object) {
            for object in claims.audience where revocations.revokes(.object, object, issuedAt: issuedAt, at: time) {
                failures.add(.revokedObject, "object \"\(object)\" is revoked")
                if failures.isDone { return }
                break
            }
        }
        if revocations.contains(kind: .grant) {
            for object in claims.audience
            where revocations.revokesGrant(device: claims.subject, object: object, issuedAt: issuedAt, at: time) {
                failures.add(.revokedGrant, "device \"\(claims.subject)\"'s grant on object \"\(object)\" is revoked")
                return
            }
        }
    }
}
