/// A member name as read: the raw bytes between the quotes, and the unescaped bytes when the
/// name held escapes.
@usableFromInline package struct MemberName {
    @usableFromInline let raw: UnsafeBufferPointer<UInt8>
    /// Where `raw` lies in the reader's text.
    @usableFromInline let rawRange: Range<Int>
    @usableFromInline let decoded: [UInt8]?

    @usableFromInline init(raw: UnsafeBufferPointer<UInt8>, rawRange: Range<Int>, decoded: [UInt8]?) {
        self.raw = raw
        self.rawRange = rawRange
        self.decoded = decoded
    }

    /// The name's bytes after unescaping.
    @inline(__always)
    @inlinable
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let decoded { return decoded.withUnsafeBufferPointer(body) }
        return body(raw)
    }

    @usableFromInline var byteArray: [UInt8] { decoded ?? Array(raw) }

    @usableFromInline var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

    /// Whether the name is exactly `literal`.
    @inline(__always)
    @inlinable
    package func equals(_ literal: StaticString) -> Bool {
        withBytes { bytes in
            literal.withUTF8Buffer { expected in
                bytesEqual(bytes, expected)
            }
        }
    }
}
