/// What the checks read of one key for every token: plain values, and pointers into storage its
/// key set owns, so that reading them takes no reference count (a count taken per token on an
/// object that every verifying thread shares makes the threads fight over its cache line).
struct KeyFacts {
    let type: KeyType
    /// The key's declared `alg`, if any.
    let algorithm: SignatureAlgorithm?
    /// The key's `env`, if any.
    let environment: Environment?
    /// The UTF-8 of the key's `kid`.
    let keyID: UnsafeBufferPointer<UInt8>
    /// The UTF-8 of the key's `iss`, if it has one.
    let issuer: UnsafeBufferPointer<UInt8>?
    /// The UTF-8 of the key's `spki#S256` (spec §4).
    let keyThumbprint: UnsafeBufferPointer<UInt8>
    /// The Ed25519 key, for Ed25519 keys (held by the key set's ``VerificationKey``).
    let ed25519: Unmanaged<Ed25519PublicKey>?
}

/// The ``KeyFacts`` of every key of a set, and an index of them by `kid` bytes, in storage of
/// their own: made once with the set and freed with it.
struct KeyFactsTable: @unchecked Sendable {
    /// The facts, in the order of the set's keys.
    let facts: UnsafeMutableBufferPointer<KeyFacts>
    /// The `kid` and `iss` bytes the facts point to.
    private let text: UnsafeMutableBufferPointer<UInt8>
    /// Open addressing over the `kid`s (position + 1, 0 for empty; a power of two long, at least
    /// twice the key count), for sets too large to scan; empty for small sets.
    private let slots: UnsafeMutableBufferPointer<Int32>
    /// Sets up to this size are scanned: a few comparisons cost less than hashing the `kid`.
    private static let scanLimit = 8

    /// Facts for `keys`, whose `kid`s are unique; `keys` must outlive the table (its Ed25519 keys
    /// are referenced, not retained).
    init(keys: [VerificationKey]) {
        let textCount = keys.reduce(0) {
            $0 + $1.keyID.utf8.count + ($1.issuer?.utf8.count ?? 0) + $1.keyThumbprint.utf8.count
        }
        let text = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, textCount))
        var offset = 0
        func store(_ string: String) -> UnsafeBufferPointer<UInt8> {
            let start = offset
            for byte in string.utf8 {
                text[offset] = byte
                offset += 1
            }
            return UnsafeBufferPointer(rebasing: text[start..<offset])
        }
        let facts = UnsafeMutableBufferPointer<KeyFacts>.allocate(capacity: keys.count)
        for (index, key) in keys.enumerated() {
            (facts.baseAddress! + index).initialize(
                to: KeyFacts(
                    type: key.type, algorithm: key.algorithm, environment: key.environment,
                    keyID: store(key.keyID), issuer: key.issuer.map(store), keyThumbprint: store(key.keyThumbprint),
                    ed25519: key.ed25519.map { Unmanaged.passUnretained($0) }))
        }
        var slots = UnsafeMutableBufferPointer<Int32>(start: nil, count: 0)
        if keys.count > Self.scanLimit {
            var capacity = 16
            while capacity < keys.count * 2 { capacity <<= 1 }
            slots = .allocate(capacity: capacity)
            slots.initialize(repeating: 0)
            for index in 0..<keys.count {
                var slot = Self.hash(facts[index].keyID) & (capacity - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (capacity - 1) }
                slots[slot] = Int32(index + 1)
            }
        }
        (self.facts, self.text, self.slots) = (facts, text, slots)
    }

    /// Frees the table (called once, by the key set that made it).
    func deallocate() {
        facts.deallocate()
        text.deallocate()
        slots.deallocate()
    }

    /// The position of the key whose `kid` is exactly these UTF-8 bytes.
    @inline(__always)
    func index(of keyID: UnsafeBufferPointer<UInt8>) -> Int? {
        guard slots.count > 0 else {
            for index in 0..<facts.count where bytesEqual(facts[index].keyID, keyID) { return index }
            return nil
        }
        let mask = slots.count - 1
        var slot = Self.hash(keyID) & mask
        while true {
            let entry = Int(slots[slot])
            if entry == 0 { return nil }
            if bytesEqual(facts[entry - 1].keyID, keyID) { return entry - 1 }
            slot = (slot + 1) & mask
        }
    }

    /// The standard library's hash (randomly seeded per process) of `bytes`.
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }
}
