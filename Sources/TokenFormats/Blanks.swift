// The blanks around a line (spec §6), for the line splitter and every JSON Lines reader.

/// Whether `byte` is a space, a tab or a carriage return: the blanks around a line (spec §6).
@inline(__always)
@inlinable
func isLineBlank(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D
}

/// `bytes` without the spaces, tabs and carriage returns around it.
@inline(__always)
@inlinable
package func trimmingBlanks(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    var start = 0
    var end = bytes.count
    while start < end, isLineBlank(bytes[start]) { start += 1 }
    while end > start, isLineBlank(bytes[end - 1]) { end -= 1 }
    return UnsafeBufferPointer(rebasing: bytes[start..<end])
}
