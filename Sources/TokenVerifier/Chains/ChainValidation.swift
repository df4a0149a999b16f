import CTokenX509

extension TrustAnchors {
    /// The most certificates a token's chain may carry, and a validated path may hold.
    static let maximumChainLength = Int(TV_X509_MAX_PATH)

    /// Validates `chain` (DER certificates, leaf first, as the token carries them) to these
    /// anchors as of `time` (NumericDate seconds) by RFC 5280 path validation (OpenSSL's
    /// X509_verify_cert, strict, an intermediate may be an anchor). A chain that validates under
    /// the anchors of more than one environment is untrusted.
    func validate(_ chain: [[UInt8]], at time: Int64, profile: ChainProfile = .token) -> ChainVerdict {
        if let refusal = refusedBeforeValidation(chain) { return .untrusted(refusal) }
        var trusted: [TrustedChain] = []
        var failures: [StoreFailure] = []
        for store in stores {
            switch Self.validate(chain, in: store, at: time, profile: profile) {
            case .success(let chain): trusted.append(chain)
            case .failure(let failure): failures.append(failure)
            }
        }
        let timeMatters = failures.contains { $0.failure.dependsOnTime }
        if trusted.count == 1 {
            // Another environment refused it only for validity: it may validate there at
            // another time, so this verdict holds at `time` only.
            return .trusted(timeMatters ? trusted[0].narrowed(to: time) : trusted[0])
        }
        if trusted.count > 1 {
            let names = trusted.map { $0.environment?.rawValue ?? "untagged" }.joined(separator: " and ")
            return .untrusted(
                ChainFailure(
                    subject: trusted[0].leafSubject, thumbprint: Base64URL.encodeString(trusted[0].thumbprints[0]),
                    why: "validates under the anchors of more than one environment (\(names))", dependsOnTime: true))
        }
        guard let chosen = failures.first(where: { !$0.unknownIssuer }) ?? failures.first else {
            let leaf = Certificate(der: chain[0])?.subject
            return .untrusted(
                ChainFailure(subject: leaf, der: chain[0], why: "has an unknown issuer: no anchor is configured"))
        }
        let failure = chosen.failure
        return .untrusted(
            ChainFailure(
                subject: failure.subject, thumbprint: failure.thumbprint, why: failure.why,
                dependsOnTime: timeMatters))
    }

    /// An empty chain, or one of more than 8 certificates, is refused before OpenSSL sees it.
    private func refusedBeforeValidation(_ chain: [[UInt8]]) -> ChainFailure? {
        guard let leaf = chain.first else {
            return ChainFailure(subject: "(none)", thumbprint: "", why: "no certificate in the chain")
        }
        guard chain.count > Self.maximumChainLength else { return nil }
        return ChainFailure(
            subject: Certificate(der: leaf)?.subject, der: leaf,
            why: "heads a chain of \(chain.count) certificates: more than \(Self.maximumChainLength)")
    }

    /// One store's verdict; a failure says whether it is only that no anchor issued the chain.
    private static func validate(
        _ chain: [[UInt8]], in store: Store, at time: Int64, profile: ChainProfile
    ) -> Result<TrustedChain, StoreFailure> {
        guard let result = withPointers(chain, { tv_x509_validate(store.pointer, $0, $1, chain.count, time) }) else {
            return .failure(StoreFailure(failure: ChainFailure(subject: nil, der: chain[0], why: "out of memory")))
        }
        defer { tv_x509_result_free(result) }
        guard tv_x509_result_category(result) == Int32(TV_X509_OK) else {
            return .failure(failure(of: result, chain: chain, at: time))
        }
        return trustedPath(of: result, environment: store.environment, profile: profile)
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

/// One store's failure, and whether it is only that no anchor issued the chain (the reason of
/// another environment's store is then the one reported).
struct StoreFailure: Error {
    let failure: ChainFailure
    var unknownIssuer = false
}
