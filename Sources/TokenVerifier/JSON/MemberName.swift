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

    @usableFromInline package var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

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

/// One of the few member names an object format reads, each at most six bytes of ASCII with no
/// `"` or `\`, so that its quoted form (`"iss"`) fits one 64-bit word: the reader recognises such
/// a name in the raw text with one masked compare, without scanning it as a string (see
/// ``JSONReader/readObject(knowing:_:)``).
@usableFromInline protocol KnownMemberName {
    /// The name whose quoted form is the start of `word`: the bytes from the opening quote, the
    /// first one lowest (``JSONReader/quotedWord(_:)``); nil when no name of the set is.
    init?(quoted word: UInt64)

    /// The name's length in bytes, without the quotes.
    var count: Int { get }

    /// The name, for the error that refuses it twice.
    var name: StaticString { get }

    /// A number below 64 of its own, for the duplicate check.
    var bit: Int { get }
}

extension JSONReader {
    /// The quoted form of `name` (at most six bytes) as ``KnownMemberName/init(quoted:)`` reads it:
    /// a quote, the bytes, a quote, the first byte lowest.
    @inline(__always)
    @inlinable
    static func quotedWord(_ name: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var word: UInt64 = 0x22
        for (index, byte) in name.enumerated() { word |= UInt64(byte) &<< UInt64(8 * (index + 1)) }
        return word | 0x22 &<< UInt64(8 * (name.count + 1))
    }
}
