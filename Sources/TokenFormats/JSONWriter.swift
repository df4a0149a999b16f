/// Appends JSON text to a byte buffer: the small writer behind output lines, JWKs and tokens.
@usableFromInline package struct JSONWriter {
    /// The text written so far.
    @usableFromInline package var bytes: [UInt8] = []

    package init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// Appends raw JSON text (already valid JSON).
    @inline(__always)
    @inlinable
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends raw JSON bytes (already valid JSON).
    @inlinable
    package mutating func raw(_ text: some Collection<UInt8>) {
        bytes.append(contentsOf: text)
    }

    /// Calls `body` with each run of valid JSON text `json` between the white space outside its
    /// strings: the runs, back to back, are the text minified.
    @inline(__always)
    @inlinable
    package static func forEachMinifiedRun(
        _ json: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) {
        var inString = false
        var escaped = false
        var runStart = 0
        for index in 0..<json.count {
            let byte = json[index]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D:
                if index > runStart { body(UnsafeBufferPointer(rebasing: json[runStart..<index])) }
                runStart = index + 1
            case UInt8(ascii: "\""):
                inString = true
            default:
                break
            }
        }
        if json.count > runStart { body(UnsafeBufferPointer(rebasing: json[runStart...])) }
    }

    /// Appends valid JSON text without the white space between its tokens.
    @inlinable
    package mutating func minified(_ json: UnsafeBufferPointer<UInt8>) {
        JSONWriter.forEachMinifiedRun(json) { bytes.append(contentsOf: $0) }
    }

    /// Appends a JSON string, escaping `"`, `\` and control characters.
    @inlinable
    package mutating func string(_ value: String) {
        if value.utf8.withContiguousStorageIfAvailable({ string(utf8: $0) }) != nil { return }
        Array(value.utf8).withUnsafeBufferPointer { string(utf8: $0) }
    }

    /// Appends a JSON string holding `utf8` (valid UTF-8), escaping as ``string(_:)`` does.
    @inlinable
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        Self.forEachEscapedPiece(utf8) { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Calls `body` with the pieces of the JSON string content of `utf8` (valid UTF-8), in order:
    /// runs of bytes that need no escape, and the escape of each byte that does (`\"`, `\\`, `\n`,
    /// `\r`, `\t`, `\u00XX`; at most 6 bytes for one input byte). Scans eight bytes at a time while
    /// none of them needs an escape.
    @inline(__always)
    @inlinable
    static func forEachEscapedPiece(_ utf8: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if !needsEscape(utf8) {
            if !utf8.isEmpty { body(utf8) }
            return
        }
        var runStart = 0
        var index = 0
        while index < utf8.count {
            if index + 8 <= utf8.count, let base = utf8.baseAddress {
                let word = UnsafeRawPointer(base).loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let escaped = bytesToEscape(UInt64(littleEndian: word))
                if escaped == 0 {
                    index += 8
                    continue
                }
                index += escaped.trailingZeroBitCount >> 3
            }
            let at = index
            let value = utf8[at]
            index += 1
            guard value < 0x20 || value == 0x22 || value == 0x5C else { continue }
            if at > runStart { body(UnsafeBufferPointer(rebasing: utf8[runStart..<at])) }
            runStart = at + 1
            // `\` and the escaped form: the byte itself, a letter, or u00 and two hex digits.
            func hex(_ digit: UInt8) -> UInt8 { digit < 10 ? 0x30 + digit : 0x57 + digit }
            var escape: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
                0x5C, value, 0x30, 0x30, hex(value >> 4), hex(value & 0xF)
            )
            var length = 2
            switch value {
            case 0x22, 0x5C: break
            case 0x0A: escape.1 = UInt8(ascii: "n")
            case 0x0D: escape.1 = UInt8(ascii: "r")
            case 0x09: escape.1 = UInt8(ascii: "t")
            default:
                escape.1 = UInt8(ascii: "u")
                length = 6
            }
            withUnsafeBytes(of: &escape) {
                body(UnsafeBufferPointer(rebasing: $0.bindMemory(to: UInt8.self)[..<length]))
            }
        }
        if utf8.count > runStart { body(UnsafeBufferPointer(rebasing: utf8[runStart...])) }
    }

    /// Whether any byte of `utf8` is below 0x20, `"` or `\`: a few word loads for a short
    /// string (the first and last eight bytes overlap rather than falling back to bytes).
    @inline(__always)
    @inlinable
    static func needsEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = utf8.count
        guard let base = utf8.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        func word(_ offset: Int) -> UInt64 {
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        }
        if count >= 8 {
            var found: UInt64 = 0
            var offset = 0
            while offset + 8 < count {
                found |= bytesToEscape(word(offset))
                offset += 8
            }
            return (found | bytesToEscape(word(count - 8))) != 0
        }
        // Fewer than eight bytes: one word of them, padded with `A`s (which need no escape).
        var padded: UInt64 = 0x4141_4141_4141_4141
        if count >= 4 {
            let low = UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self))
            let high = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
            padded = UInt64(low) | UInt64(high) << 32
        } else {
            for index in 0..<count {
                padded = padded & ~(0xFF << UInt64(index * 8)) | UInt64(base[index]) << UInt64(index * 8)
            }
        }
        return bytesToEscape(padded) != 0
    }

    /// The high bit of each byte of `word` (first byte lowest) that is below 0x20, `"` or `\`;
    /// bits above the lowest one set may be false alarms (a borrow carried from a byte to escape),
    /// the lowest one never is.
    @inline(__always)
    @inlinable
    static func bytesToEscape(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let control = (word &- ones &* 0x20) & ~word
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & (ones &* 0x80)
    }

    /// Appends a number: an integer when the value is integral (and not huge), else a decimal
    /// (as ``formatNumericDate(_:)`` writes it, without making a String for an integer).
    @inlinable
    package mutating func number(_ value: Double) {
        if value == value.rounded(), abs(value) < 9.0e15 { return integer(Int64(value)) }
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Appends an integer.
    @inlinable
    package mutating func integer(_ value: Int) {
        integer(Int64(value))
    }

    /// Appends an integer's decimal digits, written straight into the buffer.
    @inlinable
    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold any UInt64; they are made from the last one back.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Appends `"name":`.
    @inlinable
    package mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends an array of strings.
    @inlinable
    package mutating func strings(_ values: [String]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            string(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }
}
