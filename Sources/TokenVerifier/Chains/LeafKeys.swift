import TokenConcurrency

/// The key objects of the leaves of the chains validated under one set of anchors, by public key:
/// chains whose leaves hold the same key (a signer's certificate renewed, or issued under two
/// intermediates) share one key object, and so its per-key table and each worker's verify
/// context. Looked up only when a chain is validated (a chain cache miss), under a lock. Held
/// weakly: a key's objects (and its table) go when the last chain key using them leaves the chain
/// cache; at most ``limit`` keys are remembered (the gone ones are forgotten when the limit is
/// reached), beyond that a new key gets objects of its own.
final class LeafKeys: Sendable {
    /// One leaf key's objects.
    struct Objects {
        let p256: P256PublicKey?
        let ed25519: Ed25519PublicKey?
    }

    /// A key's objects, held weakly.
    private struct Held {
        weak var p256: P256PublicKey?
        weak var ed25519: Ed25519PublicKey?
        let isP256: Bool

        init(_ objects: Objects) {
            p256 = objects.p256
            ed25519 = objects.ed25519
            isP256 = objects.p256 != nil
        }

        /// The objects while a chain key still holds them.
        var objects: Objects? {
            if isP256 { return p256.map { Objects(p256: $0, ed25519: nil) } }
            return ed25519.map { Objects(p256: nil, ed25519: $0) }
        }
    }

    /// The remembered keys, and the keys refused a place since the gone ones were last forgotten.
    private struct State {
        var keys: [[UInt8]: Held] = [:]
        var refused = 0

        /// Forgets the gone keys once every `refusals` keys refused a place (a pass over all the
        /// remembered keys, spread over that many validations).
        mutating func forgetGone(every refusals: Int) {
            refused += 1
            guard refused >= refusals else { return }
            refused = 0
            keys = keys.filter { $0.value.objects != nil }
        }
    }

    private let state = LockedValue(State())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The objects of `key`: those made for it before while still in use, else new ones (nil when
    /// the bytes are not a valid key of their type).
    func objects(for key: LeafKey) -> Objects? {
        let material: [UInt8]
        switch key {
        case .ed25519(let bytes): material = [1] + bytes
        case .p256(let x, let y): material = [2] + x + y
        }
        if let known = state.withLock({ $0.keys[material]?.objects }) { return known }
        let made: Objects
        switch key {
        case .ed25519(let bytes):
            guard bytes.count == 32 else { return nil }
            made = Objects(p256: nil, ed25519: Ed25519PublicKey(bytes))
        case .p256(let x, let y):
            guard let key = P256PublicKey(x: x, y: y) else { return nil }
            made = Objects(p256: key, ed25519: nil)
        }
        return state.withLock { state in
            if let known = state.keys[material]?.objects { return known }
            if state.keys.count >= limit && state.keys[material] == nil { state.forgetGone(every: max(1, limit / 16)) }
            if state.keys.count < limit || state.keys[material] != nil { state.keys[material] = Held(made) }
            return made
        }
    }

    /// How many keys are remembered, gone ones included (for tests).
    var count: Int { state.withLock { $0.keys.count } }
}
