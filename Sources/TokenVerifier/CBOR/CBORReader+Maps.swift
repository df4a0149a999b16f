/// Maps, as the CWT and COSE readers read them (spec §2b): keys integers or text strings, each
/// at most once (compared by value whatever the width of their heads), nested within the
/// reader's depth limit.
extension CBORReader {
    /// A map key: an integer or a text string (any other key is refused).
    package enum Key {
        case integer(Int64)
        case text(Range<Int>)
        /// An integer outside `Int64` (never a label tokenverify reads).
        case otherInteger
    }

    /// Reads a map's head and enters it (one level deeper; the caller leaves it): the number of
    /// its entries. Refuses another item, a length past the end of the CBOR, and nesting deeper
    /// than ``maximumDepth``.
    @inline(__always)
    private mutating func enterMap() throws(CBORError) -> Int {
        let start = position
        let head = try readHead()
        guard head.major == .map else { throw error("expected a map", at: start) }
        guard head.argument <= UInt64(bytes.count - position) / 2 else {
            throw error("a map's declared length runs past the end of the CBOR", at: start)
        }
        guard depth < Self.maximumDepth else {
            throw error("CBOR nested deeper than \(Self.maximumDepth) levels", at: start)
        }
        depth += 1
        return Int(head.argument)
    }

    /// Reads a map, calling `body` for each entry with the key read and the reader at the value,
    /// which `body` must consume. Refuses a key that is not an integer or a text string, and a
    /// key that appears twice: keys are compared by value (an integer's sign and argument, a
    /// text's bytes), whatever the width of their heads.
    package mutating func readMap(_ body: (inout CBORReader, Key) throws(CBORError) -> Void) throws(CBORError) {
        let count = try enterMap()
        defer { depth -= 1 }
        try withUnsafeTemporaryAllocation(of: KeyValue.self, capacity: max(1, count)) { (keys) throws(CBORError) in
            for index in 0..<count {
                let keyStart = position
                let value = try readKey()
                try refuseRepeat(value, among: UnsafeMutableBufferPointer(rebasing: keys[0..<index]), at: keyStart)
                (keys.baseAddress! + index).initialize(to: value)
                let key: Key =
                    value.isText ? .text(value.text) : value.integer.map { .integer($0) } ?? .otherInteger
                try body(&self, key)
            }
        }
    }

    /// Reads a map whose keys are mostly `Name`s, as ``readMap(_:)`` reads any map: `body` is
    /// called for each entry with its key when it is one of `Name` (however its head is written),
    /// else nil, and must consume the value. A key twice is refused as ``readMap(_:)`` refuses it
    /// (the same message at the same place): a known key by a bit of its own, any other by value
    /// among the others.
    mutating func readMap<Name: KnownMapKey>(
        knowing _: Name.Type, _ body: (inout CBORReader, Name?) throws(CBORError) -> Void
    ) throws(CBORError) {
        let count = try enterMap()
        defer { depth -= 1 }
        try withUnsafeTemporaryAllocation(of: KeyValue.self, capacity: max(1, count)) { (others) throws(CBORError) in
            var otherCount = 0
            var knownSeen: UInt64 = 0
            for _ in 0..<count {
                let keyStart = position
                let value = try readKey()
                let known: Name? =
                    value.isText
                    ? Name(text: UnsafeBufferPointer(rebasing: bytes[value.text]))
                    : value.integer.flatMap { Name(integer: $0) }
                if let known {
                    let bit: UInt64 = 1 &<< UInt64(known.bit)
                    if knownSeen & bit != 0 { throw error("a map key appears twice", at: keyStart) }
                    knownSeen |= bit
                } else {
                    try refuseRepeat(
                        value, among: UnsafeMutableBufferPointer(rebasing: others[0..<otherCount]), at: keyStart)
                    (others.baseAddress! + otherCount).initialize(to: value)
                    otherCount += 1
                }
                try body(&self, known)
            }
        }
    }

    /// A map key's value, for the duplicate check: the major type and argument (a text's length),
    /// and a text's bytes.
    private struct KeyValue {
        var major: UInt8
        var argument: UInt64
        var text: Range<Int>

        var isText: Bool { major == Major.text.rawValue }

        /// An integer key's value, when it fits an `Int64`.
        var integer: Int64? {
            guard !isText, argument <= UInt64(Int64.max) else { return nil }
            return major == Major.unsigned.rawValue ? Int64(argument) : -1 - Int64(argument)
        }
    }

    /// Reads a map key: an integer or a text string, anything else refused.
    @inline(__always)
    private mutating func readKey() throws(CBORError) -> KeyValue {
        let keyStart = position
        switch peekMajor() {
        case .unsigned?, .negative?:
            let integer = try readHead()
            return KeyValue(major: integer.major.rawValue, argument: integer.argument, text: 0..<0)
        case .text?:
            let text = try readTextString()
            return KeyValue(major: Major.text.rawValue, argument: UInt64(text.count), text: text)
        default:
            throw error("a map key is not an integer or a text string", at: keyStart)
        }
    }

    /// Refuses `value`, a key read at `keyStart`, when one of `earlier` is the same key (compared
    /// by value: a text's bytes, an integer's sign and argument).
    @inline(__always)
    private func refuseRepeat(
        _ value: KeyValue, among earlier: UnsafeMutableBufferPointer<KeyValue>, at keyStart: Int
    ) throws(CBORError) {
        for key in earlier where key.major == value.major && key.argument == value.argument {
            if value.isText,
                !bytesEqual(
                    UnsafeBufferPointer(rebasing: bytes[key.text]), UnsafeBufferPointer(rebasing: bytes[value.text]))
            {
                continue
            }
            throw error("a map key appears twice", at: keyStart)
        }
    }
}

/// The few keys a map format reads (integers or texts), each recognised by value whatever the
/// width of its head (see ``CBORReader/readMap(knowing:_:)``).
protocol KnownMapKey {
    /// The key that is the integer `value`, or nil.
    init?(integer value: Int64)

    /// The key that is the text `bytes`, or nil.
    init?(text bytes: UnsafeBufferPointer<UInt8>)

    /// A number below 64 of its own, for the duplicate check.
    var bit: Int { get }
}
