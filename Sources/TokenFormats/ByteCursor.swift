/// Writes JSON text into a buffer sized beforehand (``JSONWriter/append(upTo:_:)``): the same
/// text as ``JSONWriter``'s methods write, with plain stores instead of an array append for each
/// piece. Writing past the buffer's end is a precondition failure.
@usableFromInline package struct ByteCursor {
    @usableFromInline let buffer: UnsafeMutableBufferPointer<UInt8>
    /// The bytes written so far, from the buffer's start.
    @usableFromInline package private(set) var count = 0

    @inlinable init(_ buffer: UnsafeMutableBufferPointer<UInt8>) {
        self.buffer = buffer
    }

    /// Appends raw JSON text (already valid JSON).
    @inlinable @inline(__always)
    package mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { raw($0) }
    }

    /// Appends raw bytes.
    @inlinable @inline(__always)
    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= buffer.count - count, "JSON text beyond its bound")
        if let source = bytes.baseAddress { Self.copy(source, to: buffer.baseAddress! + count, count: bytes.count) }
        count += bytes.count
    }

    /// Copies `count` bytes: up to 32 with a few overlapping word moves (the pieces of an answer
    /// are short, and a call of `memcpy` costs more than they do), longer ones with `memcpy`.
    @inline(__always)
    @inlinable
    static func copy(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count: Int) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(target)
        if count >= 8 && count <= 16 {
            let first = from.loadUnaligned(as: UInt64.self)
            let last = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: first, as: UInt64.self)
            to.storeBytes(of: last, toByteOffset: count - 8, as: UInt64.self)
        } else if count > 16 && count <= 32 {
            let first = from.loadUnaligned(as: (UInt64, UInt64).self)
            let last = from.loadUnaligned(fromByteOffset: count - 16, as: (UInt64, UInt64).self)
            to.storeBytes(of: first, as: (UInt64, UInt64).self)
            to.storeBytes(of: last, toByteOffset: count - 16, as: (UInt64, UInt64).self)
        } else if count >= 4 && count < 8 {
            let first = from.loadUnaligned(as: UInt32.self)
            let last = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: first, as: UInt32.self)
            to.storeBytes(of: last, toByteOffset: count - 4, as: UInt32.self)
        } else if count > 0 && count < 4 {
            target[0] = source[0]
            target[count >> 1] = source[count >> 1]
            target[count - 1] = source[count - 1]
        } else if count > 32 {
            target.update(from: source, count: count)
        }
    }

    @inlinable @inline(__always)
    mutating func byte(_ byte: UInt8) {
        precondition(count < buffer.count, "JSON text beyond its bound")
        buffer[count] = byte
        count += 1
    }

    /// Appends a JSON string holding `utf8` (valid UTF-8), escaping as ``JSONWriter/string(utf8:)``
    /// does: at most `6 * utf8.count + 2` bytes.
    @inlinable
    package mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
        if !JSONWriter.needsEscape(utf8) {
            precondition(utf8.count + 2 <= buffer.count - count, "JSON text beyond its bound")
            let target = buffer.baseAddress! + count
            target[0] = UInt8(ascii: "\"")
            if let source = utf8.baseAddress { Self.copy(source, to: target + 1, count: utf8.count) }
            target[utf8.count + 1] = UInt8(ascii: "\"")
            count += utf8.count + 2
            return
        }
        byte(UInt8(ascii: "\""))
        JSONWriter.forEachEscapedPiece(utf8) { raw($0) }
        byte(UInt8(ascii: "\""))
    }

    /// Appends valid JSON text without the white space between its tokens, as
    /// ``JSONWriter/minified(_:)`` does: at most `json.count` bytes.
    @inlinable
    package mutating func minified(_ json: UnsafeBufferPointer<UInt8>) {
        JSONWriter.forEachMinifiedRun(json) { raw($0) }
    }

    /// Appends an integer's decimal digits: at most 20 bytes.
    @inlinable
    package mutating func integer(_ value: Int64) {
        if value < 0 { byte(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // The number of digits from the number of bits (an estimate one too low at most), then
        // two digits at a time from the last pair back.
        let estimate = ((64 - magnitude.leadingZeroBitCount) * 1233) >> 12
        let digits = estimate + 1 - (magnitude < Self.powersOfTen[estimate] ? 1 : 0)
        let digitCount = max(1, digits)
        precondition(digitCount <= buffer.count - count, "JSON text beyond its bound")
        let target = buffer.baseAddress! + count
        var at = digitCount
        Self.digitPairs.withUTF8Buffer { pairs in
            while magnitude >= 100 {
                let pair = Int(magnitude % 100) &* 2
                magnitude /= 100
                at -= 2
                target[at] = pairs[pair]
                target[at + 1] = pairs[pair + 1]
            }
            if magnitude >= 10 {
                let pair = Int(magnitude) &* 2
                target[at - 2] = pairs[pair]
                target[at - 1] = pairs[pair + 1]
            } else {
                target[at - 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            }
        }
        count += digitCount
    }

    /// 10⁰ to 10¹⁹, for counting an integer's digits.
    @usableFromInline static let powersOfTen: [UInt64] = (0..<20).map { exponent in
        (0..<exponent).reduce(1) { power, _ in power * 10 }
    }

    /// "00" to "99", two bytes each.
    @usableFromInline static let digitPairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    /// Appends a number as ``JSONWriter/number(_:)`` does: at most 24 bytes.
    @inlinable
    package mutating func number(_ value: Double) {
        if value == value.rounded(), abs(value) < 9.0e15 { return integer(Int64(value)) }
        var text = String(value)
        text.withUTF8 { raw($0) }
    }
}

extension JSONWriter {
    /// Appends what `body` writes through a cursor, at most `maxCount` bytes, in one append
    /// (the cursor writes into a temporary buffer, on the stack when small).
    @inlinable
    package mutating func append(upTo maxCount: Int, _ body: (inout ByteCursor) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { buffer in
            var cursor = ByteCursor(buffer)
            body(&cursor)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<cursor.count]))
        }
    }
}
