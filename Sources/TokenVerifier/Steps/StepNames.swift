/// Step names interned to small ids (0, 1, 2, … in order of first appearance), compared by their
/// UTF-8 bytes. Ids below 64 are bits of a device's mask; the rest live in an overflow set.
struct StepNames: Sendable {
    /// The names by id.
    private(set) var names: [[UInt8]] = []
    /// Open addressing over `names`: -1 for an empty slot, else an id. At most half full.
    private var table = [Int32](repeating: -1, count: 16)

    /// The id of `name`, or nil when no entry ever named it.
    func id(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        let mask = table.count - 1
        var slot = Self.hash(name) & mask
        while true {
            let id = Int(table[slot])
            if id < 0 { return nil }
            if names[id].withUnsafeBufferPointer({ bytesEqual($0, name) }) { return id }
            slot = (slot + 1) & mask
        }
    }

    /// The id of `name`, given a new one when it is new.
    mutating func intern(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        if let id = id(of: name) { return id }
        let id = names.count
        names.append(Array(name))
        if names.count * 2 > table.count {
            table = [Int32](repeating: -1, count: table.count * 2)
            for (index, bytes) in names.enumerated() { bytes.withUnsafeBufferPointer { place(Int32(index), hash: Self.hash($0)) } }
        } else {
            place(Int32(id), hash: Self.hash(name))
        }
        return id
    }

    private mutating func place(_ id: Int32, hash: Int) {
        let mask = table.count - 1
        var slot = hash & mask
        while table[slot] >= 0 { slot = (slot + 1) & mask }
        table[slot] = id
    }

    @inline(__always)
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(name))
        return hasher.finalize()
    }

    /// Bytes held for the names and their table.
    var storageBytes: Int {
        names.reduce(names.capacity * MemoryLayout<[UInt8]>.stride) { $0 + $1.capacity } + table.capacity * 4
    }
}
