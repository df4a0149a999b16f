/// The chain check of a Status List Token that carries a chain (spec §3b, last paragraph; §4c):
/// the chain validates to the trust anchors as of the list's `iat`, the list's `iss` is present
/// and names the leaf, the leaf's key fits `alg`, the anchor's environment agrees with
/// `options.environment`, and the signature verifies with the leaf's key. Run when a list is
/// loaded and again for each new set of anchors (a list whose chain no longer validates is out
/// of force).
enum ChainedStatusList {
    /// The parts of a list the check reads.
    struct Parts {
        var format: TokenFormat
        var algorithm: SignatureAlgorithm
        /// The header's chain as written (`x5c` JSON value, `x5chain` CBOR item).
        var chain: [UInt8]
        var issuedAt: Double
        var issuer: String?
        var message: [UInt8]
        var signature: [UInt8]
    }

    /// The leaf's key when the list passes, else why not (one sentence).
    static func verify(
        _ parts: Parts, anchors: TrustAnchors, options: VerificationOptions
    ) -> Result<ChainKey, StatusListRefusal> {
        let header = parts.format == .jws ? "x5c" : "x5chain (33)"
        guard let issuer = parts.issuer else {
            let claim = parts.format == .jws ? "iss" : "iss (1)"
            return .failure(
                .init("a list that carries a chain (\(header)) must name its issuer: claim \(claim) is missing"))
        }
        let certificates: [[UInt8]]
        switch parts.chain.withUnsafeBufferPointer({ ChainItems.decode($0, format: parts.format) }) {
        case .success(let items): certificates = items
        case .failure(let error): return .failure(.init("its chain is not usable: \(error.description)"))
        }
        let second = parts.issuedAt.rounded(.down)
        guard NumericDate.isRepresentable(second) else {
            return .failure(.init("its iat is outside \(NumericDate.rangeText)"))
        }
        let key: ChainKey
        switch anchors.validate(certificates, at: Int64(second), profile: .token) {
        case .untrusted(let failure):
            return .failure(
                .init("its chain does not validate at its iat (\(NumericDate.rfc3339(parts.issuedAt))): \(failure)"))
        case .trusted(let chain):
            // A list's key is used once per load: objects of its own, no shared tables.
            guard let objects = LeafKeys(limit: 0).objects(for: chain.key) else {
                return .failure(.init("its chain's leaf key is not a valid Ed25519 or P-256 key"))
            }
            key = ChainKey(chain, objects: objects, signatureCache: nil)
        }
        guard withUTF8(of: issuer, { SignerRule.chainBinds(key, $0) }) else {
            let names = (key.chain.uris + key.chain.dnsNames).map { "\"\($0)\"" }
            return .failure(
                .init(
                    "iss \"\(issuer)\" is not a name of the chain's \(key.leafDescription) (its names: \(names.isEmpty ? "none" : names.joined(separator: ", ")))"
                ))
        }
        guard key.key.accepts(parts.algorithm) else {
            return .failure(
                .init("alg \(parts.algorithm.rawValue) does not fit the chain's leaf key (\(key.key.type.rawValue))"))
        }
        if case .signerVersusRun(let anchorEnvironment, let environment) = SignerRule.environmentConflict(
            signed: nil, signer: key.key.environment, run: options.environment)
        {
            return .failure(
                .init(
                    "its chain validates to an anchor for env \"\(anchorEnvironment.rawValue)\", not \"\(environment.rawValue)\""
                ))
        }
        guard parts.signature.count == 64 else {
            return .failure(.init("the signature is \(parts.signature.count) bytes; expected 64"))
        }
        guard SignedStatusList.verify(message: parts.message, signature: parts.signature, with: key.key) else {
            return .failure(.init("the signature does not verify with the chain's \(key.leafDescription)"))
        }
        return .success(key)
    }
}

/// Why a list is refused or out of force, in one sentence.
struct StatusListRefusal: Error {
    let why: String
    /// Where the key the list's `kid` names verifies its signature but may not sign it (its `iss`
    /// or `env` refuses it): that key's issuer and environment, the group the list is now of, out
    /// of force (spec §4c: a list's issuer is its signing key's `iss`).
    let keyGroup: (issuer: String?, environment: Environment?)?

    init(_ why: String, keyGroup: (issuer: String?, environment: Environment?)? = nil) {
        self.why = why
        self.keyGroup = keyGroup
    }
}
