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
    @inlinable
    mutating func raw(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= buffer.count - count, "JSON text beyond its bound")
        if bytes.count > 0 { (buffer.baseAddress! + count).update(from: bytes.baseAddress!, count: bytes.count) }
        count += bytes.count
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
    mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
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
        var digits = 1
        var power: UInt64 = 10
        while digits < 20 && magnitude >= power {
            digits += 1
            power = power &* 10
        }
        precondition(digits <= buffer.count - count, "JSON text beyond its bound")
        var at = count + digits
        repeat {
            at -= 1
            buffer[at] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
            magnitude /= 10
        } while magnitude != 0
        count += digits
    }

    /// Appends a number as ``JSONWriter/number(_:)`` does: at most 24 bytes.
    @inlinable
    mutating func number(_ value: Double) {
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
