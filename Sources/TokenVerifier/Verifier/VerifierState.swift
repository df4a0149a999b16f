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
