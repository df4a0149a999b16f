import TokenConcurrency

/// The key objects of the leaves of the chains validated under one set of anchors, by public key:
/// chains whose leaves hold the same key (a signer's certificate renewed, or issued under two
/// intermediates) share one key object, and so its per-key table and each worker's verify
/// context. Looked up only when a chain is validated (a chain cache miss), under a lock; at most
/// ``limit`` keys are kept, then a new key gets objects of its own.
final class LeafKeys: Sendable {
    /// One leaf key's objects.
    struct Objects {
        let p256: P256PublicKey?
        let ed25519: Ed25519PublicKey?
    }

    private let keys = LockedValue<[[UInt8]: Objects]>([:])
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The objects of `key`: those made for it before, else new ones (nil when the bytes are not a
    /// valid key of their type).
    func objects(for key: LeafKey) -> Objects? {
        let material: [UInt8]
        switch key {
        case .ed25519(let bytes): material = [1] + bytes
        case .p256(let x, let y): material = [2] + x + y
        }
        if let known = keys.withLock({ $0[material] }) { return known }
        let made: Objects
        switch key {
        case .ed25519(let bytes):
            guard bytes.count == 32 else { return nil }
            made = Objects(p256: nil, ed25519: Ed25519PublicKey(bytes))
        case .p256(let x, let y):
            guard let key = P256PublicKey(x: x, y: y) else { return nil }
            made = Objects(p256: key, ed25519: nil)
        }
        return keys.withLock { keys in
            if let known = keys[material] { return known }
            if keys.count < limit { keys[material] = made }
            return made
        }
    }
}
