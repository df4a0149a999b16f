import Atomics

/// Everything a line is checked against, as one immutable snapshot: the key set (with each key's
/// identity for the signature cache), the revocation list, the security steps and the status
/// lists (with the index of those in force for this key set). Swapped whole
/// through one atomic, so a line never sees a mixture of old and new state, and a verifying
/// thread never waits on a lock.
package final class VerifierSnapshot: AtomicReference, Sendable {
    let keys: KeySet
    let revocations: RevocationList
    /// The step policy and the steps devices have done (spec §4b).
    let steps: SecuritySteps
    /// Whether a step policy is loaded (read per line without copying ``steps``).
    let stepsActive: Bool
    /// The Status List Tokens loaded (nil: no `--status-lists` given).
    let statusLists: StatusListSet?
    /// The status lists in force with ``keys``, by URI.
    let statusIndex: StatusListIndex
    /// The signature cache, shared by every snapshot of one verifier.
    let signatureCache: SignatureCache?
    /// The trust anchors and the chains validated under them (nil: no `--trust-anchors`, so no
    /// chain a token carries is read, spec §3b).
    let chains: ChainTrust?
    /// Per key of `keys`: a keyed hash of its type and public key material. A signature cache
    /// entry is keyed by the token and this identity, so entries made with a key stay valid
    /// while that exact key is in the set, and can never answer for other key material.
    private let keyIdentities: [KeyedHash.Digest]

    init(
        keys: KeySet, revocations: RevocationList, steps: SecuritySteps, statusLists: StatusListSet?,
        signatureCache: SignatureCache?, options: VerificationOptions, keyIdentities: [KeyedHash.Digest]? = nil,
        statusIndex: StatusListIndex? = nil, statusFloors: StatusListFloors = .none, chains: ChainTrust? = nil
    ) {
        self.keys = keys
        self.revocations = revocations
        self.steps = steps
        self.stepsActive = steps.isActive
        self.statusLists = statusLists
        self.statusIndex =
            statusIndex
            ?? StatusListIndex(
                lists: statusLists, keys: keys, anchors: chains?.anchors, revocations: revocations,
                floors: statusFloors, options: options)
        self.signatureCache = signatureCache
        self.chains = chains
        self.keyIdentities =
            keyIdentities ?? signatureCache.map { cache in keys.keys.map { cache.identity(of: $0) } } ?? []
    }

    /// This snapshot with the parts `update` names replaced (the same signature cache: entries of
    /// unchanged keys stay warm). New keys, anchors, revocations or lists make a new index of the
    /// lists in force above the old index's floors: each list's signer is checked again (no
    /// signature work for a key whose material is unchanged), never inflated again.
    func applying(_ update: LiveStateUpdate, options: VerificationOptions) -> VerifierSnapshot {
        var steps = self.steps
        if update.stepPolicy != nil || update.deviceSteps != nil {
            steps = SecuritySteps(policy: update.stepPolicy ?? steps.policy, done: update.deviceSteps ?? steps.done)
        }
        let chains = update.trustAnchors.map { ChainTrust(anchors: $0, options: options) } ?? self.chains
        let sameIndex =
            update.keys == nil && update.statusLists == nil && update.trustAnchors == nil && update.revocations == nil
        return VerifierSnapshot(
            keys: update.keys ?? keys, revocations: update.revocations ?? revocations, steps: steps,
            statusLists: update.statusLists ?? statusLists, signatureCache: signatureCache, options: options,
            keyIdentities: update.keys == nil ? keyIdentities : nil, statusIndex: sameIndex ? statusIndex : nil,
            statusFloors: statusIndex.floors, chains: chains)
    }

    /// The signature cache key of a token (its digest) checked with the key at `keyIndex`.
    @inline(__always)
    func signatureCacheKey(token digest: KeyedHash.Digest, keyIndex: Int) -> KeyedHash.Digest {
        signatureCache!.combine(digest, keyIdentities[keyIndex])
    }
}

/// What a verifier and its workers share: the options, the signature cache and the live
/// snapshot. Workers hold this, not the ``Verifier``, so no cycle forms.
final class VerifierCore: Sendable {
    let options: VerificationOptions
    private let current: ManagedAtomic<VerifierSnapshot>

    init(
        keys: KeySet, revocations: RevocationList, steps: SecuritySteps, statusLists: StatusListSet?,
        trustAnchors: TrustAnchors? = nil, statusFloors: StatusListFloors = .none, options: VerificationOptions
    ) {
        self.options = options
        let cache = options.signatureCacheSlots > 0 ? SignatureCache(slots: options.signatureCacheSlots) : nil
        KeyTableBuilder.arm(keys, options: options)
        current = ManagedAtomic(
            VerifierSnapshot(
                keys: keys, revocations: revocations, steps: steps, statusLists: statusLists,
                signatureCache: cache, options: options, statusFloors: statusFloors,
                chains: trustAnchors.map { ChainTrust(anchors: $0, options: options) }))
    }

    /// The snapshot in force.
    @inline(__always)
    var snapshot: VerifierSnapshot { current.load(ordering: .acquiring) }

    /// Puts a changed snapshot in force atomically; `change` may run more than once if another
    /// replacement races with this one (neither is lost).
    func replace(_ change: (VerifierSnapshot) -> VerifierSnapshot) {
        var old = current.load(ordering: .acquiring)
        while true {
            let new = change(old)
            // A key set is armed before it is in force, so that its keys' first uses ask for
            // their tables (arming is idempotent: a key keeps the first budget it is given).
            if new.keys !== old.keys { KeyTableBuilder.arm(new.keys, options: options) }
            let (exchanged, found) = current.compareExchange(
                expected: old, desired: new, ordering: .acquiringAndReleasing)
            if exchanged { return }
            old = found
        }
    }
}
