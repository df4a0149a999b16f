/// Trust from certificate chains for one snapshot (spec §3b): the anchors in force and the cache
/// of chains validated under them. A new set of anchors comes with a new cache; every other
/// change of the live state keeps both.
final class ChainTrust: Sendable {
    let anchors: TrustAnchors
    let cache: ChainCache
    /// The leaves' key objects, shared by the chains whose leaves hold one key.
    private let leafKeys: LeafKeys

    init(anchors: TrustAnchors, options: VerificationOptions) {
        self.anchors = anchors
        cache = ChainCache(entries: options.chainCacheEntries, options: options)
        leafKeys = LeafKeys(limit: options.chainCacheEntries)
    }

    /// The key of the chain `value` (a token's `x5c` or `x5chain` as written) at `time`, from the
    /// cache or validated now (and kept), or why it is not trusted (`untrusted_chain`).
    func key(
        for value: UnsafeBufferPointer<UInt8>, format: TokenFormat, at time: Double, signatureCache: SignatureCache?
    ) -> Result<ChainKey, ChainRefusal> {
        let digest = cache.digest(value, format: format)
        if let entry = cache.lookup(digest) {
            switch entry.outcome {
            case .trusted(let key) where key.isValid(at: time):
                if !key.tablesArmed.load(ordering: .relaxed) { cache.armTables(key) }
                return .success(key)
            case .untrusted(let why):
                return .failure(ChainRefusal(why))
            case .trusted:
                break  // outside the interval its path validates in: validated again at `time`
            }
        }
        cache.misses.wrappingIncrement(ordering: .relaxed)
        let certificates: [[UInt8]]
        switch ChainItems.decode(value, format: format) {
        case .success(let items): certificates = items
        case .failure(let error):
            cache.insert(digest, .untrusted(error.description))
            return .failure(ChainRefusal(error.description))
        }
        return validate(certificates, at: time, digest: digest, signatureCache: signatureCache)
    }

    /// Validates `certificates` at `time` (a fraction of a second is judged as its whole second:
    /// certificates' times are whole seconds).
    private func validate(
        _ certificates: [[UInt8]], at time: Double, digest: KeyedHash.Digest, signatureCache: SignatureCache?
    ) -> Result<ChainKey, ChainRefusal> {
        let second = Int64(time.rounded(.down))
        switch anchors.validate(certificates, at: second) {
        case .trusted(let chain):
            guard let objects = leafKeys.objects(for: chain.key) else {
                let why = "the leaf's public key is not a valid Ed25519 or P-256 key"
                cache.insert(digest, .untrusted(why))
                return .failure(ChainRefusal(why))
            }
            let key = ChainKey(chain, objects: objects, signatureCache: signatureCache)
            cache.insert(digest, .trusted(key))
            return .success(key)
        case .untrusted(let failure):
            if !failure.dependsOnTime { cache.insert(digest, .untrusted(failure.description)) }
            return .failure(ChainRefusal(failure.description))
        }
    }
}

/// Why a token's chain is not trusted: the detail of `untrusted_chain`.
struct ChainRefusal: Error {
    let detail: String
    init(_ detail: String) { self.detail = detail }
}
