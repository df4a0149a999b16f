import TokenFormats
import TokenVerifier

/// Public key material read from PEM, DER or a JWK, before it gets its JWK members.
struct KeyMaterial {
    var type: KeyType
    /// 32 bytes for Ed25519, x‖y (64 bytes) for P-256.
    var publicKey: [UInt8]
    /// Whether it came from a private key (only the public part is kept).
    var fromPrivateKey: Bool
}

/// A reason a key encoding cannot be read, in one sentence.
struct KeyEncodingError: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Reads the DER structures that hold Ed25519 and P-256 keys: SubjectPublicKeyInfo (RFC 5280,
/// RFC 8410), PKCS #8 private keys (RFC 5208, RFC 5958) and SEC 1 EC private keys (RFC 5915).
enum DERKey {
    static let ed25519OID: [UInt8] = [0x2B, 0x65, 0x70]
    static let ecPublicKeyOID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let p256OID: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    static let knownOIDs: [[UInt8]: String] = [
        [0x2B, 0x65, 0x71]: "Ed448", [0x2B, 0x65, 0x6E]: "X25519", [0x2B, 0x65, 0x6F]: "X448",
        [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]: "RSA",
        [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x0A]: "RSA-PSS",
        [0x2B, 0x81, 0x04, 0x00, 0x22]: "P-384", [0x2B, 0x81, 0x04, 0x00, 0x23]: "P-521",
        [0x2B, 0x81, 0x04, 0x00, 0x0A]: "secp256k1",
    ]
    static let supported = "supported: Ed25519 and P-256 (ES256)"

    /// A key from a DER document of any of the three kinds.
    static func read(_ der: [UInt8]) throws(KeyEncodingError) -> KeyMaterial {
        var outer = DERReader(der)
        guard let top = outer.next(), top.tag == 0x30, outer.atEnd else {
            throw KeyEncodingError("not a DER key: expected one SEQUENCE")
        }
        var fields = DERReader(top.value)
        guard let first = fields.next() else { throw KeyEncodingError("an empty DER SEQUENCE") }
        switch first.tag {
        case 0x30: return try subjectPublicKeyInfo(algorithm: first.value, rest: &fields)
        case 0x02:
            guard let second = fields.next() else { throw KeyEncodingError("a truncated DER private key") }
            if second.tag == 0x30 { return try pkcs8(algorithm: second.value, rest: &fields) }
            if second.tag == 0x04 {
                return try sec1(version: first.value, privateKey: second.value, rest: &fields, curve: nil)
            }
            throw KeyEncodingError("not a key structure this tool knows (SubjectPublicKeyInfo, PKCS #8, SEC 1)")
        default:
            throw KeyEncodingError("not a key structure this tool knows (SubjectPublicKeyInfo, PKCS #8, SEC 1)")
        }
    }

    /// The algorithm OID and its parameters of an AlgorithmIdentifier.
    private static func algorithmIdentifier(
        _ bytes: ArraySlice<UInt8>
    ) throws(KeyEncodingError) -> (oid: [UInt8], parameter: [UInt8]?) {
        var reader = DERReader(bytes)
        guard let oid = reader.next(), oid.tag == 0x06 else {
            throw KeyEncodingError("a malformed AlgorithmIdentifier")
        }
        let parameter = reader.next()
        return (Array(oid.value), parameter?.tag == 0x06 ? Array(parameter!.value) : nil)
    }

    private static func unsupported(_ oid: [UInt8]) -> KeyEncodingError {
        let name = knownOIDs[oid].map { "an \($0) key" } ?? "a key of an unknown algorithm"
        return KeyEncodingError("\(name) (\(supported))")
    }

    private static func curveCheck(_ parameter: [UInt8]?) throws(KeyEncodingError) {
        guard let parameter else { throw KeyEncodingError("an EC key without a named curve (\(supported))") }
        guard parameter == p256OID else {
            throw KeyEncodingError("an EC key on \(knownOIDs[parameter] ?? "an unknown curve") (\(supported))")
        }
    }

    private static func subjectPublicKeyInfo(
        algorithm: ArraySlice<UInt8>, rest: inout DERReader
    ) throws(KeyEncodingError) -> KeyMaterial {
        let (oid, parameter) = try algorithmIdentifier(algorithm)
        guard let bits = rest.next(), bits.tag == 0x03, bits.value.first == 0, rest.atEnd else {
            throw KeyEncodingError("a malformed SubjectPublicKeyInfo")
        }
        let key = Array(bits.value.dropFirst())
        switch oid {
        case ed25519OID:
            guard key.count == 32 else {
                throw KeyEncodingError("an Ed25519 public key must be 32 bytes, found \(key.count)")
            }
            return KeyMaterial(type: .ed25519, publicKey: key, fromPrivateKey: false)
        case ecPublicKeyOID:
            try curveCheck(parameter)
            return KeyMaterial(type: .p256, publicKey: try uncompressedPoint(key), fromPrivateKey: false)
        default:
            throw unsupported(oid)
        }
    }

    private static func uncompressedPoint(_ key: [UInt8]) throws(KeyEncodingError) -> [UInt8] {
        if key.first == 0x02 || key.first == 0x03 {
            throw KeyEncodingError(
                "a compressed P-256 point; write it uncompressed (openssl pkey -pubin -in FILE -pubout -ec_conv_form uncompressed)"
            )
        }
        guard key.count == 65, key.first == 0x04 else {
            throw KeyEncodingError("a P-256 public key must be 65 bytes starting 04, found \(key.count) bytes")
        }
        return Array(key.dropFirst())
    }

    private static func pkcs8(
        algorithm: ArraySlice<UInt8>, rest: inout DERReader
    ) throws(KeyEncodingError) -> KeyMaterial {
        let (oid, parameter) = try algorithmIdentifier(algorithm)
        guard let privateKey = rest.next(), privateKey.tag == 0x04 else {
            throw KeyEncodingError("a malformed PKCS #8 private key")
        }
        switch oid {
        case ed25519OID:
            var inner = DERReader(privateKey.value)
            guard let seed = inner.next(), seed.tag == 0x04, seed.value.count == 32 else {
                throw KeyEncodingError("a malformed Ed25519 private key (expected a 32-byte seed)")
            }
            return KeyMaterial(
                type: .ed25519, publicKey: Ed25519Signing.publicKey(seed: Array(seed.value)), fromPrivateKey: true)
        case ecPublicKeyOID:
            try curveCheck(parameter)
            var inner = DERReader(privateKey.value)
            guard let sequence = inner.next(), sequence.tag == 0x30 else {
                throw KeyEncodingError("a malformed EC private key")
            }
            var fields = DERReader(sequence.value)
            guard let version = fields.next(), version.tag == 0x02, let d = fields.next(), d.tag == 0x04 else {
                throw KeyEncodingError("a malformed EC private key")
            }
            return try sec1(version: version.value, privateKey: d.value, rest: &fields, curve: p256OID)
        default:
            throw unsupported(oid)
        }
    }

    /// ECPrivateKey (RFC 5915) after its version and private key: `curve` is known from PKCS #8.
    private static func sec1(
        version: ArraySlice<UInt8>, privateKey: ArraySlice<UInt8>, rest: inout DERReader, curve: [UInt8]?
    ) throws(KeyEncodingError) -> KeyMaterial {
        guard Array(version) == [1] else { throw KeyEncodingError("a malformed EC private key (version)") }
        var named = curve
        var embedded: [UInt8]? = nil
        while let field = rest.next() {
            var inner = DERReader(field.value)
            if field.tag == 0xA0, let oid = inner.next(), oid.tag == 0x06 { named = Array(oid.value) }
            if field.tag == 0xA1, let bits = inner.next(), bits.tag == 0x03, bits.value.first == 0 {
                embedded = Array(bits.value.dropFirst())
            }
        }
        try curveCheck(named)
        guard privateKey.count == 32, let key = P256PrivateKey(d: Array(privateKey)) else {
            throw KeyEncodingError("the EC private key is not a valid P-256 scalar")
        }
        if let embedded, try uncompressedPoint(embedded) != key.x + key.y {
            throw KeyEncodingError("the EC private key's embedded public key does not match its private scalar")
        }
        return KeyMaterial(type: .p256, publicKey: key.x + key.y, fromPrivateKey: true)
    }
}

/// A minimal reader of DER TLVs (definite lengths only).
struct DERReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    var atEnd: Bool { position == bytes.endIndex }

    /// The next TLV, or nil at the end or on a malformed one.
    mutating func next() -> (tag: UInt8, value: ArraySlice<UInt8>)? {
        guard bytes.endIndex - position >= 2 else { return nil }
        let tag = bytes[position]
        var length = Int(bytes[position + 1])
        var start = position + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard count >= 1, count <= 3, bytes.endIndex - start >= count else { return nil }
            length = 0
            for index in start..<(start + count) { length = length << 8 | Int(bytes[index]) }
            start += count
        }
        guard length <= bytes.endIndex - start else { return nil }
        position = start + length
        return (tag, bytes[start..<(start + length)])
    }
}

