import TokenFormats
import TokenVerifier

/// The CWT claims map the tools write from JSON claims (spec §2b), ``CWTEncoding/claims(json:)``:
/// here, beside the JSON reader, so that the reader stays internal to TokenVerifier. The rest of a
/// CWT the tools sign (the protected header, the COSE_Sign1 message) is TokenTools' (CWTWriter).
package func cwtClaims(json: [UInt8]) throws(JSONError) -> [UInt8] {
    try CWTEncoding.claims(json: json)
}

/// The conversion behind ``cwtClaims(json:)``.
enum CWTEncoding {
    /// The CWT claims map of a JSON claims object: `iss`, `sub`, `aud`, `exp`, `nbf`, `iat` and
    /// `jti` become the keys 1–7 (`jti` as a text `cti`) and `status` the key 65535 (its members
    /// keep their text keys, spec §4c); other names stay text keys. Strings,
    /// arrays, objects, `true`, `false` and `null` keep their kind; an integer from −2^64 to
    /// 2^64 − 1 becomes the CBOR integer of that exact value (a larger one is refused), any other
    /// number the shortest float that holds it.
    static func claims(json: [UInt8]) throws(JSONError) -> [UInt8] {
        try json.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = JSONReader(buffer)
            guard reader.peekKind() == .object else { throw JSONError("the claims are not a JSON object", at: 0) }
            var writer = CBORWriter()
            try convert(&reader, to: &writer, isClaims: true)
            try reader.finish()
            return writer.bytes
        }
    }

    private static let claimKeys: [String: Int64] = [
        "iss": 1, "sub": 2, "aud": 3, "exp": 4, "nbf": 5, "iat": 6, "jti": 7, "status": 65535,
    ]

    private static func convert(
        _ reader: inout JSONReader, to writer: inout CBORWriter, isClaims: Bool = false
    ) throws(JSONError) {
        switch reader.peekKind() {
        case .object:
            var entries = CBORWriter()
            var count: UInt64 = 0
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                count += 1
                if isClaims, let key = claimKeys[name.string] {
                    entries.integer(key)
                } else {
                    entries.text(name.string)
                }
                try convert(&reader, to: &entries)
            }
            writer.head(major: 5, argument: count)
            writer.raw(entries.bytes)
        case .array:
            var items = CBORWriter()
            var count: UInt64 = 0
            try reader.readArray { (reader: inout JSONReader) throws(JSONError) in
                count += 1
                try convert(&reader, to: &items)
            }
            writer.head(major: 4, argument: count)
            writer.raw(items.bytes)
        case .string:
            writer.text(try reader.readString())
        case .number:
            let start = reader.position
            var probe = reader
            let (range, _) = try probe.scanNumber()
            if let integer = try integerHead(UnsafeBufferPointer(rebasing: reader.bytes[range]), at: start) {
                writer.head(major: integer.major, argument: integer.argument)
                reader = probe
                return
            }
            let value = try reader.readNumber()
            guard value.isFinite else { throw JSONError("number out of range", at: start) }
            writer.float(value)
        case .bool:
            writer.raw([try reader.readBool() ? 0xF5 : 0xF4])
        case .null:
            try reader.readLiteral("null")
            writer.raw([0xF6])
        case .invalid:
            throw reader.unexpected()
        }
    }
}

extension CWTEncoding {
    /// The CBOR head of the JSON integer `literal` (`-`? digits, as scanned), exact: major type 0
    /// and the value, or major type 1 and −1 − value. Nil for a number with a fraction or an
    /// exponent; beyond −2^64 … 2^64 − 1 an error.
    static func integerHead(
        _ literal: UnsafeBufferPointer<UInt8>, at offset: Int
    ) throws(JSONError) -> (major: UInt8, argument: UInt64)? {
        if literal.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            return nil
        }
        let negative = literal.first == UInt8(ascii: "-")
        var magnitude: UInt64 = 0
        var overflowed = false
        for digit in literal.dropFirst(negative ? 1 : 0) {
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            overflowed = overflowed || o1 || o2
            magnitude = sum
        }
        if !negative {
            guard !overflowed else { throw JSONError("integer above 2^64 − 1", at: offset) }
            return (0, magnitude)
        }
        // −2^64 is the one magnitude that overflows by exactly one: 2^64 wraps to 0.
        if overflowed {
            guard literal.dropFirst().elementsEqual("18446744073709551616".utf8) else {
                throw JSONError("integer below −2^64", at: offset)
            }
            return (1, UInt64.max)
        }
        return magnitude == 0 ? (0, 0) : (1, magnitude - 1)
    }
}
