/// Why a JSON text was refused.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    /// One human sentence.
    public var description: String
    /// Byte offset in the text where the problem was found.
    public var offset: Int

    init(_ description: String, at offset: Int) {
        self.description = description
        self.offset = offset
    }
}

/// A strict, allocation-light pull reader for one JSON text (RFC 8259) held in memory as UTF-8.
///
/// It accepts exactly RFC 8259: no comments, no trailing commas, no byte order mark, no leading
/// zeros, no lone surrogates, no invalid or overlong UTF-8, no control characters in strings. A
/// member name that appears twice in any object, at any depth, is an error (names are compared
/// after unescaping, so `"a"` and `"\u0061"` are the same). Nesting deeper than
/// ``JSONReader/maximumDepth`` is refused.
///
/// The reader borrows `bytes`: it must not outlive the buffer.
struct JSONReader {
    /// Deepest nesting of arrays and objects accepted.
    static let maximumDepth = 128

    let bytes: UnsafeBufferPointer<UInt8>
    private(set) var position: Int = 0
    private var depth = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - Kinds and white space

    /// What the next value is, judged by its first byte.
    enum ValueKind: Equatable {
        case object, array, string, number, bool, null, invalid
    }

    /// Skips white space and tells what the next value is, without consuming it.
    mutating func peekKind() -> ValueKind {
        skipWhitespace()
        guard position < bytes.count else { return .invalid }
        switch bytes[position] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .invalid
        }
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    private func error(_ message: String) -> JSONError {
        JSONError(message, at: position)
    }

    private func unexpected() -> JSONError {
        position < bytes.count
            ? JSONError("unexpected byte 0x\(String(bytes[position], radix: 16)) at offset \(position)", at: position)
            : JSONError("unexpected end of JSON text", at: position)
    }

