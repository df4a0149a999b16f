import TokenFormats

extension UnverifiedStatusList {
    // MARK: - CWT (draft §5.2)

    static func parseCWT(_ cbor: [UInt8], source: String) throws(StatusListError) -> UnverifiedStatusList {
        do throws(CBORError) {
            return try cbor.withUnsafeBufferPointer { (bytes) throws(CBORError) -> UnverifiedStatusList in
                try readTag18(bytes)
                let message = try COSESign1(bytes)
                let protected = UnsafeBufferPointer(rebasing: bytes[message.protected])
                let (algorithm, keyID, chain) = try cwtHeaders(
                    protected, bytes, unprotectedStart: message.unprotectedStart)
                let payload = UnsafeBufferPointer(rebasing: bytes[message.payload])
                let claims = try cwtClaims(payload)
                let required: StatusListClaims.Required
                do throws(StatusListError) {
                    required = try claims.checked(.cwt, source: source)
                } catch {
                    throw CBORError(error.message, at: 0)
                }
                return UnverifiedStatusList(
                    format: .cwt, algorithm: algorithm, keyID: keyID, chain: chain, claims: claims, required: required,
                    signedMessage: CBORWriter.signatureStructure(protected: Array(protected), payload: Array(payload)),
                    signature: Array(bytes[message.signature]))
            }
        } catch {
            throw StatusListError(source: source, message: "not a valid CWT Status List Token: \(error.description)")
        }
    }

    /// Reads the one tag a CWT list has, 18 (COSE_Sign1), refusing any other (61 included).
    private static func readTag18(_ bytes: UnsafeBufferPointer<UInt8>) throws(CBORError) {
        var tags = CBORReader(bytes)
        var tagged18 = false
        while tags.peekMajor() == .tag {
            let start = tags.position
            let tag = try tags.readHead().argument
            guard tag == 18, !tagged18 else {
                let hint = tag == 61 ? " (61 marks a CWT; a Status List Token is a COSE_Sign1 under tag 18 only)" : ""
                throw CBORError("tag \(tag) is not accepted\(hint)", at: start)
            }
            tagged18 = true
        }
        guard tagged18 else { throw CBORError("a CWT Status List Token is a COSE_Sign1 message under tag 18", at: 0) }
    }

    /// The `alg`, `kid` and `x5chain` (at least one of the two) of the headers, the protected
    /// `typ` exactly ``cwtType``.
    private static func cwtHeaders(
        _ protected: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>, unprotectedStart: Int
    ) throws(CBORError) -> (SignatureAlgorithm, String?, [UInt8]?) {
        var header = ListHeader()
        if !protected.isEmpty {
            var reader = CBORReader(protected)
            try header.read(&reader, isProtected: true)
            try reader.finish()
        }
        var unprotected = CBORReader(bytes, at: unprotectedStart)
        try header.read(&unprotected, isProtected: false)
        if let problem = header.problem { throw CBORError(problem, at: 0) }
        guard header.type == cwtType else {
            let found =
                header.type.map { "found \"\($0)\"" + ($0 == "statuslist+cwt" ? ", an earlier draft's form" : "") }
                ?? "it is missing"
            throw CBORError("the protected header's typ (16) must be \"\(cwtType)\" (\(found))", at: 0)
        }
        guard let value = header.algorithm else { throw CBORError("the protected header has no alg (1)", at: 0) }
        guard let algorithm = COSEHeader.algorithm(value) else {
            throw CBORError("unsupported alg (1) \(value) (supported: -8 EdDSA, -19 Ed25519, -7 ES256)", at: 0)
        }
        guard header.keyID != nil || header.chain != nil else {
            throw CBORError("kid (4) is missing (and no x5chain (33))", at: 0)
        }
        return (algorithm, header.keyID, header.chain)
    }

