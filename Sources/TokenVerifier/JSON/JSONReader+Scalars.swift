extension JSONReader {
    // MARK: - Scalars

    /// Reads `true` or `false`.
    @inlinable
    package mutating func readBool() throws(JSONError) -> Bool {
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

    @inlinable
    package mutating func readLiteral(_ literal: StaticString) throws(JSONError) {
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
    @inlinable
    package mutating func readNumber() throws(JSONError) -> Double {
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

    /// Reads a number written as 1 to 15 digits, the first not 0, with no sign, fraction or
    /// exponent (a NumericDate as tokens write it), to the value ``readNumber()`` reads; nil,
    /// having read nothing, for any other value.
    @inline(__always)
    @inlinable
    mutating func readPlainInteger() -> Double? {
        let start = position
        skipWhitespace()
        let first = position
        // Eight digits at a time while eight bytes can be read; the rest one at a time.
        var index = first
        var value: UInt64 = 0
        if let base = bytes.baseAddress {
            while index + 8 <= bytes.count {
                let chunk = Self.leadingDigits(
                    UInt64(littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)))
                value = value &* Self.powersOfTen(chunk.count) &+ chunk.value
                index += chunk.count
                if chunk.count < 8 || index - first > 15 { break }
            }
        }
        if index + 8 > bytes.count {
            while index < bytes.count, index - first < 16 {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                value = value &* 10 &+ UInt64(digit)
                index += 1
            }
        }
        let digits = index - first
        guard digits >= 1, digits <= 15, bytes[first] != UInt8(ascii: "0"),
            index == bytes.count
                || (bytes[index] != UInt8(ascii: ".") && bytes[index] | 0x20 != UInt8(ascii: "e"))
        else {
            position = start
            return nil
        }
        position = index
        return Double(Int64(value))
    }

    /// How many of the eight bytes of `word` (the first one lowest) are ASCII digits before the
    /// first that is not, and the number they write.
    @inline(__always)
    @inlinable
    static func leadingDigits(_ word: UInt64) -> (count: Int, value: UInt64) {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let digits = word &- ones &* 0x30
        // A byte below "0" wraps to 0x80 or above, one above "9" reaches 0x80 with 0x76 added;
        // a borrow or a carry only reaches the bytes after the first such byte.
        let notDigit = (digits | (digits &+ ones &* 0x76)) & (ones &* 0x80)
        let count = notDigit.trailingZeroBitCount >> 3
        guard count > 0 else { return (0, 0) }
        // The digits moved to the top bytes (zeros before them), then paired, twice.
        var value = digits &<< UInt64(64 - 8 * count)
        value = (value &* 10 &+ (value &>> 8)) & 0x00FF_00FF_00FF_00FF
        value = (value &* 100 &+ (value &>> 16)) & 0x0000_FFFF_0000_FFFF
        value = (value &* 10000 &+ (value &>> 32)) & 0xFFFF_FFFF
        return (count, value)
    }

    /// 10 to the power `exponent`, 0 to 8.
    @inline(__always)
    @inlinable
    static func powersOfTen(_ exponent: Int) -> UInt64 {
        switch exponent {
        case 0: 1
        case 1: 10
        case 2: 100
        case 3: 1000
        case 4: 10000
        case 5: 100_000
        case 6: 1_000_000
        case 7: 10_000_000
        default: 100_000_000
        }
    }

    /// Reads a non-negative integer written with digits only (no sign, fraction or exponent) that
    /// fits a `UInt64`: an index.
    mutating func readIndex(member: @autoclosure () -> String) throws(JSONError) -> UInt64 {
        let start = position
        guard peekKind() == .number else { throw JSONError("\(member()) must be a non-negative integer", at: start) }
        let (range, _) = try scanNumber()
        var value: UInt64 = 0
        for index in range {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { throw JSONError("\(member()) must be a non-negative integer", at: start) }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
            guard !overflow, !carry else { throw JSONError("\(member()) is out of range", at: start) }
            value = sum
        }
        return value
    }

    /// Checks the RFC 8259 number grammar; tells whether it is an integer of at most 15 digits.
    @inlinable
    package mutating func scanNumber() throws(JSONError) -> (Range<Int>, Bool) {
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
    @inlinable
    func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
