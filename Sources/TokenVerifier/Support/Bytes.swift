#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Byte helpers shared by every layer: comparisons and searches (the blank trimming of spec §6
// is TokenFormats's, beside the line splitter).
// Every string of a token, a request and a key is compared by its UTF-8 bytes, never as a
// `String` (no Unicode equivalence).

/// Whether two byte buffers hold the same bytes.
@inline(__always)
@inlinable
func bytesEqual(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
    guard left.count == right.count else { return false }
    for index in 0..<left.count where left[index] != right[index] { return false }
    return true
}

/// Calls `body` with the UTF-8 of `string` (without copying a native string).
@inline(__always)
@inlinable
func withUTF8<R>(of string: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
    if let result = string.utf8.withContiguousStorageIfAvailable(body) { return result }
    return Array(string.utf8).withUnsafeBufferPointer(body)
}

/// The first index of `byte` in `buffer` at or after `start` (memchr: vectorised).
@inline(__always)
@inlinable
func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
    guard start < buffer.count, let base = buffer.baseAddress else { return nil }
    guard let found = memchr(base + start, Int32(byte), buffer.count - start) else { return nil }
    return UnsafeRawPointer(found) - UnsafeRawPointer(base)
}
