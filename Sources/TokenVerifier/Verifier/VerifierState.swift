import Atomics

/// The key set and its signature cache: swapped together, read through an atomic.
final class VerifierState: AtomicReference, Sendable {
    let keys: KeySet
    let signatureCache: SignatureCache?

    init(keys: KeySet, cacheSlots: Int) {
        self.keys = keys
        self.signatureCache = cacheSlots > 0 ? SignatureCache(slots: cacheSlots) : nil
    }
}

/// A revocation snapshot, read through an atomic.
final class RevocationSnapshot: AtomicReference, Sendable {
    let list: RevocationList
    init(_ list: RevocationList) { self.list = list }
}

/// What a verifier and its workers share: the options and the two atomically swapped snapshots.
/// Workers hold this, not the ``TokenVerifier`` (which owns the worker pool), so no cycle forms.
final class VerifierCore: Sendable {
    let options: VerificationOptions
    private let state: ManagedAtomic<VerifierState>
    private let revocations: ManagedAtomic<RevocationSnapshot>

    init(keys: KeySet, revocations: RevocationList, options: VerificationOptions) {
        self.options = options
        self.state = ManagedAtomic(VerifierState(keys: keys, cacheSlots: options.signatureCacheSlots))
        self.revocations = ManagedAtomic(RevocationSnapshot(revocations))
    }

    var currentState: VerifierState { state.load(ordering: .acquiring) }
    var currentRevocations: RevocationList { revocations.load(ordering: .acquiring).list }

    func replaceRevocations(_ list: RevocationList) {
        revocations.store(RevocationSnapshot(list), ordering: .releasing)
    }

    func replaceKeys(_ keys: KeySet) {
        state.store(VerifierState(keys: keys, cacheSlots: options.signatureCacheSlots), ordering: .releasing)
    }
}
