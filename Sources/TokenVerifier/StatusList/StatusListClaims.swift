/// The claims of a Status List Token as either format's reader collects them (spec §4c): the
/// list's URI (`sub`), `iat`, `exp`, `ttl`, `iss`, and the `status_list`'s `bits` and compressed
/// `lst`. ``checked(_:source:)`` says which required one is missing or out of range.
struct StatusListClaims {
    var uri: String?
    var issuedAt: Double?
    var expiresAt: Double?
    var timeToLive: Double?
    var issuer: String?
    var bits: Int?
    var list: [UInt8]?

    /// What a format calls the claims, for messages.
    struct Names {
        var sub: String
        var iat: String
        var ttl: String
        var statusList: String

        static let jws = Names(sub: "sub", iat: "iat", ttl: "ttl", statusList: "status_list")
        static let cwt = Names(sub: "sub (2)", iat: "iat (6)", ttl: "ttl (65534)", statusList: "status_list (65533)")
    }

    /// The required claims, present and in range.
    struct Required {
        var uri: String
        var issuedAt: Double
        var bits: Int
        var list: [UInt8]
    }

    /// The required claims, or an error naming the first one missing or out of range.
    func checked(_ names: Names, source: String) throws(StatusListError) -> Required {
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
        return Required(uri: uri, issuedAt: issuedAt, bits: bits, list: list)
    }
}

extension UnverifiedStatusList {
    /// A list of `format` from its header's `alg`, `kid` and chain, its checked claims, and
    /// what its signature covers.
    init(
        format: TokenFormat, algorithm: SignatureAlgorithm, keyID: String?, chain: [UInt8]?, claims: StatusListClaims,
        required: StatusListClaims.Required, signedMessage: [UInt8], signature: [UInt8]
    ) {
        self.init(
            format: format, algorithm: algorithm, keyID: keyID, chain: chain, uri: required.uri,
            issuedAt: required.issuedAt,
            expiresAt: claims.expiresAt, timeToLive: claims.timeToLive, issuer: claims.issuer, bits: required.bits,
            compressedList: required.list, signedMessage: signedMessage, signature: signature)
    }
}
