/// A Status List Token read but not yet verified: its header, its claims, the compressed list,
/// and what its signature covers. Made by ``parse(_:source:)`` from a compact JWS, or from a CWT
/// as base64url text or raw CBOR (spec §4c).
struct UnverifiedStatusList {
    var format: TokenFormat
    var algorithm: SignatureAlgorithm
    var keyID: String
    var uri: String
    var issuedAt: Double
    var expiresAt: Double?
    var timeToLive: Double?
    var issuer: String?
    var bits: Int
    var compressedList: [UInt8]
    var signedMessage: [UInt8]
    var signature: [UInt8]

    /// The JWS `typ` of a Status List Token (draft §5.1).
    static let jwsType = "statuslist+jwt"
    /// The COSE `typ` (16) of a Status List Token (draft §5.2).
    static let cwtType = "application/statuslist+cwt"

    /// Reads a Status List Token; throws naming what is wrong. A leading CBOR tag byte means raw
    /// CBOR; otherwise the text (spaces and line breaks around it ignored) is a compact JWS when
    /// it has dots, and base64url CBOR when it has none.
    static func parse(_ bytes: [UInt8], source: String) throws(StatusListError) -> UnverifiedStatusList {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        guard let first = bytes.first else { throw failure("the file is empty; expected a Status List Token") }
        if first >> 5 == 6 || first == 0x84 {
            return try parseCWT(bytes, source: source)
        }
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        guard let start = bytes.firstIndex(where: { !isSpace($0) }), let end = bytes.lastIndex(where: { !isSpace($0) })
        else {
            throw failure("the file holds only white space; expected a Status List Token")
        }
        let text = Array(bytes[start...end])
        if text.contains(UInt8(ascii: ".")) { return try parseJWS(text, source: source) }
        guard let cbor = Base64URL.decode(text) else {
            throw failure(
                "not a Status List Token: neither a compact JWS, nor canonical base64url or raw bytes of a CWT")
        }
        return try parseCWT(cbor, source: source)
    }

    // MARK: - JWS (draft §5.1)

    private static func parseJWS(_ text: [UInt8], source: String) throws(StatusListError) -> UnverifiedStatusList {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        let segments = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw failure("a JWS Status List Token has three base64url segments; found \(segments.count)")
        }
        guard let header = Base64URL.decode(segments[0]) else {
            throw failure("the header segment is not canonical base64url")
        }
        guard let payload = Base64URL.decode(segments[1]) else {
            throw failure("the payload segment is not canonical base64url")
        }
        guard let signature = Base64URL.decode(segments[2]) else {
            throw failure("the signature segment is not canonical base64url")
        }

