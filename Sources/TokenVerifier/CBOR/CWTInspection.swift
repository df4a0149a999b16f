import TokenEncoding

/// A CWT decoded for a person to read (`tokenverify inspect`), nothing verified: the COSE
/// headers and the claims as one JSON object. Known labels are named (`"alg (1)"`, `"iss (1)"`),
/// byte strings are written as base64url, tags as `{"tag": N, "value": …}`.
///
/// For showing a token to a person only: the bytes are read with the same strict CBOR rules as
/// verification, but no signature, key, time or revocation is checked.
public enum CWTInspection {
    /// The JSON members `"protected":…,"unprotected":…,"claims":…,"signature_bytes":N` of the
    /// CWT written as `token` (base64url), or why it could not be read.
    public static func members(of token: [UInt8]) -> Result<[UInt8], CBORError> {
        guard let cbor = Base64URL.decode(token) else { return .failure(CBORError("not canonical base64url", at: 0)) }
        return cbor.withUnsafeBufferPointer { (bytes) -> Result<[UInt8], CBORError> in
            do throws(CBORError) {
                let message = try COSESign1(bytes)
                var writer = JSONWriter()
                writer.raw("\"protected\":")
                if message.protected.isEmpty {
                    writer.raw("{}")
                } else {
                    var reader = CBORReader(UnsafeBufferPointer(rebasing: bytes[message.protected]))
                    try write(&reader, to: &writer, labels: headerLabels)
                    try reader.finish()
                }
                writer.raw(",\"unprotected\":")
                var reader = CBORReader(bytes, at: message.unprotectedStart)
                try write(&reader, to: &writer, labels: headerLabels)
                writer.raw(",\"claims\":")
                var claimsReader = CBORReader(UnsafeBufferPointer(rebasing: bytes[message.payload]))
                try write(&claimsReader, to: &writer, labels: claimLabels)
                try claimsReader.finish()
                writer.raw(",\"signature_bytes\":")
                writer.integer(message.signature.count)
                return .success(writer.bytes)
            } catch {
                return .failure(error)
            }
        }
    }

    private static let headerLabels: [Int64: String] = [1: "alg", 2: "crit", 3: "content type", 4: "kid", 16: "typ"]
    private static let claimLabels: [Int64: String] = [
        1: "iss", 2: "sub", 3: "aud", 4: "exp", 5: "nbf", 6: "iat", 7: "cti", 65533: "status_list", 65534: "ttl",
        65535: "status",
    ]

    /// Writes one item as JSON; `labels` names the integer keys of a top-level map.
    private static func write(
        _ reader: inout CBORReader, to writer: inout JSONWriter, labels: [Int64: String] = [:]
    ) throws(CBORError) {
        guard let major = reader.peekMajor() else { throw reader.error("the CBOR ends inside an item") }
        switch major {
        case .unsigned, .negative:
            // Exact from −2^64 to 2^64 − 1: the argument n is the value, or −1 − n.
            let head = try reader.readHead()
            let text =
                head.major == .unsigned
                ? String(head.argument)
                : head.argument == .max ? "-18446744073709551616" : "-" + String(head.argument + 1)
            writer.raw(Array(text.utf8))
        case .bytes:
            writer.string(Base64URL.encodeString(reader.bytes[try reader.readByteString()]))
        case .text:
            writer.string(utf8: UnsafeBufferPointer(rebasing: reader.bytes[try reader.readTextString()]))
        case .array:
            let count = try reader.readArrayCount()
            writer.raw("[")
            for index in 0..<count {
                if index > 0 { writer.raw(",") }
                try write(&reader, to: &writer)
            }
            writer.raw("]")
        case .map:
            writer.raw("{")
            var first = true
            try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
                if !first { writer.raw(",") }
                first = false
                switch key {
                case .integer(let label): writer.key(labels[label].map { "\($0) (\(label))" } ?? String(label))
                case .text(let range):
                    writer.key(String(decoding: UnsafeBufferPointer(rebasing: reader.bytes[range]), as: UTF8.self))
                case .otherInteger: writer.key("integer beyond 64 bits")
                }
                try write(&reader, to: &writer)
            }
            writer.raw("}")
        case .tag:
            var probe = reader
            let tag = try probe.readHead().argument
            try reader.skipItem()
            var inner = CBORReader(UnsafeBufferPointer(rebasing: reader.bytes[probe.position..<reader.position]))
            writer.raw("{\"tag\":")
            writer.raw(Array(String(tag).utf8))
            writer.raw(",\"value\":")
            try write(&inner, to: &writer)
            writer.raw("}")
        case .simple:
            let head = try reader.readHead()
            switch (head.info, head.argument) {
            case (20, _): writer.raw("false")
            case (21, _): writer.raw("true")
            case (22, _): writer.raw("null")
            case (23, _): writer.string("undefined")
            case (25...27, let bits):
                let value =
                    head.info == 25
                    ? Double(Float16(bitPattern: UInt16(bits)))
                    : head.info == 26 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)
                if value.isFinite { writer.number(value) } else { writer.string(String(value)) }
            default: throw reader.error("simple value \(head.argument) is not accepted")
            }
        }
    }
}
