/// Verifies tokens on one thread at a time, holding what must not be shared between threads:
/// OpenSSL verify contexts (one per P-256 key, made on first use) and a cache of parsed tokens.
///
/// Make one per thread with ``Verifier/makeWorker()``; the batch and async APIs keep their own.
/// (Its state is confined to that thread, so its accesses skip the run-time exclusivity checks.)
public final class VerificationWorker {
    let core: VerifierCore
    /// The key set the contexts were made for (held so that its identity stays unique).
    @exclusivity(unchecked) private var contextsKeys: KeySet?
    @exclusivity(unchecked) private var p256Contexts: [P256VerifyContext?] = []
    /// The chain keys of the batch being verified (see ``hold(_:)``).
    @exclusivity(unchecked) private var heldChains: [ChainKey] = []
    /// Verify contexts for chains' P-256 leaf keys (one per key object: chains whose leaves hold
    /// one key share it, ``LeafKeys``), each holding its key, so that no other key takes its
    /// identity; emptied when it reaches ``chainContextLimit``.
    @exclusivity(unchecked) private var chainContexts: [ObjectIdentifier: P256VerifyContext] = [:]
    private static let chainContextLimit = 4096
    /// Parsed tokens by digest, while the signature cache is on: one eighth of its slots, at
    /// most 32,768 entries, its tables made on first use; a parse is kept from a token's second
    /// sighting on (see ``ParsedTokenCache``). Parsing does not depend on the live state.
    let parsedTokens: ParsedTokenCache?
    /// The last JWS header read, for the next token with the same header segment.
    private let headerMemo = JWSHeaderMemo()
    /// A batch's Ed25519 signatures and signed messages, back to back (``withBatchSignatures``).
    let signedMessages = ByteScratch()
    /// The other buffers of a batch's signature pass.
    let signatureScratch = BatchSignatureScratch()
    /// Signature-cache lookups that found the token, and that did not (check 12 verified it),
    /// since `takeSignatureCacheCounts()` last took them.
    @exclusivity(unchecked) var signatureCacheHits = 0
    @exclusivity(unchecked) var signatureCacheMisses = 0

    init(core: VerifierCore) {
        self.core = core
        let slots = core.options.signatureCacheSlots
        parsedTokens = slots > 0 ? ParsedTokenCache(entries: min(32768, max(1, slots / 8))) : nil
    }

    /// How this worker's verifier checks tokens.
    public var options: VerificationOptions { core.options }

    /// Verifies one request.
    public func verify(_ request: VerificationRequest) -> VerificationResult {
        var token = request.token
        return token.withUTF8 { bytes in
            request.context.withBytes { verify(token: bytes, context: $0) }
        }
    }

    /// Verifies one compact token given as bytes (which need not be valid UTF-8), with its
    /// request context.
    public func verify(token: [UInt8], context: RequestContext = RequestContext()) -> VerificationResult {
        token.withUnsafeBufferPointer { bytes in context.withBytes { verify(token: bytes, context: $0) } }
    }

    /// Verifies one token given as bytes, with its request context.
    func verify(token: UnsafeBufferPointer<UInt8>, context: ContextBytes) -> VerificationResult {
        defer { releaseHeldChains() }
        let snapshot = snapshot()
        var prepared = Prepared(audit: core.options.audit)
        prepare(token: token, context: context, snapshot: snapshot, into: &prepared)
        checkSignature(&prepared, token: token, snapshot: snapshot)
        return prepared.result()
    }

    /// The snapshot of the live state in force, for one line or one batch of lines.
    @inline(__always)
    func snapshot() -> VerifierSnapshot {
        adopt(core.snapshot)
    }

    /// `snapshot`, as the one this worker checks against next.
    @inline(__always)
    func adopt(_ snapshot: VerifierSnapshot) -> VerifierSnapshot {
        // Contexts made for a key set no longer in force would keep its keys and their ES256
        // tables alive: drop them as soon as this worker sees another set.
        if let keys = contextsKeys, keys !== snapshot.keys {
            contextsKeys = nil
            p256Contexts = []
        }
        return snapshot
    }

