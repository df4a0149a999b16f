import TokenFormats
import TokenVerifier

/// A CWT as JSON for a person to read (`tokenverify inspect`), nothing verified: the COSE
/// headers and the claims of ``COSESign1Contents`` as one JSON object's members. Known labels are
/// named (`"alg (1)"`, `"iss (1)"`), byte strings are written as base64url, tags as
/// `{"tag": N, "value": …}`, integers exactly from −2^64 to 2^64 − 1.
package enum CWTInspection {
    /// The JSON members `"protected":…,"unprotected":…,"claims":…,"signature_bytes":N` of the
    /// CWT written as `token` (base64url), or why it could not be read.
    package static func members(of token: [UInt8]) -> Result<[UInt8], CBORError> {
        COSESign1Contents.decode(cwt: token).map { contents in
            var writer = JSONWriter()
            writer.raw("\"protected\":")
            write(contents.protected, to: &writer, labels: headerLabels)
            writer.raw(",\"unprotected\":")
            write(contents.unprotected, to: &writer, labels: headerLabels)
            writer.raw(",\"claims\":")
            write(contents.payload, to: &writer, labels: claimLabels)
            writer.raw(",\"signature_bytes\":")
            writer.integer(contents.signatureByteCount)
            return writer.bytes
        }
    }

    private static let headerLabels: [Int64: String] = [1: "alg", 2: "crit", 3: "content type", 4: "kid", 16: "typ"]
    private static let claimLabels: [Int64: String] = [
        1: "iss", 2: "sub", 3: "aud", 4: "exp", 5: "nbf", 6: "iat", 7: "cti", 65533: "status_list", 65534: "ttl",
        65535: "status",
    ]

    /// Writes one value as JSON; `labels` names the integer keys of a top-level map.
    private static func write(_ value: CBORValue, to writer: inout JSONWriter, labels: [Int64: String] = [:]) {
        switch value {
        case .unsigned(let n): writer.raw(Array(String(n).utf8))
        case .negative(let n): writer.raw(Array((n == .max ? "-18446744073709551616" : "-" + String(n + 1)).utf8))
        case .bytes(let bytes): writer.string(Base64URL.encodeString(bytes))
        case .text(let text): writer.string(text)
        case .array(let items):
            writer.raw("[")
            for (index, item) in items.enumerated() {
                if index > 0 { writer.raw(",") }
                write(item, to: &writer)
            }
            writer.raw("]")
        case .map(let entries):
            writer.raw("{")
            for (index, entry) in entries.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(name(of: entry.key, labels: labels))
                write(entry.value, to: &writer)
            }
            writer.raw("}")
        case .tagged(let tag, let inner):
            writer.raw("{\"tag\":")
            writer.raw(Array(String(tag).utf8))
            writer.raw(",\"value\":")
            write(inner, to: &writer)
            writer.raw("}")
        case .bool(let flag): writer.raw(flag ? "true" : "false")
        case .null: writer.raw("null")
        case .undefined: writer.string("undefined")
        case .float(let number): if number.isFinite { writer.number(number) } else { writer.string(String(number)) }
        }
    }

    private static func name(of key: CBORMapEntry.Key, labels: [Int64: String]) -> String {
        switch key {
        case .integer(let label): labels[label].map { "\($0) (\(label))" } ?? String(label)
        case .text(let text): text
        case .integerBeyond64Bits: "integer beyond 64 bits"
        }
    }
}
