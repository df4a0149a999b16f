/// A Status List Token's signer under ``SignerRule`` (spec §4c "A signer is a signer"): the
/// checks a token's signer passes (key in force and fitting `alg`, `env`, `iss`, not revoked),
/// through the same functions, as of the snapshot's keys, anchors and revocations.
enum StatusListSigner {
    /// Why the key-set key `key` cannot sign a list with `algorithm` whose `iss` claim is `issuer`
    /// under `options` (checks 6, 7 and 8 of a token), or nil when it can. A list without `iss`
    /// is the key's issuer's.
    static func keyRefusal(
        _ key: VerificationKey, algorithm: SignatureAlgorithm, issuer: String?, options: VerificationOptions
    ) -> String? {
        guard key.accepts(algorithm) else {
            return
                "alg \(algorithm.rawValue) does not fit key \"\(key.keyID)\" (\(key.type.rawValue)\(key.algorithm.map { ", alg \($0.rawValue)" } ?? ""))"
        }
        if case .signerVersusRun(let signer, let run) = SignerRule.environmentConflict(
            signed: nil, signer: key.environment, run: options.environment)
        {
            return "key \"\(key.keyID)\" is for env \"\(signer.rawValue)\", not \"\(run.rawValue)\""
        }
        if let issuer, let keyIssuer = key.issuer, !Self.binds(keyIssuer, issuer) {
            return "iss \"\(issuer)\" differs from key \"\(key.keyID)\"'s iss \"\(keyIssuer)\""
        }
        return nil
    }

    private static func binds(_ keyIssuer: String, _ claimed: String) -> Bool {
        withUTF8(of: keyIssuer) { key in withUTF8(of: claimed) { SignerRule.keyIssuerBinds(key, $0) } }
    }
}

/// What the signer rule says of a list's signer under one snapshot.
struct StatusListSignerVerdict: Sendable {
    /// The list's issuer: its key's `iss`, else the list's own (for a chain, the list's).
    let issuer: String?
    /// The signer's environment: its key's `env`, or its anchor's tag.
    let environment: Environment?
    /// Who verified it, for messages: `its key "K"`, `its chain`.
    let by: String
    /// From when a revocation of the signer puts the list out of force (for lines at that time
    /// or later), and its detail; nil when none applies.
    let revoked: (since: Double, detail: String)?
}

extension StatusListToken {
    /// The list's signer under `keys`, `anchors` and `revocations` now, or why it is out of force
    /// whatever the time. A list that carries a chain is checked by it wherever anchors are in
    /// force (no work under the anchors it was loaded with); otherwise by its `kid`.
    func signer(
        keys: KeySet?, anchors: TrustAnchors?, revocations: RevocationList, options: VerificationOptions
    ) -> Result<StatusListSignerVerdict, StatusListRefusal> {
        if signed.chain != nil, let anchors {
            return chainSigner(anchors: anchors, revocations: revocations, options: options)
        }
        guard let kid = signed.keyID else {
            return .failure(.init("it is verified by its chain, and no trust anchors are in force"))
        }
        let gone = "its key \"\(kid)\" is no longer in the key set, or no longer verifies it"
        guard let keys, let key = signingKey(in: keys, keyID: kid) else { return .failure(.init(gone)) }
        if StatusListSigner.keyRefusal(key, algorithm: signed.algorithm, issuer: issuer, options: options) != nil {
            return .failure(.init(gone, keyGroup: (key.issuer ?? issuer, key.environment)))
        }
        let revoked = withUTF8(of: kid) { keyID in
            withUTF8(of: key.keyThumbprint) {
                SignerRule.earliestRevocation(
                    of: .key(keyID: keyID, keyThumbprint: $0), in: revocations, issuedAt: issuedAt)
            }
        }
        return .success(
            StatusListSignerVerdict(
                issuer: key.issuer ?? issuer, environment: key.environment, by: "its key \"\(kid)\"", revoked: revoked))
    }

    /// ``signer(keys:anchors:revocations:options:)`` for a list checked by its chain.
    private func chainSigner(
        anchors: TrustAnchors, revocations: RevocationList, options: VerificationOptions
    ) -> Result<StatusListSignerVerdict, StatusListRefusal> {
        let key: ChainKey
        if anchors === signed.anchors, let loaded = signed.chainKey {
            key = loaded
        } else {
            let parts = ChainedStatusList.Parts(
                format: format, algorithm: signed.algorithm, chain: signed.chain!, issuedAt: issuedAt, issuer: issuer,
                message: signed.message, signature: signed.signature)
            switch ChainedStatusList.verify(parts, anchors: anchors, options: options) {
            case .success(let verified): key = verified
            case .failure(let refusal):
                return .failure(
                    .init("its chain no longer verifies it under the trust anchors in force: \(refusal.why)"))
            }
        }
        let revoked = SignerRule.earliestRevocation(of: .chain(key), in: revocations, issuedAt: issuedAt)
        return .success(
            StatusListSignerVerdict(issuer: issuer, environment: key.key.environment, by: "its chain", revoked: revoked)
        )
    }

    /// The key of `keys` named `keyID` that fits the list's `alg` and verifies its signature now:
    /// with the same material (no work), or its new material verifies the signature again; nil
    /// when none does. Whether it may sign the list (its `iss` and `env`) is the caller's check.
    /// The entries are not inflated again.
    private func signingKey(in keys: KeySet, keyID: String) -> VerificationKey? {
        guard let key = keys[keyID], key.accepts(signed.algorithm) else { return nil }
        if key.type == signed.keyType && key.publicKeyBytes == signed.keyMaterial { return key }
        return signed.verify(with: key) ? key : nil
    }
}