    /// A token checked up to, not including, its signature.
    struct Prepared {
        var failures: FailureList
        var parsed: ParsedToken?
        /// The key for check 12, when the signature still has to be checked: one of the key set's,
        /// or the token's chain's.
        var signatureKey: Int?
        /// (A chain's key is lent: the worker holds it until the batch is answered.)
        var signatureChain: Unmanaged<ChainKey>?
        /// The token's digest, when the signature cache is on.
        var digest: KeyedHash.Digest?
        /// The leaf's `x5t#S256`, when check 5 found the key in the token's chain (spec §3b).
        var isVerifiedByChain = false
        /// The signature cache's key for the token and its key, when the signature still has to
        /// be checked and the cache is on.
        var signatureCacheKey: KeyedHash.Digest?

        init(audit: Bool) {
            failures = FailureList(audit: audit)
        }

        /// Whether check 12 is still to be made.
        @inline(__always)
        var hasSignatureToCheck: Bool { signatureKey != nil || signatureChain != nil }

        /// The facts of the key for check 12.
        @inline(__always)
        func signatureFacts(_ snapshot: VerifierSnapshot) -> KeyFacts? {
            if let signatureKey { return snapshot.keys.facts.facts[signatureKey] }
            return signatureChain?._withUnsafeGuaranteedRef { $0.facts }
        }

        /// The verdict.
        consuming func result() -> VerificationResult {
            VerificationResult(failures: failures.failures, parsed: parsed, isVerifiedByChain: isVerifiedByChain)
        }
    }

    /// Check 2 (parsing, or the same token parsed before) and the checks before the signature,
    /// in order (``StandardChecks``), into `prepared` (new, made for this worker's audit mode);
    /// outside audit mode the first failure ends the run. (Never inlined: one call a token, and
    /// profiles name it.)
    @inline(never)
    func prepare(
        token: UnsafeBufferPointer<UInt8>, context: ContextBytes, snapshot: VerifierSnapshot,
        into prepared: inout Prepared
    ) {
        let options = core.options
        let time = context.checkTime ?? options.checkTime ?? currentNumericDate()
        // Check 1 for a check time given through the API (the line protocol refuses one when it
        // parses the request): a time outside the range is an answer, never a trap further on.
        guard NumericDate.isRepresentable(time) else {
            prepared.failures.add(.malformedRequest, NumericDate.rangeProblem(time, what: "the check time")!)
            return
        }
        guard let parsed = parse(token, cache: snapshot.signatureCache, &prepared) else { return }
        let input = CheckInput(
            compact: token, state: snapshot, core: core, time: time,
            context: context, signatureCacheKey: nil, crypto: self)
        var findings = CheckFindings()
        StandardChecks.beforeSignature.check(parsed, input, &findings, &prepared.failures)
        if !prepared.failures.isDone, findings.keyFits, let keyIndex = findings.keyIndex {
            prepared.signatureKey = keyIndex
            if let digest = prepared.digest {
                // The cache's set is fetched while the batch's other tokens are checked.
                let key = snapshot.signatureCacheKey(token: digest, keyIndex: keyIndex)
                prepared.signatureCacheKey = key
                snapshot.signatureCache!.prefetch(key)
            }
        } else if !prepared.failures.isDone, findings.keyFits, let chain = findings.chain {
            // The answer names the leaf, not a `kid` the token may carry beside its chain.
            prepared.isVerifiedByChain = true
            if let digest = prepared.digest, let identity = chain._withUnsafeGuaranteedRef({ $0.identity }) {
                let key = snapshot.signatureCache!.combine(digest, identity)
                prepared.signatureCacheKey = key
                snapshot.signatureCache!.prefetch(key)
            }
            prepared.signatureChain = chain
        }
        prepared.parsed = consume parsed
    }

