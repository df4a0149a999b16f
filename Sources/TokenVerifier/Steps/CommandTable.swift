/// The step policy's commands, looked up by their UTF-8 bytes without allocating: open
/// addressing (at most half full) over the rules, compared byte for byte.
struct CommandTable: Sendable {
    enum Lookup {
        /// The command has a rule of its own (nil: it needs no step).
        case listed(StepRequirement?)
        case notListed
    }

    private let commands: [[UInt8]]
    private let requirements: [StepRequirement?]
    /// -1 for an empty slot, else an index into `commands`.
    private let table: [Int32]

    init(_ rules: [(command: [UInt8], requirement: StepRequirement?)]) {
        commands = rules.map(\.command)
        requirements = rules.map(\.requirement)
        var capacity = 8
        while capacity < rules.count * 2 { capacity <<= 1 }
        var table = [Int32](repeating: -1, count: capacity)
        for (index, command) in commands.enumerated() {
            var slot = command.withUnsafeBufferPointer { Self.hash($0) } & (capacity - 1)
            while table[slot] >= 0 { slot = (slot + 1) & (capacity - 1) }
            table[slot] = Int32(index)
        }
        self.table = table
    }

    @inline(__always)
    func lookup(_ command: UnsafeBufferPointer<UInt8>) -> Lookup {
        guard !commands.isEmpty else { return .notListed }
        let mask = table.count - 1
        var slot = Self.hash(command) & mask
        while true {
            let index = Int(table[slot])
            if index < 0 { return .notListed }
            if commands[index].withUnsafeBufferPointer({ bytesEqual($0, command) }) {
                return .listed(requirements[index])
            }
            slot = (slot + 1) & mask
        }
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: UnsafeRawBufferPointer(bytes))
        return hasher.finalize()
    }
}
