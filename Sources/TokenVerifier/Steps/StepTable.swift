/// The open-addressing index of ``DeviceSteps``: one 24-byte slot per distinct key (a 128-bit
/// keyed digest of (sub) or (sub, aud) and the mask of step ids 0–63 done), found through a table
/// of 32-bit slot numbers at most half full. Both arrays are large tables on huge pages.
///
/// Written only while a ``DeviceSteps`` is built, read-only afterwards.
final class StepTable: @unchecked Sendable {
    struct Slot {
        var digest: KeyedHash.Digest
        var mask: UInt64
    }

    private var slots: UnsafeMutablePointer<Slot>
    private(set) var slotCapacity: Int
    private(set) var slotCount = 0
    /// 0 for an empty slot, else slot number + 1.
    private var table: UnsafeMutablePointer<UInt32>
    private var tableMask: Int

    /// A table sized for `expectedCount` distinct keys (it grows if more come).
    init(expectedCount: Int) {
        slotCapacity = max(expectedCount, 1)
        slots = allocateLargeTable(of: Slot.self, count: slotCapacity)
        var capacity = 16
        while capacity < slotCapacity * 2 { capacity <<= 1 }
        tableMask = capacity - 1
        table = allocateLargeTable(of: UInt32.self, count: capacity)
        table.initialize(repeating: 0, count: capacity)
    }

    deinit {
        slots.deinitialize(count: slotCount)
        freeLargeTable(slots)
        table.deinitialize(count: tableMask + 1)
        freeLargeTable(table)
    }

    /// Bytes held by the two arrays.
    var storageBytes: Int {
        slotCapacity * MemoryLayout<Slot>.stride + (tableMask + 1) * MemoryLayout<UInt32>.stride
    }

    /// The mask stored for `digest`, or nil when no entry has that key.
    @inline(__always)
    func mask(_ digest: KeyedHash.Digest) -> UInt64? {
        var index = Int(truncatingIfNeeded: digest.low) & tableMask
        while true {
            let number = table[index]
            if number == 0 { return nil }
            let slot = slots[Int(number) - 1]
            if slot.digest == digest { return slot.mask }
            index = (index + 1) & tableMask
        }
    }

    /// Adds `mask` to the key `digest` (entries for one key add up).
    func add(_ digest: KeyedHash.Digest, mask: UInt64) {
        var index = Int(truncatingIfNeeded: digest.low) & tableMask
        while true {
            let number = Int(table[index])
            if number == 0 { break }
            if slots[number - 1].digest == digest {
                slots[number - 1].mask |= mask
                return
            }
            index = (index + 1) & tableMask
        }
        if slotCount == slotCapacity || slotCount >= Int(UInt32.max) - 1 {
            grow()
            add(digest, mask: mask)
            return
        }
        (slots + slotCount).initialize(to: Slot(digest: digest, mask: mask))
        slotCount += 1
        table[index] = UInt32(slotCount)
    }

    /// Doubles the capacity (only when a file grew between the counting pass and the parsing pass).
    private func grow() {
        precondition(slotCapacity < Int(UInt32.max) / 2, "too many device-step keys for 32-bit slot numbers")
        let old = (slots, slotCount, table, tableMask)
        slotCapacity *= 2
        slots = allocateLargeTable(of: Slot.self, count: slotCapacity)
        tableMask = (tableMask + 1) * 2 - 1
        table = allocateLargeTable(of: UInt32.self, count: tableMask + 1)
        table.initialize(repeating: 0, count: tableMask + 1)
        slotCount = 0
        for number in 0..<old.1 { add(old.0[number].digest, mask: old.0[number].mask) }
        old.0.deinitialize(count: old.1)
        freeLargeTable(old.0)
        old.2.deinitialize(count: old.3 + 1)
        freeLargeTable(old.2)
    }
}
