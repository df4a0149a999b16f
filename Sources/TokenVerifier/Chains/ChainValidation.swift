import CTokenX509

extension TrustAnchors {
    /// The most certificates a token's chain may carry, and a validated path may hold.
    static let maximumChainLength = Int(TV_X509_MAX_PATH)

    /// Validates `chain` (DER certificates, leaf first, as the token carries them) to these
    /// anchors as of `time` (NumericDate seconds) by RFC 5280 path validation (OpenSSL's
    /// X509_verify_cert, strict, an intermediate may be an anchor). A chain that validates under
    /// the anchors of more than one environment is untrusted.
    ///
    /// A trusted verdict holds for its path's joint validity only when no step of any store's
    /// path left OpenSSL a choice and every other store failed for want of an issuer (which holds
    /// at any time); otherwise it holds at `time` only. Every failure of path validation holds at
    /// `time` only (`dependsOnTime`); a refusal of the bytes themselves holds at any time.
    func validate(_ chain: [[UInt8]], at time: Int64, profile: ChainProfile = .token) -> ChainVerdict {
        if let refusal = refusedBeforeValidation(chain, profile: profile) { return .untrusted(refusal) }
        var trusted: [(chain: TrustedChain, forced: Bool)] = []
        var failures: [StoreFailure] = []
        for store in stores {
            switch Self.validate(chain, in: store, at: time) {
            case .success(let path): trusted.append(path)
            case .failure(let failure): failures.append(failure)
            }
        }
        if trusted.count == 1 {
            let timeless = trusted[0].forced && failures.allSatisfy { $0.unknownIssuer && $0.forced }
            return .trusted(timeless ? trusted[0].chain : trusted[0].chain.narrowed(to: time))
        }
        if trusted.count > 1 {
            let names = trusted.map { $0.chain.environment?.rawValue ?? "untagged" }.joined(separator: " and ")
            return .untrusted(
                ChainFailure(
                    subject: trusted[0].chain.leafSubject,
                    thumbprint: Base64URL.encodeString(trusted[0].chain.thumbprints[0]),
                    why: "validates under the anchors of more than one environment (\(names))", dependsOnTime: true))
        }
        guard let chosen = failures.first(where: { !$0.unknownIssuer }) ?? failures.first else {
            let leaf = X509Certificate(der: chain[0])?.subject
            return .untrusted(
                ChainFailure(subject: leaf, der: chain[0], why: "has an unknown issuer: no anchor is configured"))
        }
        let failure = chosen.failure
        return .untrusted(
            ChainFailure(
                subject: failure.subject, thumbprint: failure.thumbprint, why: failure.why, dependsOnTime: true))
    }

    /// What is refused before OpenSSL sees the chain, at any time: no certificate, more than 8,
    /// bytes that are not a certificate's DER, and (for `.token`) a leaf that cannot sign tokens.
    private func refusedBeforeValidation(_ chain: [[UInt8]], profile: ChainProfile) -> ChainFailure? {
        guard let leaf = chain.first else {
            return ChainFailure(subject: "(none)", thumbprint: "", why: "no certificate in the chain")
        }
        guard chain.count <= Self.maximumChainLength else {
            return ChainFailure(
                subject: X509Certificate(der: leaf)?.subject, der: leaf,
                why: "heads a chain of \(chain.count) certificates: more than \(Self.maximumChainLength)")
        }
        for (index, der) in chain.enumerated() {
            switch X509Certificate.encodingFault(der) {
            case nil: continue
            case .notACertificate?:
                return ChainFailure(subject: nil, der: der, why: "is not DER (certificate \(index + 1) of the chain)")
            case .notDER?:
                return ChainFailure(
                    subject: X509Certificate(der: der)?.subject, der: der,
                    why: "is not DER-encoded (certificate \(index + 1) of the chain)")
            }
        }
        guard profile == .token, let certificate = X509Certificate(der: leaf) else { return nil }
        guard let why = Self.leafRefusal(key: certificate.key, digitalSignature: certificate.digitalSignature) else {
            return nil
        }
        return ChainFailure(subject: certificate.subject, der: leaf, why: why)
    }

    /// Why a leaf cannot sign tokens, or nil when it can.
    private static func leafRefusal(key: (leaf: LeafKey?, description: String), digitalSignature: Bool?) -> String? {
        if key.leaf == nil { return "has a key that is not Ed25519 or P-256 (\(key.description))" }
        if digitalSignature == false { return "has a keyUsage without digitalSignature" }
        return nil
    }

    /// One store's verdict: the path and whether OpenSSL had no choice in building it, or the failure.
    private static func validate(
        _ chain: [[UInt8]], in store: Store, at time: Int64
    ) -> Result<(chain: TrustedChain, forced: Bool), StoreFailure> {
        guard let result = withPointers(chain, { tv_x509_validate(store.pointer, $0, $1, chain.count, time) }) else {
            return .failure(StoreFailure(failure: ChainFailure(subject: nil, der: chain[0], why: "out of memory")))
        }
        defer { tv_x509_result_free(result) }
        guard tv_x509_result_category(result) == Int32(TV_X509_OK) else {
            return .failure(failure(of: result, chain: chain, at: time))
        }
        let forced = tv_x509_result_forced(result) == 1
        return trustedPath(of: result, environment: store.environment).map { ($0, forced) }
    }

    private static func withPointers<R>(
        _ chain: [[UInt8]],
        _ body: (UnsafePointer<UnsafePointer<UInt8>?>, UnsafePointer<Int>) -> R
    ) -> R {
        let lengths = chain.map(\.count)
        let pointers = UnsafeMutablePointer<UnsafePointer<UInt8>?>.allocate(capacity: chain.count)
        defer { pointers.deallocate() }
        func bind(_ index: Int) -> R {
            guard index < chain.count else {
                return lengths.withUnsafeBufferPointer { body(pointers, $0.baseAddress!) }
            }
            return chain[index].withUnsafeBufferPointer { buffer in
                pointers[index] = buffer.baseAddress
                return bind(index + 1)
            }
        }
        return bind(0)
    }
}

/// One store's failure, whether it is only that no anchor issued the chain (the reason of
/// another environment's store is then the one reported), and whether OpenSSL had no choice in
/// the path it began (an unknown issuer then holds at any time).
struct StoreFailure: Error {
    let failure: ChainFailure
    var unknownIssuer = false
    var forced = false
}