        var algorithmName: String?
        var keyID: String?
        var type: String?
        do throws(JSONError) {
            try header.withUnsafeBufferPointer { (bytes) throws(JSONError) in
                var reader = JSONReader(bytes)
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    if name.equals("alg") {
                        algorithmName = try reader.readString(member: "header \"alg\"")
                    } else if name.equals("kid") {
                        keyID = try reader.readString(member: "header \"kid\"")
                    } else if name.equals("typ") {
                        type = try reader.readString(member: "header \"typ\"")
                    } else if name.equals("crit") {
                        throw JSONError(
                            "header \"crit\" must be absent (no extension is understood)", at: reader.position)
                    } else {
                        try reader.skipValue()
                    }
                }
                try reader.finish()
            }
        } catch {
            throw failure("the header is not valid: \(error.description)")
        }
        guard type == jwsType else {
            throw failure(
                "header typ must be \"\(jwsType)\"" + (type.map { " (found \"\($0)\")" } ?? " (it is missing)"))
        }
        guard let algorithmName else { throw failure("header \"alg\" is missing") }
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmName) else {
            throw failure("unsupported alg \"\(algorithmName)\" (supported: Ed25519, EdDSA, ES256)")
        }
        guard let keyID else { throw failure("header \"kid\" is missing") }

        var uri: String?
        var issuedAt: Double?
        var expiresAt: Double?
        var timeToLive: Double?
        var issuer: String?
        var bits: Int?
        var list: [UInt8]?
        do throws(JSONError) {
            try payload.withUnsafeBufferPointer { (bytes) throws(JSONError) in
                var reader = JSONReader(bytes)
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    if name.equals("sub") {
                        uri = try reader.readString(member: "claim \"sub\"")
                    } else if name.equals("iss") {
                        issuer = try reader.readString(member: "claim \"iss\"")
                    } else if name.equals("iat") {
                        issuedAt = try reader.readNumericDate(member: "claim \"iat\"", allowRFC3339: false)
                    } else if name.equals("exp") {
                        expiresAt = try reader.readNumericDate(member: "claim \"exp\"", allowRFC3339: false)
                    } else if name.equals("ttl") {
                        timeToLive = try reader.readNumericDate(member: "claim \"ttl\"", allowRFC3339: false)
                    } else if name.equals("status_list") {
                        guard reader.peekKind() == .object else {
                            throw JSONError(
                                "claim \"status_list\" must be an object {\"bits\", \"lst\"}", at: reader.position)
                        }
                        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                            if name.equals("bits") {
                                bits = Int(exactly: try reader.readIndex(member: "status_list \"bits\""))
                            } else if name.equals("lst") {
                                let (content, unescaped) = try reader.readStringContent(member: "lst")
                                let encoded = unescaped ?? Array(reader.bytes[content])
                                guard let decoded = Base64URL.decode(encoded) else {
                                    throw JSONError(
                                        "status_list \"lst\" is not canonical base64url", at: content.lowerBound)
                                }
                                list = decoded
                            } else {
                                try reader.skipValue()
                            }
                        }
                    } else {
                        try reader.skipValue()
                    }
                }
                try reader.finish()
            }
        } catch {
            throw failure("the claims are not valid: \(error.description)")
        }
        let claims = try checkedClaims(
            uri: uri, issuedAt: issuedAt, timeToLive: timeToLive, bits: bits, list: list, source: source,
            names: (sub: "sub", iat: "iat", ttl: "ttl", statusList: "status_list"))
        let signingInputCount = segments[0].count + 1 + segments[1].count
        return UnverifiedStatusList(
            format: .jws, algorithm: algorithm, keyID: keyID, uri: claims.uri, issuedAt: claims.issuedAt,
            expiresAt: expiresAt,
            timeToLive: timeToLive, issuer: issuer, bits: claims.bits, compressedList: claims.list,
            signedMessage: Array(text[..<signingInputCount]), signature: signature)
    }

    /// The required claims, present and in range.
    static func checkedClaims(
        uri: String?, issuedAt: Double?, timeToLive: Double?, bits: Int?, list: [UInt8]?, source: String,
        names: (sub: String, iat: String, ttl: String, statusList: String)
    ) throws(StatusListError) -> (uri: String, issuedAt: Double, bits: Int, list: [UInt8]) {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        guard let uri else { throw failure("required claim \(names.sub) (the list's URI) is missing") }
        guard let issuedAt else { throw failure("required claim \(names.iat) is missing") }
        if let timeToLive, !(timeToLive > 0) {
            throw failure("claim \(names.ttl) must be a positive number of seconds")
        }
        guard let bits, let list else {
            throw failure("required claim \(names.statusList) with \"bits\" and \"lst\" is missing")
        }
        guard [1, 2, 4, 8].contains(bits) else {
            throw failure("status_list \"bits\" must be 1, 2, 4 or 8 (found \(bits))")
        }
        return (uri, issuedAt, bits, list)
    }

    // MARK: - Verification

    /// Checks the list against the key set as a token is checked (spec §4c): the key named by
    /// `kid` exists and fits `alg`, its `env` agrees with `options.environment`, its `iss` with
    /// the list's, and the signature verifies with the library's standard call. Returns the key.
    func verify(keys: KeySet, options: VerificationOptions, source: String) throws(StatusListError) -> VerificationKey {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        guard let key = keys[keyID] else { throw failure("key \"\(keyID)\" is not in the key set") }
        guard key.accepts(algorithm) else {
            throw failure(
                "alg \(algorithm.rawValue) does not fit key \"\(keyID)\" (\(key.type.rawValue)\(key.algorithm.map { ", alg \($0.rawValue)" } ?? ""))"
            )
        }
        if let environment = options.environment, let keyEnvironment = key.environment, environment != keyEnvironment {
            throw failure("key \"\(keyID)\" is for env \"\(keyEnvironment.rawValue)\", not \"\(environment.rawValue)\"")
        }
        if let issuer, let keyIssuer = key.issuer, issuer != keyIssuer {
            throw failure("iss \"\(issuer)\" differs from key \"\(keyID)\"'s iss \"\(keyIssuer)\"")
        }
        guard signature.count == 64 else { throw failure("the signature is \(signature.count) bytes; expected 64") }
        let signed = SignedStatusList(
            algorithm: algorithm, message: signedMessage, signature: signature, keyType: key.type,
            keyMaterial: key.publicKeyBytes, keyIssuer: key.issuer)
        guard signed.verify(with: key) else { throw failure("the signature does not verify with key \"\(keyID)\"") }
        return key
    }
}
