/// Verifies tokens on one thread at a time, holding what must not be shared between threads
/// (OpenSSL verify contexts, one per P-256 key, made on first use).
///
/// Make one per thread with ``TokenVerifier/makeWorker()``; the batch API keeps its own.
public final class VerificationWorker {
    private let core: VerifierCore
    /// The key set the contexts were made for (held so that its identity stays unique).
    private var contextsState: VerifierState?
    private var p256Contexts: [P256VerifyContext?] = []

    init(core: VerifierCore) {
        self.core = core
    }

    /// Verifies one request.
    public func verify(_ request: VerificationRequest) -> VerificationResult {
        var token = request.token
        return token.withUTF8 { bytes in
            verify(token: bytes, context: request.context)
        }
    }

    /// The checks of SPEC §5 in order. Outside audit mode the first failure ends the run.
    func verify(token: UnsafeBufferPointer<UInt8>, context: RequestContext) -> VerificationResult {
        let options = core.options
        let state = core.currentState
        let revocations = core.currentRevocations
        var failures = FailureList(audit: options.audit)

        // 2: structure, JSON and claim types.
        let parsed: CompactToken
        switch CompactToken.parse(token) {
        case .success(let token): parsed = token
        case .failure(let error): return VerificationResult(failures: [VerificationFailure(.malformedToken, error.description)])
        }
        let header = parsed.header
        let claims = parsed.claims
        func finish() -> VerificationResult {
            VerificationResult(failures: failures.failures, header: header, claims: claims)
        }

        // 3, 4: algorithm and header.
        let algorithm = HeaderPolicy().check(header, &failures)
        if failures.isDone { return finish() }
        // 5, 6: key.
        let keyIndex = KeyPolicy(keys: state.keys).check(header, algorithm: algorithm, &failures)
        if failures.isDone { return finish() }
        let key = keyIndex.map { state.keys.keys[$0] }
            ?? header.keyID.flatMap { state.keys[$0] }
        // 7, 8: environment and issuer.
        EnvironmentPolicy(required: options.environment).check(claims, key: key, &failures)
        if failures.isDone { return finish() }
        IssuerPolicy(required: options.issuer).check(claims, key: key, &failures)
        if failures.isDone { return finish() }
        // 9: validity window.
        let time = context.checkTime ?? options.checkTime ?? currentNumericDate()
        ValidityWindowPolicy(leeway: options.leeway).check(claims, at: time, &failures)
        if failures.isDone { return finish() }
        // 10: revocations.
        RevocationPolicy(revocations: revocations).check(claims, keyID: header.keyID, at: time, &failures)
        if failures.isDone { return finish() }
        // 11: request context.
        RequestContextPolicy().check(claims, context, &failures)
        if failures.isDone { return finish() }
        // 12: signature, when a key fits.
        if let keyIndex {
            SignaturePolicy().check(token: token, parsed: parsed, keyIndex: keyIndex, state: state, worker: self, &failures)
        }
        return finish()
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
