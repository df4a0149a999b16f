import TokenVerifier

/// One CBOR data item decoded to a value, for a person or a tool to read: what
/// ``COSESign1Contents`` holds. Decoded with the verifier's strict rules (spec §2b): definite
/// lengths, valid UTF-8, map keys that are integers or text strings and none twice, simple values
/// `false`, `true`, `null` and `undefined` only, nesting no deeper than 128.
package indirect enum CBORValue: Sendable, Equatable {
    /// An unsigned integer (major type 0).
    case unsigned(UInt64)
    /// A negative integer (major type 1): the value is −1 − n.
    case negative(UInt64)
    case bytes([UInt8])
    case text(String)
    case array([CBORValue])
    /// A map's entries in the order written.
    case map([CBORMapEntry])
    case tagged(UInt64, CBORValue)
    case bool(Bool)
    case null
    case undefined
    /// A half, single or double precision float.
    case float(Double)
}

/// One entry of a ``CBORValue/map(_:)``.
package struct CBORMapEntry: Sendable, Equatable {
    /// A map key as the verifier reads it.
    package enum Key: Sendable, Equatable {
        /// An integer key that fits an `Int64`.
        case integer(Int64)
        case text(String)
        /// An integer key beyond `Int64`.
        case integerBeyond64Bits
    }

    package var key: Key
    package var value: CBORValue

    package init(key: Key, value: CBORValue) {
        self.key = key
        self.value = value
    }
}

extension CBORValue {
    /// Decodes the one item at the reader's position and everything nested in it.
    static func read(_ reader: inout CBORReader, depth: Int = 0) throws(CBORError) -> CBORValue {
        guard depth < CBORReader.maximumDepth else { throw reader.error("the CBOR nests deeper than 128") }
        guard let major = reader.peekMajor() else { throw reader.error("the CBOR ends inside an item") }
        switch major {
        case .unsigned, .negative:
            let head = try reader.readHead()
            return head.major == .unsigned ? .unsigned(head.argument) : .negative(head.argument)
        case .bytes:
            return .bytes(Array(reader.bytes[try reader.readByteString()]))
        case .text:
            return .text(
                String(
                    decoding: UnsafeBufferPointer(rebasing: reader.bytes[try reader.readTextString()]), as: UTF8.self))
        case .array:
            let count = try reader.readArrayCount()
            var items: [CBORValue] = []
            for _ in 0..<count { items.append(try read(&reader, depth: depth + 1)) }
            return .array(items)
        case .map:
            var entries: [CBORMapEntry] = []
            try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
                entries.append(
                    CBORMapEntry(key: CBORMapEntry.Key(key, in: reader), value: try read(&reader, depth: depth + 1)))
            }
            return .map(entries)
        case .tag:
            let tag = try reader.readHead().argument
            return .tagged(tag, try read(&reader, depth: depth + 1))
        case .simple:
            return try simple(&reader)
        }
    }

    /// `false`, `true`, `null`, `undefined` or a float.
    private static func simple(_ reader: inout CBORReader) throws(CBORError) -> CBORValue {
        let head = try reader.readHead()
        switch head.info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 25: return .float(Double(Float16(bitPattern: UInt16(head.argument))))
        case 26: return .float(Double(Float(bitPattern: UInt32(head.argument))))
        case 27: return .float(Double(bitPattern: head.argument))
        default: throw reader.error("simple value \(head.argument) is not accepted")
        }
    }
}

extension CBORMapEntry.Key {
    init(_ key: CBORReader.Key, in reader: CBORReader) {
        switch key {
        case .integer(let value): self = .integer(value)
        case .text(let range):
            self = .text(String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[range]), as: UTF8.self))
        case .otherInteger: self = .integerBeyond64Bits
        }
    }
}
