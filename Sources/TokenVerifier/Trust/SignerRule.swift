/// The signer rule (spec §3, §3b, §4, §4c "A signer is a signer"): whether whoever signed a token
/// or a Status List Token is in force. Written once: the token checks 7, 8 and 10 (key part) call
/// these functions for a token's signer, and ``StatusListSigner`` calls the same ones, in the same
/// order, for a list's signer, so that a list can never be published by a signer that could not
/// sign a token.
///
/// - Environment: the signer's `env` (a key's, or its anchor's tag), the signed object's `env`
///   and the run's `--env` never differ where they are given.
/// - Issuer: a key that names an `iss` signs only for that issuer; a chain's leaf only for an
///   `iss` that names it (``ChainKey/names(_:)``).
/// - Revocation: no selector that names the signer (`kid`, `spki#S256`, a chain certificate's
///   `x5t#S256` in any of its encodings) applies to what it signed (`issued_before`) at the
///   check time (`since`).
enum SignerRule {
    /// How the environments disagree (check 7's three cases, in its order).
    enum EnvironmentConflict {
        case signedVersusSigner(signed: Environment, signer: Environment)
        case signedVersusRun(signed: Environment, run: Environment)
        case signerVersusRun(signer: Environment, run: Environment)
    }

    /// The first disagreement of `signed` (the token's or list's own `env`, if any), `signer`
    /// (its key's or anchor's) and `run` (`--env`), or nil.
    @inline(__always)
    static func environmentConflict(
        signed: Environment?, signer: Environment?, run: Environment?
    ) -> EnvironmentConflict? {
        if let signed, let signer, signed != signer { return .signedVersusSigner(signed: signed, signer: signer) }
        if let run, let signed, signed != run { return .signedVersusRun(signed: signed, run: run) }
        if let run, let signer, signer != run { return .signerVersusRun(signer: signer, run: run) }
        return nil
    }

    /// Whether a key whose `iss` is `keyIssuer` may sign for `claimed` (the signed object's
    /// `iss`): a key that names no issuer signs for any; one that names one, only for it.
    @inline(__always)
    static func keyIssuerBinds(_ keyIssuer: UnsafeBufferPointer<UInt8>?, _ claimed: UnsafeBufferPointer<UInt8>?) -> Bool
    {
        guard let keyIssuer else { return true }
        guard let claimed else { return false }
        return bytesEqual(keyIssuer, claimed)
    }

    /// ``keyIssuerBinds(_:_:)`` for a token's `iss` (`claimed`, a text of `token`), compared in
    /// place: the check every token runs.
    @inline(__always)
    static func keyIssuerBinds(
        _ keyIssuer: UnsafeBufferPointer<UInt8>, _ claimed: ParsedToken.Text, of token: borrowing ParsedToken
    ) -> Bool {
        token.equals(claimed, keyIssuer)
    }

    /// Whether a chain's leaf may sign for `claimed`: it names the leaf (spec §3b).
    @inline(__always)
    static func chainBinds(_ chain: ChainKey, _ claimed: UnsafeBufferPointer<UInt8>) -> Bool {
        chain.names(claimed)
    }

    /// What names a signer in a revocation list.
    enum Names {
        /// A key of the key set: its `kid` and its `spki#S256`.
        case key(keyID: UnsafeBufferPointer<UInt8>, keyThumbprint: UnsafeBufferPointer<UInt8>?)
        /// A chain validated to an anchor: every certificate of its path.
        case chain(ChainKey)
    }

    /// Calls `body` with each revocation of the signer `names` that applies to an object issued
    /// at `issuedAt` (nil: no `iat`, affected): from when it holds (`since`, −∞ without) and a
    /// detail builder, in check order (key: `kid`, then `spki#S256`; chain: leaf to anchor, each
    /// certificate's encodings, then its key) until `body` returns false.
    @inline(__always)
    static func forEachRevocation(
        of names: Names, in revocations: RevocationList, issuedAt: Double?,
        _ body: (_ since: Double, _ detail: () -> String) -> Bool
    ) {
        switch names {
        case .key(let keyID, let keyThumbprint):
            if let since = revocations.revokedSince(.key, keyID, issuedAt: issuedAt) {
                guard body(since, { "key \"\(String(decoding: keyID, as: UTF8.self))\" is revoked" }) else { return }
            }
            if let keyThumbprint,
                let since = revocations.revokedSince(.keyThumbprint, keyThumbprint, issuedAt: issuedAt)
            {
                let detail = {
                    "key \"\(String(decoding: keyID, as: UTF8.self))\" is revoked (spki#S256 \(String(decoding: keyThumbprint, as: UTF8.self)))"
                }
                guard body(since, detail) else { return }
            }
        case .chain(let chain):
            forEachCertificateRevocation(of: chain, in: revocations, issuedAt: issuedAt, body)
        }
    }

    /// ``forEachRevocation(of:in:issuedAt:_:)`` for a chain (out of line: tokens with a `kid`
    /// keep the check small).
    @inline(never)
    private static func forEachCertificateRevocation(
        of chain: ChainKey, in revocations: RevocationList, issuedAt: Double?,
        _ body: (_ since: Double, _ detail: () -> String) -> Bool
    ) {
        let byCertificate = revocations.contains(kind: .certificate)
        let byKey = revocations.contains(kind: .keyThumbprint)
        guard byCertificate || byKey else { return }
        let certificates = chain.certificates
        for (position, certificate) in certificates.enumerated() {
            let role =
                position == 0 ? "leaf" : position == certificates.count - 1 ? "anchor" : "intermediate \(position)"
            let carried = String(decoding: certificate.thumbprints[0], as: UTF8.self)
            for thumbprint in certificate.thumbprints where byCertificate {
                let since = thumbprint.withUnsafeBufferPointer {
                    revocations.revokedSince(.certificate, $0, issuedAt: issuedAt)
                }
                guard let since else { continue }
                guard body(since, { "the chain's certificate x5t#S256 \(carried) (\(role)) is revoked" }) else {
                    return
                }
            }
            guard byKey else { continue }
            let since = certificate.keyThumbprint.withUnsafeBufferPointer {
                revocations.revokedSince(.keyThumbprint, $0, issuedAt: issuedAt)
            }
            guard let since else { continue }
            let key = String(decoding: certificate.keyThumbprint, as: UTF8.self)
            let detail = {
                "the key of the chain's certificate x5t#S256 \(carried) (\(role)) is revoked (spki#S256 \(key))"
            }
            guard body(since, detail) else { return }
        }
    }

    /// The first revocation of `names` in force at `time` for an object issued at `issuedAt`:
    /// its detail (a token's `revoked_key`), or nil.
    @inline(__always)
    static func revocation(
        of names: Names, in revocations: RevocationList, issuedAt: Double?, at time: Double
    ) -> String? {
        var found: String? = nil
        forEachRevocation(of: names, in: revocations, issuedAt: issuedAt) { since, detail in
            guard time >= since else { return true }
            found = detail()
            return false
        }
        return found
    }

    /// The earliest time from which a revocation of `names` applies to an object issued at
    /// `issuedAt`, and its detail (a list's signer: out of force for lines at that time or later).
    static func earliestRevocation(
        of names: Names, in revocations: RevocationList, issuedAt: Double?
    ) -> (since: Double, detail: String)? {
        var earliest: (since: Double, detail: String)? = nil
        forEachRevocation(of: names, in: revocations, issuedAt: issuedAt) { since, detail in
            if since < earliest?.since ?? .infinity { earliest = (since, detail()) }
            return true
        }
        return earliest
    }
}
