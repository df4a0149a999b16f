/// One check of spec §5, as a value: it reads the parsed token (borrowed: never copied) and a
/// ``CheckInput`` and adds what fails to a ``FailureList``. Outside audit mode a check may stop at its own first failure; the list it
/// belongs to (``StandardChecks``) stops after any check that ended the run.
///
/// A check that finds something later checks need (the algorithm, the key) records it in the
/// ``CheckFindings``. Checks are stateless: what they are configured with comes from
/// `input.options`. The input is passed borrowed: reading the token or a key copies nothing.
protocol TokenCheck: Sendable {
    func check(
        _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
        _ failures: inout FailureList)
}

/// What every check reads besides the parsed token: one snapshot of the live state, one check
/// time, the request's context.
struct CheckInput {
    /// The compact token's bytes, for the signature check.
    let compact: UnsafeBufferPointer<UInt8>
    /// Keys, revocations and security steps: one snapshot for the whole line (held by the
    /// caller for as long as the input lives, so not retained again here).
    unowned(unsafe) let state: VerifierSnapshot
    /// The verifier's options and caches (outlive the input; read in place, not copied).
    unowned(unsafe) let core: VerifierCore
    /// The check time (NumericDate).
    let time: Double
    /// The request's device, object, channel and command.
    let context: ContextBytes
    /// The signature cache's key for the token and its key (a keyed hash of the whole token and
    /// the key's identity), for check 12 when the signature cache is on.
    let signatureCacheKey: KeyedHash.Digest?
    /// The worker's per-thread crypto contexts (the worker runs the checks, so it outlives the input).
    unowned(unsafe) let crypto: VerificationWorker
    /// For check 12 of an ES256 token: its s⁻¹ mod n when the batch made it (four limbs; a hint
    /// the table path takes only if it is that inverse). Given only for a token the batch found
    /// missing from the signature cache.
    var signatureInverse: UnsafePointer<UInt64>? = nil
    /// For check 12 of an Ed25519 token: the verdict of its signature when the batch verified it
    /// already (through the key's table, with the same steps as one verify). Given only for a
    /// token the batch found missing from the signature cache.
    var signatureVerdict: Bool? = nil

    /// How tokens are checked.
    @inline(__always)
    var options: VerificationOptions { _read { yield core.options } }

    /// What the checks read of each key of `state` (plain values: no reference counts).
    @inline(__always)
    var keys: KeyFactsTable { withState { $0.keys.facts } }

    /// `body` on the snapshot, lent: no reference count is taken on it (one that every thread
    /// shares) for the call.
    @inline(__always)
    func withState<R>(_ body: (VerifierSnapshot) -> R) -> R {
        Unmanaged.passUnretained(state)._withUnsafeGuaranteedRef(body)
    }
}

/// What the checks found for the checks after them.
struct CheckFindings {
    /// Check 3 found the header's algorithm supported.
    var algorithm: SignatureAlgorithm? = nil
    /// Check 5 found the key named by `kid`: its position in `state.keys`.
    var keyIndex: Int? = nil
    /// Check 5 found the key in the token's chain, validated to a trust anchor (spec §3b): lent,
    /// held by the worker until its batch is answered (``VerificationWorker/hold(_:)``), so that
    /// the findings of a token with a `kid` hold no reference.
    var chain: Unmanaged<ChainKey>? = nil

    /// The key in the token's chain, when check 5 found one.
    var chainKey: ChainKey? { chain?.takeUnretainedValue() }
    /// Check 6 found that the key verifies `algorithm`: the signature can be checked.
    var keyFits = false
}

extension CheckFindings {
    /// The facts of the key check 5 found (in the key set or in the token's chain).
    @inline(__always)
    func keyFacts(_ input: CheckInput) -> KeyFacts? {
        if let keyIndex { return input.keys.facts[keyIndex] }
        return chain?._withUnsafeGuaranteedRef { $0.facts }
    }

    /// The key check 5 found, for a detail: `key "kid"`, or the chain's leaf certificate.
    func keyDescription(_ input: CheckInput) -> String {
        if let keyIndex { return "key \"\(input.state.keys.keys[keyIndex].keyID)\"" }
        return chainKey.map { "the chain's \($0.leafDescription)" } ?? "no key"
    }
}

/// Runs `check` unless an earlier check ended the run (outside audit mode, the first failure
/// does): the step of every list of checks.
@inline(__always)
func runCheck(
    _ check: some TokenCheck, _ token: borrowing ParsedToken, _ input: CheckInput, _ findings: inout CheckFindings,
    _ failures: inout FailureList
) {
    if failures.isDone { return }
    check.check(token, input, &findings, &failures)
}
