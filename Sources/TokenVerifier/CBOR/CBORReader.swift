/// Why a CBOR item was refused.
public struct CBORError: Error, CustomStringConvertible {
    /// One human sentence.
    public var description: String
    /// Byte offset in the CBOR where the problem was found.
    public var offset: Int

    package init(_ description: String, at offset: Int) {
        self.description = description
        self.offset = offset
    }
}

/// A strict pull reader for CBOR (RFC 8949) held in memory: the items a token may hold.
///
/// It accepts only well-formed CBOR with definite lengths; integers, lengths and tags in any head
/// width (RFC 9052 §9 asks for shortest forms only of the `Sig_structure`, which the verifier
/// builds itself); text strings of valid UTF-8; map keys that are integers or text strings, none
/// twice in one map (compared by value, so `4` and `0x1804` are the same key); simple values `false`,
/// `true`, `null` and `undefined` only; floats of any width. Nesting deeper than
/// ``maximumDepth`` is refused, and so is a declared length past the end of the bytes, so no
/// input allocates or recurses without bound. The reader borrows `bytes`.
package struct CBORReader {
    /// Deepest nesting of arrays, maps and tags accepted (as for JSON).
    package static let maximumDepth = 128

    /// The major types of RFC 8949 §3.1.
    package enum Major: UInt8 {
        case unsigned = 0
        case negative, bytes, text, array, map, tag, simple

        /// The major type of an item whose initial byte is `initial`.
        @inline(__always)
        init(initial: UInt8) {
            switch initial >> 5 {
            case 0: self = .unsigned
            case 1: self = .negative
            case 2: self = .bytes
            case 3: self = .text
            case 4: self = .array
            case 5: self = .map
            case 6: self = .tag
            default: self = .simple
            }
        }
    }

    /// One item's initial byte and argument.
    package struct Head {
        package var major: Major
        /// The argument (for `.simple`: the simple value, or the float's bit pattern).
        package var argument: UInt64
        /// The additional information (low five bits of the initial byte).
        package var info: UInt8
    }

    package let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int
    var depth = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    package func error(_ description: String, at offset: Int? = nil) -> CBORError {
        CBORError(description, at: offset ?? position)
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position == bytes.count }

    /// Throws unless every byte has been read.
    package func finish() throws(CBORError) {
        guard isAtEnd else { throw error("\(bytes.count - position) bytes follow the CBOR item") }
    }

    /// The next item's major type, without consuming it.
    @inline(__always)
    package func peekMajor() -> Major? {
        guard position < bytes.count else { return nil }
        return Major(initial: bytes[position])
    }

    /// Whether the next item is `null`.
    var nextIsNull: Bool { position < bytes.count && bytes[position] == 0xF6 }

    /// Reads one initial byte and its argument (in any head width); refuses indefinite lengths,
    /// the reserved additional information values and a two-byte simple value below 32.
    @inline(__always)
    package mutating func readHead() throws(CBORError) -> Head {
        // The argument in the initial byte: most heads of a token.
        if position < bytes.count {
            let initial = bytes[position]
            let info = initial & 0x1F
            if info < 24 {
                position += 1
                return Head(major: Major(initial: initial), argument: UInt64(info), info: info)
            }
        }
        return try readLongHead()
    }

    /// ``readHead()`` for a head whose argument follows its initial byte (or an error).
    private mutating func readLongHead() throws(CBORError) -> Head {
        let start = position
        guard position < bytes.count else { throw error("the CBOR ends inside an item") }
        let initial = bytes[position]
        position += 1
        let major = Major(initial: initial)
        let info = initial & 0x1F
        var argument: UInt64
        switch info {
        case 0..<24:
            argument = UInt64(info)
        case 24...27:
            let width = 1 << Int(info - 24)
            guard bytes.count - position >= width else { throw error("the CBOR ends inside an item's head", at: start) }
            let raw = UnsafeRawPointer(bytes.baseAddress! + position)
            switch width {
            case 1: argument = UInt64(raw.load(as: UInt8.self))
            case 2: argument = UInt64(UInt16(bigEndian: raw.loadUnaligned(as: UInt16.self)))
            case 4: argument = UInt64(UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self)))
            default: argument = UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self))
            }
            position += width
            if major == .simple && info == 24 && argument < 32 {
                throw error("a simple value is not well-formed", at: start)
            }
        case 31:
            throw error("indefinite lengths are not accepted", at: start)
        default:
            throw error("reserved additional information \(info)", at: start)
        }
        return Head(major: major, argument: argument, info: info)
    }

    /// Reads the head of a byte or text string and returns its content's range.
    @inline(__always)
    mutating func readStringContent(_ head: Head, start: Int) throws(CBORError) -> Range<Int> {
        guard head.argument <= UInt64(bytes.count - position) else {
            throw error("a string's declared length runs past the end of the CBOR", at: start)
        }
        let range = position..<(position + Int(head.argument))
        position = range.upperBound
        if head.major == .text, !isASCII(range), !Self.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[range])) {
            throw error("a text string is not valid UTF-8", at: start)
        }
        return range
    }

    /// Whether the bytes at `range` are all ASCII: eight at a time, the last few in a word that
    /// stays within ``bytes``.
    @inline(__always)
    func isASCII(_ range: Range<Int>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = range.lowerBound
        while index + 8 <= range.upperBound {
            if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & highs != 0 { return false }
            index += 8
        }
        let rest = range.upperBound - index
        guard rest > 0 else { return true }
        if index + 8 <= bytes.count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            return word & highs & ((1 &<< UInt64(8 * rest)) &- 1) == 0
        }
        if range.upperBound >= 8 {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: range.upperBound - 8, as: UInt64.self))
            return word & highs & ~((1 &<< UInt64(8 * (8 - rest))) &- 1) == 0
        }
        for offset in index..<range.upperBound where bytes[offset] >= 0x80 { return false }
        return true
    }

    /// Reads a byte string; returns its content's range.
    package mutating func readByteString() throws(CBORError) -> Range<Int> {
        let start = position
        let head = try readHead()
        guard head.major == .bytes else { throw error("expected a byte string", at: start) }
        return try readStringContent(head, start: start)
    }

    /// Reads a text string (valid UTF-8); returns its content's range.
    @inline(__always)
    package mutating func readTextString() throws(CBORError) -> Range<Int> {
        let start = position
        let head = try readHead()
        guard head.major == .text else { throw error("expected a text string", at: start) }
        return try readStringContent(head, start: start)
    }

    /// Reads an array's head; returns its item count (bounded by the bytes left).
    package mutating func readArrayCount() throws(CBORError) -> Int {
        let start = position
        let head = try readHead()
        guard head.major == .array else { throw error("expected an array", at: start) }
        guard head.argument <= UInt64(bytes.count - position) else {
            throw error("an array's declared length runs past the end of the CBOR", at: start)
        }
        return Int(head.argument)
    }

    /// Reads an integer (major type 0 or 1) that fits an `Int64`; nil for any other item, which
    /// is then skipped.
    mutating func readInteger() throws(CBORError) -> Int64? {
        guard let major = peekMajor(), major == .unsigned || major == .negative else {
            try skipItem()
            return nil
        }
        let head = try readHead()
        guard head.argument <= UInt64(Int64.max) else { return nil }
        return major == .unsigned ? Int64(head.argument) : -1 - Int64(head.argument)
    }

    /// Reads a number: an integer or a float (half, single or double precision). Nil, with the
    /// item consumed, when it is neither.
    mutating func readNumber() throws(CBORError) -> Double? {
        guard let major = peekMajor() else { throw error("the CBOR ends inside an item") }
        switch major {
        case .unsigned, .negative:
            let head = try readHead()
            return major == .unsigned ? Double(head.argument) : -1 - Double(head.argument)
        case .simple:
            let head = try readHead()
            switch head.info {
            case 25: return Double(Float16(bitPattern: UInt16(head.argument)))
            case 26: return Double(Float(bitPattern: UInt32(head.argument)))
            case 27: return Double(bitPattern: head.argument)
            default: return nil
            }
        default:
            try skipItem()
            return nil
        }
    }

    /// Reads and checks one item of any kind, and everything nested in it.
    mutating func skipItem() throws(CBORError) {
        let start = position
        guard let major = peekMajor() else { throw error("the CBOR ends inside an item") }
        switch major {
        case .map:
            try readMap { (reader: inout CBORReader, _: Key) throws(CBORError) in try reader.skipItem() }
            return
        case .bytes, .text:
            let head = try readHead()
            _ = try readStringContent(head, start: start)
            return
        default:
            break
        }
        let head = try readHead()
        switch major {
        case .array, .tag:
            if major == .array, head.argument > UInt64(bytes.count - position) {
                throw error("an array's declared length runs past the end of the CBOR", at: start)
            }
            depth += 1
            defer { depth -= 1 }
            guard depth <= Self.maximumDepth else {
                throw error("CBOR nested deeper than \(Self.maximumDepth) levels", at: start)
            }
            for _ in 0..<(major == .array ? Int(head.argument) : 1) { try skipItem() }
        case .simple where head.info < 24:
            guard head.argument >= 20 else { throw error("simple value \(head.argument) is not accepted", at: start) }
        case .simple where head.info == 24:
            throw error("simple value \(head.argument) is not accepted", at: start)
        default:
            break
        }
    }

    /// Whether `text` is valid UTF-8 (RFC 3629), checked as JSON strings are: eight bytes at a
    /// time while they are ASCII.
    @inline(__always)
    static func isValidUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = text.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        while index + 8 <= text.count {
            guard raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else {
                return isValidUTF8(text, from: index)
            }
            index += 8
        }
        while index < text.count {
            guard text[index] < 0x80 else { return isValidUTF8(text, from: index) }
            index += 1
        }
        return true
    }

    /// Whether `text` from `start` on is valid UTF-8.
    private static func isValidUTF8(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        var reader = JSONReader(text)
        reader.position = start
        while reader.position < text.count {
            if text[reader.position] < 0x80 {
                reader.position += 1
                continue
            }
            do { try reader.scanUTF8Sequence() } catch { return false }
        }
        return true
    }
}