/// PEM blocks (RFC 7468): label and DER bytes.
enum PEM {
    static func blocks(_ text: [UInt8]) throws(KeyEncodingError) -> [(label: String, der: [UInt8])] {
        let lines = String(decoding: text, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { $0.trimmingBlanks() }
        var blocks: [(String, [UInt8])] = []
        var label: String? = nil
        var body = ""
        for line in lines {
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5))
                body = ""
            } else if line.hasPrefix("-----END "), let open = label {
                guard let der = decodeBase64(body) else {
                    throw KeyEncodingError("the PEM block \"\(open)\" is not valid base64")
                }
                blocks.append((open, der))
                label = nil
            } else if label != nil, !line.contains(":") {
                body += line
            }
        }
        if label != nil { throw KeyEncodingError("a PEM block without its END line") }
        return blocks
    }

    /// Standard base64 (RFC 4648 §4) with padding.
    static func decodeBase64(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        var padding = 0
        for byte in text.utf8 {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = byte - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = byte - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"): value = 62
            case UInt8(ascii: "/"): value = 63
            case UInt8(ascii: "="):
                padding += 1
                continue
            default: return nil
            }
            if padding > 0 { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
            }
        }
        return padding <= 2 ? output : nil
    }
}

extension Substring {
    func trimmingBlanks() -> String {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
