/// Why a JSON text was refused.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
    /// One human sentence.
    public var description: String
    /// Byte offset in the text where the problem was found.
    public var offset: Int

    @usableFromInline package init(_ description: String, at offset: Int) {
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
@usableFromInline package struct JSONReader {
    /// Deepest nesting of arrays and objects accepted.
    @usableFromInline static let maximumDepth = 128

    @usableFromInline package let bytes: UnsafeBufferPointer<UInt8>
    @usableFromInline package var position: Int = 0
    @usableFromInline var depth = 0

    @usableFromInline package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: - Kinds and white space

    /// What the next value is, judged by its first byte.
    @usableFromInline package enum ValueKind: Equatable {
        case object, array, string, number, bool, null, invalid
    }

    /// Skips white space and tells what the next value is, without consuming it.
    @inlinable
    package mutating func peekKind() -> ValueKind {
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
    @inlinable
    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    @inlinable
    func error(_ message: String) -> JSONError {
        JSONError(message, at: position)
    }

    @inlinable
    package func unexpected() -> JSONError {
        position < bytes.count
            ? JSONError("unexpected byte 0x\(String(bytes[position], radix: 16)) at offset \(position)", at: position)
            : JSONError("unexpected end of JSON text", at: position)
    }

    @inline(__always)
    @inlinable
    mutating func expect(_ byte: UInt8) throws(JSONError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { throw unexpected() }
        position += 1
    }

    /// Whether the next byte is `byte` (white space is not skipped).
    @inline(__always)
    @inlinable
    func nextIs(_ byte: UInt8) -> Bool {
        position < bytes.count && bytes[position] == byte
    }

    /// Checks that nothing but white space follows the value just read.
    @inlinable
    package mutating func finish() throws(JSONError) {
        skipWhitespace()
        if position != bytes.count { throw unexpected() }
    }

    // MARK: - Objects and arrays

    /// Member names remembered on the stack per object for duplicate detection; an object with
    /// more members, or with an escaped name, falls back to a set of unescaped names.
    @usableFromInline static let inlineNameCount = 32

    /// Reads an object; `body` is called once per member and must consume the member's value
    /// (with one of the `read…` methods or ``skipValue()``).
    @inlinable
    package mutating func readObject(_ body: (inout JSONReader, MemberName) throws(JSONError) -> Void) throws(JSONError)
    {
        try withObject { (reader: inout JSONReader, seen: UnsafeMutableBufferPointer<SeenName>) throws(JSONError) in
            try reader.readMembers(seen: seen, body)
        }
    }

    /// Reads an object's opening brace, then calls `members` (unless the object is empty) with
    /// room for the names seen, to read its members up to and including the closing brace.
    @inline(__always)
    @inlinable
    mutating func withObject(
        _ members: (inout JSONReader, UnsafeMutableBufferPointer<SeenName>) throws(JSONError) -> Void
    ) throws(JSONError) {
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
                try members(&self, seen)
            }
        }
        depth -= 1
    }

    /// A member name already read: its raw range and a fingerprint of it (its length and first
    /// eight bytes), so that most comparisons are one integer compare.
    @usableFromInline struct SeenName {
        @usableFromInline var range: Range<Int>
        @usableFromInline var fingerprint: UInt64

        @usableFromInline init(range: Range<Int>, fingerprint: UInt64) {
            self.range = range
            self.fingerprint = fingerprint
        }
    }

    /// The fingerprint of the raw name at `range`: equal names have equal fingerprints.
    @inline(__always)
    @inlinable
    func fingerprint(_ range: Range<Int>) -> UInt64 {
        let count = range.count
        var word: UInt64 = 0
        if let base = bytes.baseAddress, range.lowerBound + 8 <= bytes.count {
            word = UInt64(
                littleEndian: UnsafeRawPointer(base).loadUnaligned(fromByteOffset: range.lowerBound, as: UInt64.self))
            if count < 8 { word &= (1 &<< UInt64(count * 8)) &- 1 }
        } else {
            for (shift, index) in range.prefix(8).enumerated() { word |= UInt64(bytes[index]) &<< UInt64(shift * 8) }
        }
        return word ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
    }

    /// Reads `name: value` pairs up to and including the closing brace. `seen` holds the names
    /// read so far (unescaped names only).
    @inlinable
    mutating func readMembers(
        seen: UnsafeMutableBufferPointer<SeenName>,
        _ body: (inout JSONReader, MemberName) throws(JSONError) -> Void
    ) throws(JSONError) {
        var seenCount = 0
        var manyNames: Set<[UInt8]>? = nil
        while true {
            skipWhitespace()
            let nameOffset = position
            let name = try readMemberName()
            try note(name, at: nameOffset, seen: seen, count: &seenCount, manyNames: &manyNames)
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

    /// Refuses `name`, read at `nameOffset`, when an earlier member of the object had it, and
    /// remembers it: in `seen` (its first `seenCount` entries in use) while every name is
    /// unescaped and there is room, else in `manyNames`, made then from `seen`.
    @inline(__always)
    @inlinable
    func note(
        _ name: MemberName, at nameOffset: Int, seen: UnsafeMutableBufferPointer<SeenName>, count seenCount: inout Int,
        manyNames: inout Set<[UInt8]>?
    ) throws(JSONError) {
        if manyNames == nil, name.decoded == nil, seenCount < seen.count {
            let print = fingerprint(name.rawRange)
            for index in 0..<seenCount
            where seen[index].fingerprint == print
                && bytesEqual(UnsafeBufferPointer(rebasing: bytes[seen[index].range]), name.raw)
            {
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
    }

    /// Reads what follows a member's value or an array's element: true after `closing` (the
    /// closing brace or bracket), false after a comma.
    @inline(__always)
    @inlinable
    mutating func endOfItem(closedBy closing: UInt8) throws(JSONError) -> Bool {
        skipWhitespace()
        guard position < bytes.count else { throw unexpected() }
        if bytes[position] == UInt8(ascii: ",") {
            position += 1
            return false
        }
        if bytes[position] == closing {
            position += 1
            return true
        }
        throw unexpected()
    }

    /// Reads an object whose member names are mostly `Name`s, as ``readObject(_:)`` reads any
    /// object: `body` is called once per member with its name when it is one of `Name` (written
    /// plainly, found by one compare, or with escapes, as `"\u0069ss"`), else nil, and must
    /// consume the member's value. A duplicate is refused as ``readObject(_:)`` refuses it (the
    /// same message at the same place): a known name by a bit of its own, any other as there.
    @inlinable
    mutating func readObject<Name: KnownMemberName>(
        knowing _: Name.Type, _ body: (inout JSONReader, Name?) throws(JSONError) -> Void
    ) throws(JSONError) {
        try withObject { (reader: inout JSONReader, seen: UnsafeMutableBufferPointer<SeenName>) throws(JSONError) in
            try reader.readMembers(knowing: Name.self, seen: seen, body)
        }
    }

    /// The members of ``readObject(knowing:_:)``, up to and including the closing brace.
    @inlinable
    mutating func readMembers<Name: KnownMemberName>(
        knowing _: Name.Type, seen: UnsafeMutableBufferPointer<SeenName>,
        _ body: (inout JSONReader, Name?) throws(JSONError) -> Void
    ) throws(JSONError) {
        var knownSeen: UInt64 = 0
        var seenCount = 0
        var manyNames: Set<[UInt8]>? = nil
        while true {
            skipWhitespace()
            let nameOffset = position
            var known: Name? = nil
            if position + 8 <= bytes.count, let base = bytes.baseAddress,
                let name = Name(
                    quoted: UInt64(littleEndian: UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)))
            {
                // The quoted name in place: no escape, nothing else between the quotes.
                position += name.count + 2
                known = name
            } else {
                let name = try readMemberName()
                known = name.withBytes { bytes in
                    guard bytes.count <= 6, let name = Name(quoted: Self.quotedWord(bytes)), name.count == bytes.count
                    else { return nil }
                    return name
                }
                if known == nil { try note(name, at: nameOffset, seen: seen, count: &seenCount, manyNames: &manyNames) }
            }
            if let known {
                let bit: UInt64 = 1 &<< UInt64(known.bit)
                if knownSeen & bit != 0 { throw JSONError("duplicate member \"\(known.name)\"", at: nameOffset) }
                knownSeen |= bit
            }
            try expect(UInt8(ascii: ":"))
            let before = position
            try body(&self, known)
            if position == before { throw error("internal error: member value not consumed") }
            if try endOfItem(closedBy: UInt8(ascii: "}")) { return }
        }
    }

    /// Reads an array; `body` is called once per element and must consume it.
    @inlinable
    package mutating func readArray(_ body: (inout JSONReader) throws(JSONError) -> Void) throws(JSONError) {
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
                if try endOfItem(closedBy: UInt8(ascii: "]")) { break }
            }
        }
        depth -= 1
    }

    /// Reads a non-empty array of strings, calling `element` with each string's raw content
    /// range and whether it holds escapes (see ``readStringRange()``).
    @inlinable
    mutating func readStringArray(
        _ element: (inout JSONReader, Range<Int>, Bool) throws(JSONError) -> Void
    ) throws(JSONError) {
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
    @inlinable
    package mutating func skipValue() throws(JSONError) -> Range<Int> {
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
}