    /// The claims of a CWT list's payload (a CBOR map with integer keys).
    private static func cwtClaims(_ payload: UnsafeBufferPointer<UInt8>) throws(CBORError) -> StatusListClaims {
        var reader = CBORReader(payload)
        var claims = StatusListClaims()
        func text(_ reader: inout CBORReader, _ claim: String) throws(CBORError) -> String {
            guard reader.peekMajor() == .text else { throw reader.error("claim \(claim) must be a text string") }
            return String(decoding: reader.bytes[try reader.readTextString()], as: UTF8.self)
        }
        func number(_ reader: inout CBORReader, _ claim: String) throws(CBORError) -> Double {
            let wrong = reader.error("claim \(claim) must be a number")
            guard let value = try reader.readNumber(), value.isFinite else { throw wrong }
            if let problem = NumericDate.rangeProblem(value, what: "claim \(claim)") { throw reader.error(problem) }
            return value
        }
        guard reader.peekMajor() == .map else { throw reader.error("the claims are not a CBOR map") }
        try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
            switch key {
            case .integer(1): claims.issuer = try text(&reader, "iss (1)")
            case .integer(2): claims.uri = try text(&reader, "sub (2)")
            case .integer(4): claims.expiresAt = try number(&reader, "exp (4)")
            case .integer(6): claims.issuedAt = try number(&reader, "iat (6)")
            case .integer(65534): claims.timeToLive = try number(&reader, "ttl (65534)")
            case .integer(65533): try cwtStatusList(&reader, into: &claims)
            default: try reader.skipItem()
            }
        }
        try reader.finish()
        return claims
    }

    /// The `status_list` (65533) map of a CWT list: `bits` and `lst` (a byte string).
    private static func cwtStatusList(
        _ reader: inout CBORReader, into claims: inout StatusListClaims
    ) throws(CBORError) {
        let wrong = reader.error("claim status_list (65533) must be a map {\"bits\": uint, \"lst\": bstr}")
        guard reader.peekMajor() == .map else { throw wrong }
        try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
            guard case .text(let range) = key else { return try reader.skipItem() }
            let name = String(decoding: reader.bytes[range], as: UTF8.self)
            if name == "bits" {
                guard reader.peekMajor() == .unsigned else { throw wrong }
                claims.bits = Int(exactly: try reader.readHead().argument) ?? 0
            } else if name == "lst" {
                guard reader.peekMajor() == .bytes else { throw wrong }
                claims.list = Array(reader.bytes[try reader.readByteString()])
            } else {
                try reader.skipItem()
            }
        }
    }

    /// The COSE headers of a CWT Status List Token: alg (1) and typ (16) protected, kid (4) and
    /// x5chain (33, as written) in either header, not both, no crit (2).
    private struct ListHeader {
        var algorithm: Int64?
        var keyID: String?
        var chain: [UInt8]?
        var type: String?
        var problem: String?

        mutating func read(_ reader: inout CBORReader, isProtected: Bool) throws(CBORError) {
            try reader.readMap { (reader: inout CBORReader, key: CBORReader.Key) throws(CBORError) in
                guard case .integer(let label) = key else { return try reader.skipItem() }
                switch label {
                case 1:
                    if !isProtected, problem == nil { problem = "alg (1) must be in the protected header" }
                    guard reader.peekMajor() == .negative || reader.peekMajor() == .unsigned else {
                        try reader.skipItem()
                        if problem == nil { problem = "alg (1) must be an integer" }
                        return
                    }
                    algorithm = try reader.readInteger()
                case 2:
                    try reader.skipItem()
                    if problem == nil { problem = "crit (2) must be absent" }
                case 4:
                    guard reader.peekMajor() == .bytes else {
                        try reader.skipItem()
                        if problem == nil { problem = "kid (4) must be a byte string" }
                        return
                    }
                    let range = try reader.readByteString()
                    if keyID != nil, problem == nil { problem = "kid (4) is in both headers" }
                    guard CBORReader.isValidUTF8(UnsafeBufferPointer(rebasing: reader.bytes[range])) else {
                        if problem == nil { problem = "kid (4) is not UTF-8 text" }
                        return
                    }
                    keyID = String(decoding: reader.bytes[range], as: UTF8.self)
                case 33:
                    let start = reader.position
                    try reader.skipItem()
                    if chain != nil, problem == nil { problem = "x5chain (33) is in both headers" }
                    chain = Array(reader.bytes[start..<reader.position])
                case 16 where isProtected:
                    if reader.peekMajor() == .text {
                        type = String(decoding: reader.bytes[try reader.readTextString()], as: UTF8.self)
                    } else {
                        try reader.skipItem()
                        type = "a non-text value"
                    }
                default:
                    try reader.skipItem()
                }
            }
        }
    }
}
