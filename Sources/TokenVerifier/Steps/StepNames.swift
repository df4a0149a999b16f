/// Step names interned to small ids (0, 1, 2, … in order of first appearance), compared by their
/// UTF-8 bytes. Ids below 64 are bits of a device's mask; the rest live in an overflow set.
struct StepNames: Sendable {
    /// The names back to back; name `id` ends at `ends[id]`.
    private var text: [UInt8] = []
    private var ends: [Int] = []
    /// Open addressing over the ids: -1 for an empty slot. At most half full.
    private var table = [Int32](repeating: -1, count: 16)
    /// How many names are first compared one by one, before hashing (a file names few steps).
    private static let scanned = 8

    /// The number of names.
    var count: Int { ends.count }

    /// The names by id.
    var strings: [String] { (0..<count).map { id in String(decoding: text[range(id)], as: UTF8.self) } }

    @inline(__always)
    private func range(_ id: Int) -> Range<Int> { (id == 0 ? 0 : ends[id - 1])..<ends[id] }

    /// The id of `name`, or nil when no entry ever named it.
    func id(of name: UnsafeBufferPointer<UInt8>) -> Int? {
        text.withUnsafeBufferPointer { text in
            var start = 0
            for id in 0..<min(count, Self.scanned) {
                let end = ends[id]
                if bytesEqual(UnsafeBufferPointer(rebasing: text[start..<end]), name) { return id }
                start = end
            }
            guard count > Self.scanned else { return nil }
            let mask = table.count - 1
            var slot = Self.hash(name) & mask
            while true {
                let id = Int(table[slot])
                if id < 0 { return nil }
                if bytesEqual(UnsafeBufferPointer(rebasing: text[range(id)]), name) { return id }
                slot = (slot + 1) & mask
            }
        }
    }

    /// The id of `name`, given a new one when it is new.
    mutating func intern(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        if let id = id(of: name) { return id }
        let id = count
        text.append(contentsOf: name)
        ends.append(text.count)
        if count * 2 > table.count {
            table = [Int32](repeating: -1, count: table.count * 2)
            for id in 0..<count { place(id) }
        } else {
            place(id)
        }
        return id
    }

    private mutating func place(_ id: Int) {
        let hash = text.withUnsafeBufferPointer { Self.hash(UnsafeBufferPointer(rebasing: $0[range(id)])) }
        let mask = table.count - 1
        var slot = hash & mask
        while table[slot] >= 0 { slot = (slot + 1) & mask }
        table[slot] = Int32(id)
    }

    @inline(__always)
    private static func hash(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(name))
        return hasher.finalize()
    }

    /// Bytes held for the names and their table.
    var storageBytes: Int { text.capacity + ends.capacity * 8 + table.capacity * 4 }
}