    /// Check 12 for a prepared token (nothing when an earlier check ended the run or no key fits),
    /// with the ES256 signature's s⁻¹ mod n or the Ed25519 signature's verdict when the batch
    /// made it (``withBatchSignatures``).
    func checkSignature(
        _ prepared: inout Prepared, token: UnsafeBufferPointer<UInt8>, snapshot: VerifierSnapshot,
        inverse: UnsafePointer<UInt64>? = nil, verdict: Bool? = nil
    ) {
        guard prepared.hasSignatureToCheck, prepared.parsed != nil else { return }
        let keyIndex = prepared.signatureKey
        let chain = prepared.signatureChain
        prepared.signatureKey = nil
        prepared.signatureChain = nil
        let input = CheckInput(
            compact: token, state: snapshot, core: core, time: 0,
            context: ContextBytes(), signatureCacheKey: prepared.signatureCacheKey, crypto: self,
            signatureInverse: inverse, signatureVerdict: verdict)
        var findings = CheckFindings(keyIndex: keyIndex, chain: chain, keyFits: true)
        // Taken out of the slot for the check and put back: moved, never copied.
        let parsed = prepared.parsed.take()!
        StandardChecks.signature.check(parsed, input, &findings, &prepared.failures)
        prepared.parsed = consume parsed
    }

    /// Check 2: the token parsed, or taken from the parse cache (when the signature cache is on,
    /// which also gives the token's digest).
    private func parse(
        _ token: UnsafeBufferPointer<UInt8>, cache: SignatureCache?, _ prepared: inout Prepared
    ) -> ParsedToken? {
        func parseFresh() -> ParsedToken? {
            switch ParsedToken.parse(token, headerMemo: headerMemo) {
            case .success(let token): return token
            case .failure(let error):
                prepared.failures.add(.malformedToken, error.description)
                return nil
            }
        }
        // Read through `!` where they lie: a `let` binding of either would take a reference count.
        guard cache != nil, parsedTokens != nil else { return parseFresh() }
        // The batch's look-ahead may have made the digest already.
        let digest = prepared.digest ?? cache!.digest(of: token)
        prepared.digest = digest
        if let known = parsedTokens!.lookup(digest) { return known }
        guard let fresh = parseFresh() else { return nil }
        parsedTokens!.note(fresh, for: digest)
        return fresh
    }

    /// This worker's verify context for the P-256 key at `index` of `snapshot`'s key set.
    func p256Context(for index: Int, in snapshot: VerifierSnapshot) -> P256VerifyContext {
        if contextsKeys !== snapshot.keys {
            contextsKeys = snapshot.keys
            p256Contexts = Array(repeating: nil, count: snapshot.keys.keys.count)
        }
        if let context = p256Contexts[index] { return context }
        let context = P256VerifyContext(key: snapshot.keys.keys[index].p256!)
        p256Contexts[index] = context
        return context
    }

    /// Keeps `key` (a token's chain key, found by check 5) alive until the batch being verified
    /// is answered: the checks and the batch's state lend it without a reference count.
    func hold(_ key: ChainKey) {
        heldChains.append(key)
    }

    /// Lets go of the chain keys held for a batch, once it is answered.
    @inline(__always)
    func releaseHeldChains() {
        if !heldChains.isEmpty { heldChains.removeAll(keepingCapacity: true) }
    }

    /// This worker's verify context for the P-256 leaf key of `chain`.
    func p256Context(for chain: ChainKey) -> P256VerifyContext {
        let key = chain.key.p256!
        if let context = chainContexts[ObjectIdentifier(key)] { return context }
        if chainContexts.count >= Self.chainContextLimit { chainContexts.removeAll(keepingCapacity: true) }
        let context = P256VerifyContext(key: key)
        chainContexts[ObjectIdentifier(key)] = context
        return context
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The current time as a NumericDate.
func currentNumericDate() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
