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
            case .untrusted(let why, let second) where second.map { Self.time(time, isIn: $0) } ?? true:
                return .failure(ChainRefusal(why))
            default:
                break  // kept for another time: validated again at `time`
            }
        }
        guard let second = Self.second(of: time) else {
            return .failure(
                ChainRefusal("the time \(time) is outside ±(2^53 − 1) seconds: no chain is validated at it"))
        }
        cache.misses.wrappingIncrement(ordering: .relaxed)
        let certificates: [[UInt8]]
        switch ChainItems.decode(value, format: format) {
        case .success(let items): certificates = items
        case .failure(let error):
            cache.insert(digest, .untrusted(error.description, second: nil))
            return .failure(ChainRefusal(error.description))
        }
        return validate(certificates, at: second, digest: digest, signatureCache: signatureCache)
    }

    /// The largest magnitude of a time a chain is validated at: beyond it a Double has no whole
    /// seconds to tell apart (and beyond ±9.2e18 no Int64 holds it).
    static let timeLimit = Double((1 << 53) - 1)

    /// The whole second of `time` (a fraction is judged as its whole second: certificates' times
    /// are whole seconds), or nil when it is not a number or outside ±(2^53 − 1).
    static func second(of time: Double) -> Int64? {
        guard time.isFinite, abs(time) <= timeLimit else { return nil }
        return Int64(time.rounded(.down))
    }

    /// Whether `time` falls in the whole second `second`.
    @inline(__always)
    static func time(_ time: Double, isIn second: Int64) -> Bool {
        Double(second) <= time && time < Double(second) + 1
    }

    /// Validates `certificates` at `second` and keeps the verdict for as long as it holds.
    private func validate(
        _ certificates: [[UInt8]], at second: Int64, digest: KeyedHash.Digest, signatureCache: SignatureCache?
    ) -> Result<ChainKey, ChainRefusal> {
        switch anchors.validate(certificates, at: second) {
        case .trusted(let chain):
            guard let objects = leafKeys.objects(for: chain.key) else {
                let why = "the leaf's public key is not a valid Ed25519 or P-256 key"
                cache.insert(digest, .untrusted(why, second: nil))
                return .failure(ChainRefusal(why))
            }
            let key = ChainKey(chain, objects: objects, signatureCache: signatureCache)
            cache.insert(digest, .trusted(key))
            return .success(key)
        case .untrusted(let failure):
            cache.insert(digest, .untrusted(failure.description, second: failure.dependsOnTime ? second : nil))
            return .failure(ChainRefusal(failure.description))
        }
    }
}

/// Why a token's chain is not trusted: the detail of `untrusted_chain`.
struct ChainRefusal: Error {
    let detail: String
    init(_ detail: String) { self.detail = detail }
}
