import Atomics

/// A bounded, lock-free cache of signatures that verified (SPEC §5).
///
/// An entry is the 128-bit keyed hash (random key per cache) of the whole token, so that no other
/// token can hit it. Only successes are stored, so the cache can never turn an invalid token valid;
/// it only lets a token that already verified skip the signature check. Every other check still
/// runs on every request. The table is direct-mapped; each slot is a sequence lock (version, two
/// digest words), so a reader never accepts a half-written slot and a writer never waits: when two
/// writers meet, one of them simply does not store.
final class SignatureCache: @unchecked Sendable {
    private let hasher = KeyedHash()
    private let words: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    private let mask: Int

    /// A cache with `slots` slots, rounded up to a power of two (at least 2).
    init(slots: Int) {
        var capacity = 2
        while capacity < slots { capacity <<= 1 }
        mask = capacity - 1
        words = .allocate(capacity: capacity * 3)
        words.initialize(repeating: UnsafeAtomic<UInt64>.Storage(0), count: capacity * 3)
    }

    deinit {
        words.deinitialize(count: (mask + 1) * 3)
        words.deallocate()
    }

    /// The cache key of `token`.
    @inline(__always)
    func digest(of token: UnsafeBufferPointer<UInt8>) -> KeyedHash.Digest {
        hasher.hash(UnsafeRawBufferPointer(token))
    }

    @inline(__always)
    private func atomics(_ digest: KeyedHash.Digest) -> (UnsafeAtomic<UInt64>, UnsafeAtomic<UInt64>, UnsafeAtomic<UInt64>) {
        let base = words + (Int(truncatingIfNeeded: digest.low) & mask) * 3
        return (UnsafeAtomic(at: base), UnsafeAtomic(at: base + 1), UnsafeAtomic(at: base + 2))
    }

    /// Whether a token with this digest verified before.
    func contains(_ digest: KeyedHash.Digest) -> Bool {
        let (version, low, high) = atomics(digest)
        let before = version.load(ordering: .acquiring)
        if before & 1 == 1 || before == 0 { return false }
        let storedLow = low.load(ordering: .relaxed)
        let storedHigh = high.load(ordering: .relaxed)
        atomicMemoryFence(ordering: .acquiring)
        let after = version.load(ordering: .relaxed)
        return before == after && storedLow == digest.low && storedHigh == digest.high
    }

    /// Records that a token with this digest verified.
    func insert(_ digest: KeyedHash.Digest) {
        let (version, low, high) = atomics(digest)
        let current = version.load(ordering: .relaxed)
        if current & 1 == 1 { return }
        guard version.compareExchange(expected: current, desired: current &+ 1, ordering: .acquiring).exchanged else { return }
        atomicMemoryFence(ordering: .releasing)
        low.store(digest.low, ordering: .relaxed)
        high.store(digest.high, ordering: .relaxed)
        version.store(current &+ 2, ordering: .releasing)
    }
}
