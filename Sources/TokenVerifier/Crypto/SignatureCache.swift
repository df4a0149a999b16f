import Atomics
internal import CTokenPrefetch

/// A bounded, lock-free cache of signatures that verified (spec §5).
///
/// An entry is the 128-bit keyed hash (random key per cache) of the whole token, so that no other
/// token can hit it. Only successes are stored, so the cache can never turn an invalid token valid;
/// it only lets a token that already verified skip the signature check. Every other check still
/// runs on every request. The table is 4-way set-associative (a digest may sit in any slot of its
/// set, so tokens that share a set do not evict each other at once); each slot is a sequence lock
/// (version, two digest words), so a reader never accepts a half-written slot and a writer never
/// waits: when two writers meet, one of them simply does not store.
final class SignatureCache: @unchecked Sendable {
    private let hasher = KeyedHash()
    private let words: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    /// Sets minus one (the set count is a power of two).
    private let setMask: Int
    static let ways = 4

    /// A cache with `slots` slots, rounded up to a power of two (at least one set of four).
    init(slots: Int) {
        var capacity = Self.ways
        while capacity < slots { capacity <<= 1 }
        setMask = capacity / Self.ways - 1
        words = allocateLargeTable(of: UnsafeAtomic<UInt64>.Storage.self, count: capacity * 3)
        words.initialize(repeating: UnsafeAtomic<UInt64>.Storage(0), count: capacity * 3)
    }

    deinit {
        words.deinitialize(count: (setMask + 1) * Self.ways * 3)
        freeLargeTable(words)
    }

    /// The cache key of `token`.
    @inline(__always)
    func digest(of token: UnsafeBufferPointer<UInt8>) -> KeyedHash.Digest {
        hasher.hash(UnsafeRawBufferPointer(token))
    }

    /// The cache keys of `count` tokens (`starts[i]`, `counts[i]` bytes) into `digests`, as
    /// ``digest(of:)`` gives each.
    @inline(__always)
    func digests(
        count: Int, starts: UnsafePointer<UnsafePointer<UInt8>?>, counts: UnsafePointer<Int>,
        into digests: UnsafeMutablePointer<KeyedHash.Digest>
    ) {
        hasher.hash(count: count, starts: starts, counts: counts, into: digests)
    }

    /// A key's identity: the keyed hash of its type and public key material.
    func identity(of key: VerificationKey) -> KeyedHash.Digest {
        var material: [UInt8] = Array(key.type.rawValue.utf8) + [0]
        material += key.publicKeyBytes
        return material.withUnsafeBytes { hasher.hash($0) }
    }

    /// The cache key of a token (`digest`) checked with the key whose identity is `keyIdentity`.
    @inline(__always)
    func combine(_ digest: KeyedHash.Digest, _ keyIdentity: KeyedHash.Digest) -> KeyedHash.Digest {
        let words = (digest.low, digest.high, keyIdentity.low, keyIdentity.high)
        return withUnsafeBytes(of: words) { hasher.hash($0) }
    }

    /// The three words (version, low, high) of slot `way` of the digest's set.
    @inline(__always)
    private func atomics(
        _ digest: KeyedHash.Digest, way: Int
    ) -> (UnsafeAtomic<UInt64>, UnsafeAtomic<UInt64>, UnsafeAtomic<UInt64>) {
        let slot = (Int(truncatingIfNeeded: digest.low) & setMask) * Self.ways + way
        let base = words + slot * 3
        return (UnsafeAtomic(at: base), UnsafeAtomic(at: base + 1), UnsafeAtomic(at: base + 2))
    }

    /// Starts bringing the memory of this digest's set (four slots of 24 bytes) into the
    /// processor's caches.
    @inline(__always)
    func prefetch(_ digest: KeyedHash.Digest) {
        let set = UnsafeRawPointer(words + (Int(truncatingIfNeeded: digest.low) & setMask) * Self.ways * 3)
        tv_prefetch(set)
        tv_prefetch(set + Self.ways * 3 * 8 - 1)
    }

    /// Whether a token with this digest verified before.
    func contains(_ digest: KeyedHash.Digest) -> Bool {
        for way in 0..<Self.ways where slotHolds(digest, way: way) { return true }
        return false
    }

    @inline(__always)
    private func slotHolds(_ digest: KeyedHash.Digest, way: Int) -> Bool {
        let (version, low, high) = atomics(digest, way: way)
        let before = version.load(ordering: .acquiring)
        if before & 1 == 1 || before == 0 { return false }
        let storedLow = low.load(ordering: .relaxed)
        let storedHigh = high.load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        let after = version.load(ordering: .relaxed)
        return before == after && storedLow == digest.low && storedHigh == digest.high
    }

    /// Records that a token with this digest verified: in an empty slot of its set if there is
    /// one, else over the slot its digest picks.
    func insert(_ digest: KeyedHash.Digest) {
        var way = Int(truncatingIfNeeded: digest.high >> 62)
        for candidate in 0..<Self.ways where atomics(digest, way: candidate).0.load(ordering: .relaxed) == 0 {
            way = candidate
            break
        }
        let (version, low, high) = atomics(digest, way: way)
        let current = version.load(ordering: .relaxed)
        if current & 1 == 1 { return }
        guard version.compareExchange(expected: current, desired: current &+ 1, ordering: .acquiring).exchanged else {
            return
        }
        atomicMemoryFence(ordering: .releasing)
        low.store(digest.low, ordering: .relaxed)
        high.store(digest.high, ordering: .relaxed)
        version.store(current &+ 2, ordering: .releasing)
    }
}
