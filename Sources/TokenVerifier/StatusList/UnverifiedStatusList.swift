/// A Status List Token read but not yet verified: its header, its claims, the compressed list,
/// and what its signature covers. Made by ``parse(_:source:)`` from a compact JWS, or from a CWT
/// as base64url text or raw CBOR (spec §4c).
struct UnverifiedStatusList {
    var format: TokenFormat
    var algorithm: SignatureAlgorithm
    /// The header's `kid`, if any (a list that carries a chain may have none).
    var keyID: String?
    /// The chain the header carries (spec §3b), as written: JWS `x5c`'s JSON value, CWT
    /// `x5chain`'s (33) CBOR item.
    var chain: [UInt8]?
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
        let (algorithm, keyID, chain) = try jwsHeader(header, source: source)
        let claims: StatusListClaims
        do throws(JSONError) {
            claims = try jwsClaims(payload)
        } catch {
            throw failure("the claims are not valid: \(error.description)")
        }
        let signingInputCount = segments[0].count + 1 + segments[1].count
        return UnverifiedStatusList(
            format: .jws, algorithm: algorithm, keyID: keyID, chain: chain, claims: claims,
            required: try claims.checked(.jws, source: source), signedMessage: Array(text[..<signingInputCount]),
            signature: signature)
    }

    /// The JWS header's `alg`, `kid` and `x5c` (at least one of the two), its `typ` exactly
    /// ``jwsType`` and no `crit`.
    private static func jwsHeader(
        _ header: [UInt8], source: String
    ) throws(StatusListError) -> (SignatureAlgorithm, String?, [UInt8]?) {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        var algorithmName: String?
        var keyID: String?
        var type: String?
        var chain: [UInt8]?
        do throws(JSONError) {
            try header.withUnsafeBufferPointer { (bytes) throws(JSONError) in
                var reader = JSONReader(bytes)
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    if name.equals("alg") {
                        algorithmName = try reader.readString(member: "header \"alg\"")
                    } else if name.equals("kid") {
                        keyID = try reader.readString(member: "header \"kid\"")
                    } else if name.equals("x5c") {
                        chain = Array(reader.bytes[try reader.skipValue()])
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
        guard keyID != nil || chain != nil else { throw failure("header \"kid\" is missing (and no \"x5c\" chain)") }
        return (algorithm, keyID, chain)
    }

    /// The claims of a JWS list's payload (JSON).
    private static func jwsClaims(_ payload: [UInt8]) throws(JSONError) -> StatusListClaims {
        var claims = StatusListClaims()
        try payload.withUnsafeBufferPointer { (bytes) throws(JSONError) in
            var reader = JSONReader(bytes)
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                if name.equals("sub") {
                    claims.uri = try reader.readString(member: "claim \"sub\"")
                } else if name.equals("iss") {
                    claims.issuer = try reader.readString(member: "claim \"iss\"")
                } else if name.equals("iat") {
                    claims.issuedAt = try reader.readNumericDate(member: "claim \"iat\"", allowRFC3339: false)
                } else if name.equals("exp") {
                    claims.expiresAt = try reader.readNumericDate(member: "claim \"exp\"", allowRFC3339: false)
                } else if name.equals("ttl") {
                    claims.timeToLive = try reader.readNumericDate(member: "claim \"ttl\"", allowRFC3339: false)
                } else if name.equals("status_list") {
                    try jwsStatusList(&reader, into: &claims)
                } else {
                    try reader.skipValue()
                }
            }
            try reader.finish()
        }
        return claims
    }

    /// The `status_list` object of a JWS list: `bits` and `lst` (base64url of the compressed list).
    private static func jwsStatusList(
        _ reader: inout JSONReader, into claims: inout StatusListClaims
    ) throws(JSONError) {
        guard reader.peekKind() == .object else {
            throw JSONError("claim \"status_list\" must be an object {\"bits\", \"lst\"}", at: reader.position)
        }
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            if name.equals("bits") {
                claims.bits = Int(exactly: try reader.readIndex(member: "status_list \"bits\""))
            } else if name.equals("lst") {
                let (content, unescaped) = try reader.readStringContent(member: "lst")
                let encoded = unescaped ?? Array(reader.bytes[content])
                guard let decoded = Base64URL.decode(encoded) else {
                    throw JSONError("status_list \"lst\" is not canonical base64url", at: content.lowerBound)
                }
                claims.list = decoded
            } else {
                try reader.skipValue()
            }
        }
    }

    // MARK: - Verification

    /// Checks the list as a token is checked (spec §4c, §3b). With trust anchors, a list that
    /// carries a chain is checked by it (``ChainedStatusList``; its `kid` is not used). Otherwise
    /// the key named by `kid` exists and fits `alg`, its `env` agrees with `options.environment`,
    /// its `iss` with the list's (``StatusListSigner/keyRefusal(_:algorithm:issuer:options:)``),
    /// and the signature verifies with the library's standard call. Returns the key, the chain
    /// (nil: checked by `kid`), and the anchors it was checked under.
    func verify(
        keys: KeySet, anchors: TrustAnchors?, options: VerificationOptions, source: String
    ) throws(StatusListError) -> (key: VerificationKey, chain: ChainKey?, anchors: TrustAnchors?) {
        func failure(_ message: String) -> StatusListError { StatusListError(source: source, message: message) }
        if let chain, let anchors {
            let parts = ChainedStatusList.Parts(
                format: format, algorithm: algorithm, chain: chain, issuedAt: issuedAt, issuer: issuer,
                message: signedMessage, signature: signature)
            switch ChainedStatusList.verify(parts, anchors: anchors, options: options) {
            case .success(let key): return (key.key, key, anchors)
            case .failure(let refusal): throw failure(refusal.why)
            }
        }
        let unused = chain == nil ? "" : " (its chain is not used: no trust anchors are configured, --trust-anchors)"
        guard let keyID else {
            throw failure(
                "it carries a chain (\(format == .jws ? "x5c" : "x5chain (33)")) and no kid, and no trust anchors are configured (--trust-anchors): no key can verify it"
            )
        }
        guard let key = keys[keyID] else { throw failure("key \"\(keyID)\" is not in the key set\(unused)") }
        if let why = StatusListSigner.keyRefusal(key, algorithm: algorithm, issuer: issuer, options: options) {
            throw failure(why)
        }
        guard signature.count == 64 else { throw failure("the signature is \(signature.count) bytes; expected 64") }
        guard SignedStatusList.verify(message: signedMessage, signature: signature, with: key) else {
            throw failure("the signature does not verify with key \"\(keyID)\"\(unused)")
        }
        return (key, nil, nil)
    }
}
