/// The open-addressing table of ``DeviceSteps``: one 24-byte slot per distinct key (a 128-bit
/// keyed digest of (sub) or (sub, aud) and the mask of step ids 0–63 done), stored in the table
/// itself so that a lookup costs one random cache miss, not two. Linear probing at most 60% full
/// (40 bytes per key at most), the home slot picked by multiplying the digest into the capacity
/// (no power-of-two rounding). A zero digest marks an empty slot (``key(_:)`` never makes one).
/// The slots are a large table on huge pages.
///
/// Written only while a ``DeviceSteps`` is built (``add(_:mask:)`` queues keys and inserts them
/// in batches, touching their home slots first so that the cache misses overlap; ``finish()``
/// inserts the rest), read-only afterwards.
final class StepTable: @unchecked Sendable {
    struct Slot {
        var digest: KeyedHash.Digest
        var mask: UInt64
    }

    private var slots: UnsafeMutablePointer<Slot>
    private(set) var capacity: Int
    /// The number of keys held.
    private(set) var count = 0
    /// Keys queued by ``add(_:mask:)``, not yet in the table.
    private var pending: [Slot] = []
    private static let batch = 16
    /// Where the batch's touches go, so that they are not optimised away.
    private var touched: UInt64 = 0

    /// A table sized for `expectedCount` distinct keys (it grows if more come).
    init(expectedCount: Int) {
        capacity = Self.capacity(for: expectedCount)
        slots = Self.allocate(capacity)
    }

    deinit {
        slots.deinitialize(count: capacity)
        freeLargeTable(slots)
    }

    private static func capacity(for count: Int) -> Int {
        max(16, count + count * 2 / 3 + 1)
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Slot> {
        let slots = allocateLargeTable(of: Slot.self, count: capacity)
        slots.initialize(repeating: Slot(digest: KeyedHash.Digest(low: 0, high: 0), mask: 0), count: capacity)
        return slots
    }

    /// `digest` made usable as a key: the zero digest (probability 2⁻¹²⁸) becomes (1, 0).
    @inline(__always)
    static func key(_ digest: KeyedHash.Digest) -> KeyedHash.Digest {
        digest.low | digest.high == 0 ? KeyedHash.Digest(low: 1, high: 0) : digest
    }

    /// Bytes held by the slots.
    var storageBytes: Int { capacity * MemoryLayout<Slot>.stride }

    @inline(__always)
    private func home(_ digest: KeyedHash.Digest) -> Int {
        Self.home(digest, capacity)
    }

    @inline(__always)
    private static func home(_ digest: KeyedHash.Digest, _ capacity: Int) -> Int {
        Int(truncatingIfNeeded: digest.low.multipliedFullWidth(by: UInt64(capacity)).high)
    }

    /// The mask stored for `key`, or nil when no entry has that key (after ``finish()``).
    @inline(__always)
    func mask(_ key: KeyedHash.Digest) -> UInt64? {
        var index = home(key)
        while true {
            let slot = slots[index]
            if slot.digest == key { return slot.mask }
            if slot.digest.low | slot.digest.high == 0 { return nil }
            index += 1
            if index == capacity { index = 0 }
        }
    }

    /// The masks stored for `first` and `second` (absent keys: 0), ORed. Both home slots are
    /// loaded before either is examined, so that their cache misses overlap.
    @inline(__always)
    func masks(_ first: KeyedHash.Digest?, _ second: KeyedHash.Digest?) -> UInt64 {
        let firstSlot = first.map { slots[home($0)] }
        let secondSlot = second.map { slots[home($0)] }
        return resolve(first, firstSlot) | resolve(second, secondSlot)
    }

    /// The mask of `key` given its home slot's contents (probing on only when the home slot holds another key).
    @inline(__always)
    private func resolve(_ key: KeyedHash.Digest?, _ home: Slot?) -> UInt64 {
        guard let key, let home else { return 0 }
        if home.digest == key { return home.mask }
        if home.digest.low | home.digest.high == 0 { return 0 }
        return mask(key) ?? 0
    }

    /// Adds `mask` to `key` (entries for one key add up), in the table by ``finish()`` at the latest.
    func add(_ key: KeyedHash.Digest, mask: UInt64) {
        if pending.isEmpty { pending.reserveCapacity(Self.batch) }
        pending.append(Slot(digest: key, mask: mask))
        if pending.count == Self.batch { finish() }
    }

    /// Inserts the queued keys: first one load from each home slot (independent loads, so the
    /// processor overlaps their misses), then the inserts, which find those lines in the cache.
    /// (Works on local copies of the properties: no exclusivity check per key.)
    func finish() {
        while (count + pending.count) * 5 > capacity * 3 { grow() }
        let (slots, capacity) = (self.slots, self.capacity)
        var added = 0
        var sum: UInt64 = 0
        pending.withUnsafeBufferPointer { batch in
            for slot in batch { sum &+= slots[Self.home(slot.digest, capacity)].digest.high }
            for slot in batch where Self.insert(slot.digest, mask: slot.mask, into: slots, capacity) { added += 1 }
        }
        touched &+= sum
        count += added
        pending.removeAll(keepingCapacity: true)
    }

    /// Adds `mask` to `key` in `slots`; whether the key is new.
    @inline(__always)
    private static func insert(
        _ key: KeyedHash.Digest, mask: UInt64, into slots: UnsafeMutablePointer<Slot>, _ capacity: Int
    ) -> Bool {
        var index = home(key, capacity)
        while true {
            let digest = slots[index].digest
            if digest == key {
                slots[index].mask |= mask
                return false
            }
            if digest.low | digest.high == 0 { break }
            index += 1
            if index == capacity { index = 0 }
        }
        slots[index] = Slot(digest: key, mask: mask)
        return true
    }

    /// Doubles the capacity (only when a file grew between the counting pass and the parsing pass).
    private func grow() {
        let (old, oldCapacity) = (slots, capacity)
        capacity *= 2
        slots = Self.allocate(capacity)
        for index in 0..<oldCapacity where old[index].digest.low | old[index].digest.high != 0 {
            _ = Self.insert(old[index].digest, mask: old[index].mask, into: slots, capacity)
        }
        old.deinitialize(count: oldCapacity)
        freeLargeTable(old)
    }
}
