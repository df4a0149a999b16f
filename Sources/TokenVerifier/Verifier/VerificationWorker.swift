/// Verifies tokens on one thread at a time, holding what must not be shared between threads
/// (OpenSSL verify contexts, one per P-256 key, made on first use).
///
/// Make one per thread with ``TokenVerifier/makeWorker()``; the batch API keeps its own.
public final class VerificationWorker {
    private let core: VerifierCore
    /// The key set the contexts were made for (held so that its identity stays unique).
    private var contextsState: VerifierState?
    private var p256Contexts: [P256VerifyContext?] = []
    /// Parsed tokens by digest, while the signature cache is on: one eighth of its slots, at
    /// most 32,768 entries, made on first use; a parse is kept from a token's second sighting
    /// on (see ``ParsedTokenCache``). Parsing does not depend on the key set; a digest made
    /// under another cache's key simply never matches.
    private var parsedTokens: ParsedTokenCache?
    /// Tokens this worker took from ``parsedTokens`` instead of parsing them (for the tests).
    private(set) var parsedTokenHits = 0
    /// Tokens this worker stored in ``parsedTokens`` (for the tests).
    private(set) var parsedTokenStores = 0

    init(core: VerifierCore) {
        self.core = core
    }

    /// Verifies one request.
    public func verify(_ request: VerificationRequest) -> VerificationResult {
        var token = request.token
        return token.withUTF8 { bytes in
            request.context.withBytes { verify(token: bytes, context: $0) }
        }
    }

    /// The snapshots one token (or one batch of lines) is checked against.
    struct Snapshot {
        let state: VerifierState
        let revocations: RevocationList
    }

    func snapshot() -> Snapshot {
        Snapshot(state: core.currentState, revocations: core.currentRevocations)
    }

    /// A token checked up to, not including, its signature.
    struct Prepared {
        var failures: FailureList
        var parsed: ParsedToken?
        /// The key for check 12, when the signature still has to be checked.
        var signatureKey: Int?
        /// The token's cache key, when the signature cache is on.
        var digest: KeyedHash.Digest?

        func result() -> VerificationResult {
            VerificationResult(failures: failures.failures, header: parsed.map(TokenHeader.init), claims: parsed.map(TokenClaims.init))
        }
    }

    /// The checks of SPEC §5 in order. Outside audit mode the first failure ends the run.
    func verify(token: UnsafeBufferPointer<UInt8>, context: ContextBytes) -> VerificationResult {
        let snapshot = snapshot()
        var prepared = prepare(token: token, context: context, snapshot: snapshot)
        checkSignature(&prepared, token: token, snapshot: snapshot)
        return prepared.result()
    }

    /// Checks 2 to 11 in order; outside audit mode the first failure ends the run.
    func prepare(token: UnsafeBufferPointer<UInt8>, context: ContextBytes, snapshot: Snapshot) -> Prepared {
        let options = core.options
        let state = snapshot.state
        var prepared = Prepared(failures: FailureList(audit: options.audit))

        // 2: structure, JSON and claim types (or the same token parsed before).
        func parse() -> ParsedToken? {
            switch ParsedToken.parse(token) {
            case .success(let token): return token
            case .failure(let error):
                prepared.failures.add(.malformedToken, error.description)
                return nil
            }
        }
        let parsed: ParsedToken
        if let cache = state.signatureCache {
            let digest = cache.digest(of: token)
            prepared.digest = digest
            if parsedTokens == nil { parsedTokens = ParsedTokenCache(entries: min(32768, max(1, options.signatureCacheSlots / 8))) }
            if let known = parsedTokens!.lookup(digest) {
                parsed = known
                parsedTokenHits += 1
            } else {
                guard let fresh = parse() else { return prepared }
                if parsedTokens!.note(fresh, for: digest) { parsedTokenStores += 1 }
                parsed = fresh
            }
        } else {
            guard let fresh = parse() else { return prepared }
            parsed = fresh
        }
        prepared.parsed = parsed

        // 3, 4: algorithm and header.
        let algorithm = HeaderPolicy().check(parsed, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 5, 6: key.
        let (keyIndex, keyFits) = KeyPolicy(keys: state.keys).check(parsed, algorithm: algorithm, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 7, 8: environment and issuer.
        EnvironmentPolicy(required: options.environment).check(parsed, keys: state.keys, keyIndex: keyIndex, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        IssuerPolicy(required: options.issuer).check(parsed, keys: state.keys, keyIndex: keyIndex, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 9: validity window.
        let time = context.checkTime ?? options.checkTime ?? currentNumericDate()
        ValidityWindowPolicy(leeway: options.leeway).check(parsed, at: time, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 10: revocations.
        RevocationPolicy(revocations: snapshot.revocations).check(parsed, at: time, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 11: request context.
        RequestContextPolicy().check(parsed, context, &prepared.failures)
        if prepared.failures.isDone { return prepared }
        // 12 is left for checkSignature, when a key fits.
        prepared.signatureKey = keyFits ? keyIndex : nil
        return prepared
    }

    /// Check 12 for a prepared token (nothing when an earlier check ended the run).
    func checkSignature(_ prepared: inout Prepared, token: UnsafeBufferPointer<UInt8>, snapshot: Snapshot) {
        guard let keyIndex = prepared.signatureKey, prepared.parsed != nil else { return }
        prepared.signatureKey = nil
        SignaturePolicy().check(token: token, parsed: prepared.parsed!, digest: prepared.digest, keyIndex: keyIndex,
                                state: snapshot.state, worker: self, &prepared.failures)
    }

    /// This worker's verify context for the P-256 key at `index` of `state`'s key set.
    func p256Context(for index: Int, in state: VerifierState) -> P256VerifyContext {
        if contextsState !== state {
            contextsState = state
            p256Contexts = Array(repeating: nil, count: state.keys.keys.count)
        }
        if let context = p256Contexts[index] { return context }
        let context = P256VerifyContext(key: state.keys.keys[index].p256!)
        p256Contexts[index] = context
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