    @inline(__always)
    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { throw unexpected() }
        position += 1
    }

    /// Checks that nothing but white space follows the value just read.
    mutating func finish() throws(JSONError) {
        skipWhitespace()
        if position != bytes.count { throw unexpected() }
    }

    // MARK: - Objects and arrays

    /// Member names remembered on the stack per object for duplicate detection; an object with
    /// more members, or with an escaped name, falls back to a set of unescaped names.
    static let inlineNameCount = 32

    /// Reads an object; `body` is called once per member and must consume the member's value
    /// (with one of the `read…` methods or ``skipValue()``).
    mutating func readObject(_ body: (inout JSONReader, MemberName) throws(JSONError) -> Void) throws(JSONError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "{") else {
            throw JSONError("expected a JSON object", at: position)
        }
        position += 1
        depth += 1
        if depth > Self.maximumDepth { throw error("JSON nested deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "}") {
            position += 1
        } else {
            try withUnsafeTemporaryAllocation(of: SeenName.self, capacity: Self.inlineNameCount) {
                (seen: UnsafeMutableBufferPointer<SeenName>) throws(JSONError) in
                try readMembers(seen: seen, body)
            }
        }
        depth -= 1
    }

    /// A member name already read: its raw range and a fingerprint of it (its length and first
    /// eight bytes), so that most comparisons are one integer compare.
    struct SeenName {
        var range: Range<Int>
        var fingerprint: UInt64
    }

    /// The fingerprint of the raw name at `range`: equal names have equal fingerprints.
    @inline(__always)
    private func fingerprint(_ range: Range<Int>) -> UInt64 {
        let count = range.count
        var word: UInt64 = 0
        if let base = bytes.baseAddress, range.lowerBound + 8 <= bytes.count {
            word = UInt64(littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self))
            if count < 8 { word &= (1 &<< UInt64(count * 8)) &- 1 }
        } else {
            for (shift, index) in range.prefix(8).enumerated() { word |= UInt64(bytes[index]) &<< UInt64(shift * 8) }
        }
        return word ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// Reads `name: value` pairs up to and including the closing brace. `seen` holds the names
    /// read so far (unescaped names only).
    private mutating func readMembers(seen: UnsafeMutableBufferPointer<SeenName>,
                                      _ body: (inout JSONReader, MemberName) throws(JSONError) -> Void) throws(JSONError) {
        var seenCount = 0
        var manyNames: Set<[UInt8]>? = nil
        while true {
            skipWhitespace()
            let nameOffset = position
            let name = try readMemberName()
            if manyNames == nil, name.decoded == nil, seenCount < seen.count {
                let print = fingerprint(name.rawRange)
                for index in 0..<seenCount
                where seen[index].fingerprint == print && bytesEqual(UnsafeBufferPointer(rebasing: bytes[seen[index].range]), name.raw) {
                    throw JSONError("duplicate member \"\(name.string)\"", at: nameOffset)
                }
                seen.initializeElement(at: seenCount, to: SeenName(range: name.rawRange, fingerprint: print))
                seenCount += 1
            } else {
                if manyNames == nil {
                    manyNames = Set(seen[0..<seenCount].map { Array(bytes[$0.range]) })
                }
                if manyNames!.insert(name.byteArray).inserted == false {
                    throw JSONError("duplicate member \"\(name.string)\"", at: nameOffset)
                }
            }
            try expect(UInt8(ascii: ":"))
            let before = position
            try body(&self, name)
            if position == before { throw error("internal error: member value not consumed") }
            skipWhitespace()
            guard position < bytes.count else { throw unexpected() }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
                continue
            }
            if bytes[position] == UInt8(ascii: "}") {
                position += 1
                return
            }
            throw unexpected()
        }
    }

    /// Reads an array; `body` is called once per element and must consume it.
    mutating func readArray(_ body: (inout JSONReader) throws(JSONError) -> Void) throws(JSONError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "[") else {
            throw JSONError("expected a JSON array", at: position)
        }
        position += 1
        depth += 1
        if depth > Self.maximumDepth { throw error("JSON nested deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        if position < bytes.count, bytes[position] == UInt8(ascii: "]") {
            position += 1
        } else {
            while true {
                let before = position
                try body(&self)
                if position == before { throw error("internal error: array element not consumed") }
                skipWhitespace()
                guard position < bytes.count else { throw unexpected() }
                if bytes[position] == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                if bytes[position] == UInt8(ascii: "]") {
                    position += 1
                    break
                }
                throw unexpected()
            }
        }
        depth -= 1
    }

    /// Reads a non-empty array of strings, calling `element` with each string's raw content
    /// range and whether it holds escapes (see ``readStringRange()``).
    mutating func readStringArray(_ element: (inout JSONReader, Range<Int>, Bool) throws(JSONError) -> Void) throws(JSONError) {
        guard peekKind() == .array else { throw error("expected an array of strings") }
        var count = 0
        try readArray { (reader: inout JSONReader) throws(JSONError) in
            guard reader.peekKind() == .string else { throw reader.error("expected an array of strings") }
            let scanned = try reader.scanString()
            try element(&reader, scanned.content, scanned.hasEscapes)
            count += 1
        }
        if count == 0 { throw error("expected a non-empty array of strings") }
    }

    /// Validates and skips any value, returning the byte range it occupied.
    @discardableResult
    mutating func skipValue() throws(JSONError) -> Range<Int> {
        let kind = peekKind()
        let start = position
        switch kind {
        case .object:
            try readObject { (reader: inout JSONReader, _: MemberName) throws(JSONError) in
                try reader.skipValue()
            }
        case .array:
            try readArray { (reader: inout JSONReader) throws(JSONError) in
                try reader.skipValue()
            }
        case .string:
            _ = try scanString()
        case .number:
            _ = try scanNumber()
        case .bool:
            _ = try readBool()
        case .null:
            try readLiteral("null")
        case .invalid:
            throw unexpected()
        }
        return start..<position
    }

    // MARK: - Scalars

    /// Reads `true` or `false`.
    mutating func readBool() throws(JSONError) -> Bool {
        switch peekKind() {
        case .bool:
            if bytes[position] == UInt8(ascii: "t") {
                try readLiteral("true")
                return true
            }
            try readLiteral("false")
            return false
        default:
            throw error("expected true or false")
        }
    }

    private mutating func readLiteral(_ literal: StaticString) throws(JSONError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw unexpected() }
        let matches = literal.withUTF8Buffer { expected in
            for index in 0..<count where bytes[position + index] != expected[index] { return false }
            return true
        }
        guard matches else { throw unexpected() }
        position += count
    }

    /// Reads a number as a Double. Out-of-range magnitudes become ±infinity (callers that need
    /// a finite value check `isFinite`).
    mutating func readNumber() throws(JSONError) -> Double {
        guard peekKind() == .number else { throw error("expected a number") }
        let (range, isSmallInteger) = try scanNumber()
        if isSmallInteger {
            var value: Int64 = 0
            var index = range.lowerBound
            let negative = bytes[index] == UInt8(ascii: "-")
            if negative { index += 1 }
            while index < range.upperBound {
                value = value &* 10 &+ Int64(bytes[index] &- UInt8(ascii: "0"))
                index += 1
            }
            return Double(negative ? -value : value)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text) else { throw JSONError("number out of range", at: range.lowerBound) }
        return value
    }

    /// Checks the RFC 8259 number grammar; tells whether it is an integer of at most 15 digits.
    private mutating func scanNumber() throws(JSONError) -> (Range<Int>, Bool) {
        let start = position
        if position < bytes.count, bytes[position] == UInt8(ascii: "-") { position += 1 }
        let digitsStart = position
        guard position < bytes.count, isDigit(bytes[position]) else { throw unexpected() }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        var isInteger = true
        let integerDigits = position - digitsStart
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < bytes.count, isDigit(bytes[position]) else { throw unexpected() }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < bytes.count, isDigit(bytes[position]) else { throw unexpected() }
            while position < bytes.count, isDigit(bytes[position]) { position += 1 }
        }
        return (start..<position, isInteger && integerDigits <= 15)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }

    /// Reads a string value.
    mutating func readString() throws(JSONError) -> String {
        guard peekKind() == .string else { throw error("expected a string") }
        let scanned = try scanString()
        if !scanned.hasEscapes {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[scanned.content]), as: UTF8.self)
        }
        return String(decoding: unescape(scanned.content), as: UTF8.self)
    }

    /// Reads a string value as the range of its raw content (between the quotes), telling
    /// whether it holds escapes (see ``unescapedBytes(_:)``).
    mutating func readStringRange() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        guard peekKind() == .string else { throw error("expected a string") }
        return try scanString()
    }

    /// The unescaped bytes of a string content range returned by ``readStringRange()``.
    func unescapedBytes(_ content: Range<Int>) -> [UInt8] {
        unescape(content)
    }

    /// Calls `body` with the unescaped bytes of a string content range returned by
    /// ``readStringRange()`` (in place when it has no escapes).
    func withStringBytes<R>(_ content: Range<Int>, hasEscapes: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if hasEscapes { return unescape(content).withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: bytes[content]))
    }

    private mutating func readMemberName() throws(JSONError) -> MemberName {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw JSONError("expected a member name", at: position)
        }
        let scanned = try scanString()
        let raw = UnsafeBufferPointer(rebasing: bytes[scanned.content])
        return MemberName(raw: raw, rawRange: scanned.content, decoded: scanned.hasEscapes ? unescape(scanned.content) : nil)
    }

    /// Validates one string (escapes, UTF-8, control characters) starting at the opening quote;
    /// returns the range between the quotes.
    private mutating func scanString() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        position += 1 // opening quote
        let start = position
        var hasEscapes = false
        let base = bytes.baseAddress
        let count = bytes.count
        while true {
            // Fast path: printable ASCII other than the quote and the backslash.
            var index = position
            if let base {
                // Eight bytes at a time while none of them is special; the lowest flag of a word
                // marks its first special byte exactly.
                let raw = UnsafeRawPointer(base)
                var found = false
                while index + 8 <= count {
                    let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                    let special = Self.specialBytes(word)
                    if special != 0 {
                        index += special.trailingZeroBitCount >> 3
                        found = true
                        break
                    }
                    index += 8
                }
                while !found && index < count {
                    let byte = base[index]
                    if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { break }
                    index += 1
                }
            }
            position = index
            guard position < count else { throw error("unterminated string") }
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let content = start..<position
                position += 1
                return (content, hasEscapes)
            }
            if byte < 0x20 { throw error("control character in string") }
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                try scanEscape()
                continue
            }
            try scanUTF8Sequence()
        }
    }

    /// The high bit of each byte of `word` (first byte lowest) that is below 0x20, at or above
    /// 0x80, `"` or `\`; bits above the lowest one set may be false alarms (a borrow carried
    /// from a special byte), the lowest one never is.
    @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return ((control | quoteZero | backslashZero) & highs) | (word & highs)
    }

    private mutating func scanEscape() throws(JSONError) {
        position += 1
        guard position < bytes.count else { throw error("unterminated string") }
        switch bytes[position] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
             UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            position += 1
        case UInt8(ascii: "u"):
            position += 1
            let unit = try scanHex4()
            if unit >= 0xD800 && unit <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                      bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("lone surrogate in string escape")
                }
                position += 2
                let low = try scanHex4()
                guard low >= 0xDC00 && low <= 0xDFFF else { throw error("lone surrogate in string escape") }
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw error("lone surrogate in string escape")
            }
        default:
            throw error("invalid escape in string")
        }
    }

    private mutating func scanHex4() throws(JSONError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("unterminated string escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = hexValue(bytes[position]) else { throw error("invalid \\u escape") }
            value = value << 4 | digit
            position += 1
        }
        return value
    }

    @inline(__always)
    private func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: shortest form, no surrogates, ≤ U+10FFFF).
    private mutating func scanUTF8Sequence() throws(JSONError) {
        let lead = bytes[position]
        let remaining = bytes.count - position
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            offset < remaining && bytes[position + offset] >= low && bytes[position + offset] <= high
        }
        let valid: Bool
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2; valid = continuation(1)
        case 0xE0: length = 3; valid = continuation(1, 0xA0) && continuation(2)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3; valid = continuation(1) && continuation(2)
        case 0xED: length = 3; valid = continuation(1, 0x80, 0x9F) && continuation(2)
        case 0xF0: length = 4; valid = continuation(1, 0x90) && continuation(2) && continuation(3)
        case 0xF1...0xF3: length = 4; valid = continuation(1) && continuation(2) && continuation(3)
        case 0xF4: length = 4; valid = continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3)
        default: length = 1; valid = false
        }
        guard valid else { throw error("invalid UTF-8 in string") }
        position += length
    }

    /// Decodes the escapes of an already validated string body.
    private func unescape(_ range: Range<Int>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(range.count)
        var index = range.lowerBound
        func hex4(_ at: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<4 { value = value << 4 | hexValue(bytes[at + offset])! }
            return value
        }
        while index < range.upperBound {
            let byte = bytes[index]
            if byte != UInt8(ascii: "\\") {
                output.append(byte)
                index += 1
                continue
            }
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hex4(index)
                index += 4
                if scalar >= 0xD800 && scalar <= 0xDBFF {
                    let low = hex4(index + 2)
                    index += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &output)
            default: output.append(escaped) // " \ /
            }
        }
        return output
    }

    private func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            output.append(UInt8(scalar))
        case 0x80..<0x800:
            output.append(UInt8(0xC0 | scalar >> 6))
            output.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            output.append(UInt8(0xE0 | scalar >> 12))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        default:
            output.append(UInt8(0xF0 | scalar >> 18))
            output.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            output.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            output.append(UInt8(0x80 | scalar & 0x3F))
        }
    }
}

/// A member name as read: the raw bytes between the quotes, and the unescaped bytes when the
/// name held escapes.
struct MemberName: Equatable {
    let raw: UnsafeBufferPointer<UInt8>
    /// Where `raw` lies in the reader's text.
    let rawRange: Range<Int>
    let decoded: [UInt8]?

    /// The name's bytes after unescaping.
    @inline(__always)
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let decoded { return decoded.withUnsafeBufferPointer(body) }
        return body(raw)
    }

    var byteArray: [UInt8] { decoded ?? Array(raw) }

    var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Whether the name is exactly `literal`.
    @inline(__always)
    func equals(_ literal: StaticString) -> Bool {
        withBytes { bytes in
            literal.withUTF8Buffer { expected in
                bytesEqual(bytes, expected)
            }
        }
    }

    static func == (lhs: MemberName, rhs: MemberName) -> Bool {
        lhs.withBytes { left in
            rhs.withBytes { right in
                bytesEqual(left, right)
            }
        }
    }
}

/// Whether two byte buffers hold the same bytes.
@inline(__always)
func bytesEqual(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
    guard left.count == right.count else { return false }
    for index in 0..<left.count where left[index] != right[index] { return false }
    return true
}
