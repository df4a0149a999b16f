/// The CBOR the tools write for a CWT (spec §2b): the claims map from JSON claims, the protected
/// header, the Sig_structure and the tagged COSE_Sign1 message. Here, beside the reader, so that
/// the JSON reader and the CBOR writer stay internal to TokenVerifier; signing is the tools' part.
package enum CWTEncoding {
    /// The protected header `{1: alg, 4: h'kid'}`, and `16: type` when given, encoded.
    package static func protectedHeader(algorithm: Int64, keyID: String, type: String? = nil) -> [UInt8] {
        var writer = CBORWriter()
        writer.head(major: 5, argument: type == nil ? 2 : 3)
        writer.integer(1)
        writer.integer(algorithm)
        writer.integer(4)
        writer.byteString(Array(keyID.utf8))
        if let type {
            writer.integer(16)
            writer.text(type)
        }
        return writer.bytes
    }

    /// The COSE_Sign1 message under tag 18, `[protected, unprotected (CBOR map bytes), presented
    /// payload, signature]`, where `sign` signs the Sig_structure `["Signature1", protected, h'',
    /// payload]` (`presentedPayload` differs from `payload` only in a tampered test token).
    package static func signedMessage(
        protected: [UInt8], unprotected: [UInt8], payload: [UInt8], presentedPayload: [UInt8],
        sign: ([UInt8]) -> [UInt8]
    ) -> [UInt8] {
        let structure = signatureStructure(protected: protected, payload: payload)
        return message(
            protected: protected, unprotected: unprotected, payload: presentedPayload, signature: sign(structure))
    }

    /// The Sig_structure `["Signature1", protected, h'', payload]` that the signature covers.
    static func signatureStructure(protected: [UInt8], payload: [UInt8]) -> [UInt8] {
        var structure = [UInt8](
            repeating: 0, count: CBORWriter.signatureStructureLength(protected: protected.count, payload: payload.count)
        )
        protected.withUnsafeBufferPointer { protectedBytes in
            payload.withUnsafeBufferPointer { payloadBytes in
                _ = structure.withUnsafeMutableBufferPointer {
                    CBORWriter.writeSignatureStructure(
                        protected: protectedBytes, payload: payloadBytes, to: $0.baseAddress!)
                }
            }
        }
        return structure
    }

    /// The COSE_Sign1 message under tag 18: `[protected, unprotected (CBOR map bytes), payload, signature]`.
    static func message(protected: [UInt8], unprotected: [UInt8], payload: [UInt8], signature: [UInt8]) -> [UInt8] {
        var writer = CBORWriter()
        writer.head(major: 6, argument: 18)
        writer.head(major: 4, argument: 4)
        writer.byteString(protected)
        writer.raw(unprotected)
        writer.byteString(payload)
        writer.byteString(signature)
        return writer.bytes
    }

    /// The CWT claims map of a JSON claims object: `iss`, `sub`, `aud`, `exp`, `nbf`, `iat` and
    /// `jti` become the keys 1–7 (`jti` as a text `cti`) and `status` the key 65535 (its members
    /// keep their text keys, spec §4c); other names stay text keys. Strings,
    /// arrays, objects, `true`, `false` and `null` keep their kind; an integer from −2^64 to
    /// 2^64 − 1 becomes the CBOR integer of that exact value (a larger one is refused), any other
    /// number the shortest float that holds it.
    package static func claims(json: [UInt8]) throws(JSONError) -> [UInt8] {
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

    /// The protected header of a CWT Status List Token: `{1: alg, 4: h'kid', 16: "application/statuslist+cwt"}`.
    package static func statusListProtectedHeader(algorithm: Int64, keyID: String) -> [UInt8] {
        protectedHeader(algorithm: algorithm, keyID: keyID, type: UnverifiedStatusList.cwtType)
    }

    /// The claims of a CWT Status List Token (draft §5.2): `{1: iss, 2: uri, 6: iat, 4: exp,
    /// 65534: ttl, 65533: {"bits": bits, "lst": h'…'}}`, `iss`, `exp` and `ttl` when given.
    package static func statusListClaims(
        uri: String, issuedAt: Int64, expiresAt: Int64?, timeToLive: Int64?, bits: Int,
        compressedList: [UInt8], issuer: String? = nil
    ) -> [UInt8] {
        var writer = CBORWriter()
        let optional = [issuer != nil, expiresAt != nil, timeToLive != nil].filter { $0 }.count
        writer.head(major: 5, argument: UInt64(3 + optional))
        if let issuer {
            writer.integer(1)
            writer.text(issuer)
        }
        writer.integer(2)
        writer.text(uri)
        writer.integer(6)
        writer.integer(issuedAt)
        if let expiresAt {
            writer.integer(4)
            writer.integer(expiresAt)
        }
        if let timeToLive {
            writer.integer(65534)
            writer.integer(timeToLive)
        }
        writer.integer(65533)
        writer.head(major: 5, argument: 2)
        writer.text("bits")
        writer.integer(Int64(bits))
        writer.text("lst")
        writer.byteString(compressedList)
        return writer.bytes
    }
}
