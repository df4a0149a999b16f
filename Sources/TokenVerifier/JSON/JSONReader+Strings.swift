extension JSONReader {
    // MARK: - Strings

    /// Reads a string value.
    @inlinable
    package mutating func readString() throws(JSONError) -> String {
        guard peekKind() == .string else { throw error("expected a string") }
        let scanned = try scanString()
        if !scanned.hasEscapes {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[scanned.content]), as: UTF8.self)
        }
        return String(decoding: unescape(scanned.content), as: UTF8.self)
    }

    /// Reads a string value as the range of its raw content (between the quotes), telling
    /// whether it holds escapes (see ``unescapedBytes(_:)``).
    @inlinable
    mutating func readStringRange() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        guard peekKind() == .string else { throw error("expected a string") }
        return try scanString()
    }

    /// The unescaped bytes of a string content range returned by ``readStringRange()``.
    @inlinable
    func unescapedBytes(_ content: Range<Int>) -> [UInt8] {
        unescape(content)
    }

    /// Calls `body` with the unescaped bytes of a string content range returned by
    /// ``readStringRange()`` (in place when it has no escapes).
    @inlinable
    func withStringBytes<R>(_ content: Range<Int>, hasEscapes: Bool, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if hasEscapes { return unescape(content).withUnsafeBufferPointer(body) }
        return body(UnsafeBufferPointer(rebasing: bytes[content]))
    }

    @inlinable
    mutating func readMemberName() throws(JSONError) -> MemberName {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else {
            throw JSONError("expected a member name", at: position)
        }
        let scanned = try scanString()
        let raw = UnsafeBufferPointer(rebasing: bytes[scanned.content])
        return MemberName(
            raw: raw, rawRange: scanned.content, decoded: scanned.hasEscapes ? unescape(scanned.content) : nil)
    }

    /// Validates one string (escapes, UTF-8, control characters) starting at the opening quote;
    /// returns the range between the quotes.
    ///
    /// Most strings are short and plain, and are done with one look at sixteen bytes: those
    /// after the quote, or the text's last sixteen when fewer are left.
    @inlinable
    mutating func scanString() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        try scanStringInlined()
    }

    /// ``scanString()``, inlined where it is called.
    @inline(__always)
    @inlinable
    mutating func scanStringInlined() throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        let start = position &+ 1  // after the opening quote (the quote is in the text)
        let count = bytes.count
        var plainEnd = start
        if start &+ 16 < count {
            // The sixteen bytes after the quote, all in the text, and one more after them: the
            // first special byte, if any, is in the text.
            let base = bytes.baseAddress.unsafelyUnwrapped  // a text of more than 16 bytes has one
            plainEnd = start &+ Self.firstSpecialByte(in: Self.specialBytes(at: UnsafeRawPointer(base + start)))
            if base[plainEnd] == UInt8(ascii: "\"") {
                position = plainEnd &+ 1
                return (Range(uncheckedBounds: (start, plainEnd)), false)
            }
        } else if count >= 16 {
            // The text's last sixteen bytes, from the string's start on.
            let base = bytes.baseAddress.unsafelyUnwrapped
            let chunkStart = count &- 16
            plainEnd =
                chunkStart
                &+ Self.firstSpecialByte(
                    in: Self.specialBytes(at: UnsafeRawPointer(base + chunkStart), from: start &- chunkStart))
            if plainEnd < count, base[plainEnd] == UInt8(ascii: "\"") {
                position = plainEnd &+ 1
                return (Range(uncheckedBounds: (start, plainEnd)), false)
            }
        }
        return try scanStringRest(start: start, plainUpTo: plainEnd)
    }

    /// Goes on with a string whose content starts at `start` and whose bytes before `plainUpTo`
    /// are plain (printable ASCII other than `"` and `\`).
    @usableFromInline
    mutating func scanStringRest(
        start: Int, plainUpTo: Int
    ) throws(JSONError) -> (content: Range<Int>, hasEscapes: Bool) {
        position = plainUpTo
        var hasEscapes = false
        let count = bytes.count
        while true {
            position = Self.plainRunEnd(in: bytes, from: position)
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

    /// The bytes of the sixteen at `chunk` that a string's content cannot hold as they are:
    /// below 0x20, at or above 0x80, `"` or `\`. A special byte's lane is all ones, the
    /// others' zero.
    ///
    /// Flipping bit 1 maps `"` (0x22) to 0x20, keeps the bytes below 0x20 below it and those at
    /// or above 0x80 negative, and maps no other byte below 0x24: one signed compare with 0x21
    /// finds all but the backslash, one more finds it. (The vector operands are spelled out as
    /// `SIMD16<Int8>`: the forms with a scalar operand compile to a loop over the lanes.)
    @inline(__always)
    @inlinable
    static func specialBytes(at chunk: UnsafeRawPointer) -> SIMD2<UInt64> {
        unsafeBitCast(specialLanes(at: chunk), to: SIMD2<UInt64>.self)
    }

    /// ``specialBytes(at:)`` of the sixteen bytes at `chunk` from offset `skip` on (those before
    /// it are not special).
    @inline(__always)
    @inlinable
    static func specialBytes(at chunk: UnsafeRawPointer, from skip: Int) -> SIMD2<UInt64> {
        let offsets = SIMD16<Int8>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let kept = offsets .>= SIMD16<Int8>(repeating: Int8(truncatingIfNeeded: skip))
        return unsafeBitCast(specialLanes(at: chunk) .& kept, to: SIMD2<UInt64>.self)
    }

    @inline(__always)
    @inlinable
    static func specialLanes(at chunk: UnsafeRawPointer) -> SIMDMask<SIMD16<Int8>> {
        let lanes = chunk.loadUnaligned(as: SIMD16<Int8>.self)
        return (lanes ^ SIMD16<Int8>(repeating: 0x02) .< SIMD16<Int8>(repeating: 0x21))
            .| (lanes .== SIMD16<Int8>(repeating: 0x5C))
    }

    /// The offset of the first special byte of a chunk's ``specialBytes(at:from:)``; 16 when
    /// there is none. (Read as little-endian, the words hold the lanes first lowest.)
    @inline(__always)
    @inlinable
    static func firstSpecialByte(in special: SIMD2<UInt64>) -> Int {
        let low = special[0].littleEndian
        if low != 0 { return low.trailingZeroBitCount &>> 3 }
        return 8 &+ special[1].littleEndian.trailingZeroBitCount &>> 3
    }

    /// The index of the first byte of `bytes` from `start` on that is below 0x20, at or above
    /// 0x80, `"` or `\` (`bytes.count` when there is none): the end of a run of string content
    /// that needs no closer look. Thirty-two bytes at a time, then sixteen (the last sixteen of
    /// the text for what is left after the others), or one at a time in a text shorter than
    /// sixteen bytes.
    @inlinable
    static func plainRunEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var index = start
        while index &+ 32 <= count {
            let first = specialBytes(at: raw + index)
            let second = specialBytes(at: raw + index + 16)
            let both = first | second
            if both[0] | both[1] != 0 {
                let offset = firstSpecialByte(in: first)
                return index &+ (offset < 16 ? offset : 16 &+ firstSpecialByte(in: second))
            }
            index &+= 32
        }
        while index &+ 16 <= count {
            let offset = firstSpecialByte(in: specialBytes(at: raw + index))
            if offset < 16 { return index &+ offset }
            index &+= 16
        }
        if index < count && count >= 16 {
            let chunkStart = count &- 16
            return chunkStart &+ firstSpecialByte(in: specialBytes(at: raw + chunkStart, from: index &- chunkStart))
        }
        while index < count {
            let byte = base[index]
            if byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C { return index }
            index &+= 1
        }
        return count
    }

    @inlinable
    mutating func scanEscape() throws(JSONError) {
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
                    bytes[position + 1] == UInt8(ascii: "u")
                else {
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

    @inlinable
    mutating func scanHex4() throws(JSONError) -> UInt32 {
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
    @inlinable
    func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: shortest form, no surrogates, ≤ U+10FFFF).
    @inlinable
    mutating func scanUTF8Sequence() throws(JSONError) {
        let lead = bytes[position]
        let remaining = bytes.count - position
        func continuation(_ offset: Int, _ low: UInt8 = 0x80, _ high: UInt8 = 0xBF) -> Bool {
            offset < remaining && bytes[position + offset] >= low && bytes[position + offset] <= high
        }
        let valid: Bool
        let length: Int
        switch lead {
        case 0xC2...0xDF:
            length = 2
            valid = continuation(1)
        case 0xE0:
            length = 3
            valid = continuation(1, 0xA0) && continuation(2)
        case 0xE1...0xEC, 0xEE...0xEF:
            length = 3
            valid = continuation(1) && continuation(2)
        case 0xED:
            length = 3
            valid = continuation(1, 0x80, 0x9F) && continuation(2)
        case 0xF0:
            length = 4
            valid = continuation(1, 0x90) && continuation(2) && continuation(3)
        case 0xF1...0xF3:
            length = 4
            valid = continuation(1) && continuation(2) && continuation(3)
        case 0xF4:
            length = 4
            valid = continuation(1, 0x80, 0x8F) && continuation(2) && continuation(3)
        default:
            length = 1
            valid = false
        }
        guard valid else { throw error("invalid UTF-8 in string") }
        position += length
    }

    /// Decodes the escapes of an already validated string body.
    @inlinable
    func unescape(_ range: Range<Int>) -> [UInt8] {
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
            default: output.append(escaped)  // " \ /
            }
        }
        return output
    }

    @inlinable
    func appendUTF8(_ scalar: UInt32, to output: inout [UInt8]) {
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

extension JSONReader {
    /// Validates the JSON string whose opening quote is at `quote` in `text` as ``readString()``
    /// does; returns the range of its content (between the quotes) and whether it holds
    /// escapes, or nil when it is not a valid string (reading `text` with a reader tells why).
    /// Inlined where it is called, but for what follows the first sixteen bytes of the string.
    @inline(__always)
    @inlinable
    package static func stringContent(
        in text: UnsafeBufferPointer<UInt8>, quoteAt quote: Int
    ) -> (content: Range<Int>, hasEscapes: Bool)? {
        var reader = JSONReader(text)
        reader.position = quote
        return try? reader.scanStringInlined()
    }
}
