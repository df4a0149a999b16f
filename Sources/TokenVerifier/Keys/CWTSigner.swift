/// Makes CWTs (SPEC §2b): COSE_Sign1 messages under tag 18 whose protected header is
/// `{1: alg, 4: h'kid'}` (alg −19 for an Ed25519 key, −8 for an EdDSA one, −7 for ES256) and
/// whose payload is the claims as a CBOR map, written as base64url. Signatures are deterministic
/// (Ed25519 by design, ES256 with RFC 6979 nonces), so the same key and claims give the same CWT.
public struct CWTSigner: Sendable {
    /// The key this signer uses.
    public let key: SigningKey

    public init(key: SigningKey) {
        self.key = key
    }

    /// The COSE algorithm of a key's algorithm.
    static func coseAlgorithm(_ algorithm: SignatureAlgorithm) -> Int64 {
        switch algorithm {
        case .ed25519: -19
        case .edDSA: -8
        case .es256: -7
        }
    }

    /// The protected header `{1: alg, 4: h'kid'}`, encoded.
    public var protectedHeader: [UInt8] {
        var writer = CBORWriter()
        writer.head(major: 5, argument: 2)
        writer.integer(1)
        writer.integer(Self.coseAlgorithm(key.algorithm))
        writer.integer(4)
        writer.byteString(Array(key.keyID.utf8))
        return writer.bytes
    }

    /// A CWT over `claims`, a JSON object whose claim names are mapped to their CWT keys
    /// (``claimsCBOR(json:)``).
    public func sign(claims json: [UInt8]) throws(JSONError) -> String {
        String(decoding: Base64URL.encode(sign(payload: try Self.claimsCBOR(json: json))), as: UTF8.self)
    }

    /// The CBOR of a COSE_Sign1 message (under tag 18) over `payload` with `protected` as its
    /// protected header (default: ``protectedHeader``) and `unprotected` (CBOR map bytes) as its
    /// unprotected one. With `presentedPayload`, the signature is still made over `payload` but
    /// the message carries `presentedPayload` (a tampered token, for test sets).
    public func sign(payload: [UInt8], protected: [UInt8]? = nil, unprotected: [UInt8] = [0xA0],
                     presentedPayload: [UInt8]? = nil) -> [UInt8] {
        let protected = protected ?? protectedHeader
        var structure = [UInt8](repeating: 0, count: CBORWriter.signatureStructureLength(protected: protected.count, payload: payload.count))
        protected.withUnsafeBufferPointer { protectedBytes in
            payload.withUnsafeBufferPointer { payloadBytes in
                _ = structure.withUnsafeMutableBufferPointer {
                    CBORWriter.writeSignatureStructure(protected: protectedBytes, payload: payloadBytes, to: $0.baseAddress!)
                }
            }
        }
        var writer = CBORWriter()
        writer.head(major: 6, argument: 18)
        writer.head(major: 4, argument: 4)
        writer.byteString(protected)
        writer.raw(unprotected)
        writer.byteString(presentedPayload ?? payload)
        writer.byteString(signature(of: structure))
        return writer.bytes
    }

    /// The signature of `message`, deterministic for both algorithms.
    private func signature(of message: [UInt8]) -> [UInt8] {
        if case .p256(let privateKey) = key.material, let signed = TokenSigner.deterministicES256(message, privateScalar: privateKey.d) {
            return signed.signature
        }
        return key.signature(of: message)
    }

    /// The CWT claims map of a JSON claims object: `iss`, `sub`, `aud`, `exp`, `nbf`, `iat` and
    /// `jti` become the keys 1–7 (`jti` as a text `cti`); other names stay text keys. Strings,
    /// arrays, objects, `true`, `false` and `null` keep their kind; an integer of at most 15
    /// digits becomes a CBOR integer, any other number the shortest float that holds it.
    public static func claimsCBOR(json: [UInt8]) throws(JSONError) -> [UInt8] {
        try json.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = JSONReader(buffer)
            guard reader.peekKind() == .object else { throw JSONError("the claims are not a JSON object", at: 0) }
            var writer = CBORWriter()
            try convert(&reader, to: &writer, isClaims: true)
            try reader.finish()
            return writer.bytes
        }
    }

    private static let claimKeys: [String: Int64] = ["iss": 1, "sub": 2, "aud": 3, "exp": 4, "nbf": 5, "iat": 6, "jti": 7]

    private static func convert(_ reader: inout JSONReader, to writer: inout CBORWriter, isClaims: Bool = false) throws(JSONError) {
        switch reader.peekKind() {
        case .object:
            var entries = CBORWriter()
            var count: UInt64 = 0
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                count += 1
                if isClaims, let key = claimKeys[name.string] { entries.integer(key) } else { entries.text(name.string) }
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
            let (_, isSmallInteger) = try probe.scanNumber()
            let value = try reader.readNumber()
            guard value.isFinite else { throw JSONError("number out of range", at: start) }
            if isSmallInteger { writer.integer(Int64(value)) } else { writer.float(value) }
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
