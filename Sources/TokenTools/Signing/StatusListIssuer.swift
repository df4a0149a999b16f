import TokenFormats
import TokenVerifier

/// Builds and signs Status List Tokens (spec §4c, draft-ietf-oauth-status-list §5): the issuer's
/// side of `tokenverify status-list`. Entries are packed `bits` bits each, least significant bits
/// first, compressed as a ZLIB stream, and signed as a JWS (`typ` `statuslist+jwt`) or a CWT
/// (COSE_Sign1 under tag 18, `typ` `application/statuslist+cwt`). With a certificate chain the
/// header carries it (`x5c`, `x5chain`) in place of the `kid` (spec §3b). Signatures are deterministic.
public struct StatusListIssuer: Sendable {
    /// Why a list cannot be built.
    public struct Problem: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// The key the lists are signed with.
    public let key: SigningKey
    /// The certificate chain the header carries in place of the `kid`, if any.
    public let chain: TokenChain?

    public init(key: SigningKey, chain: TokenChain? = nil) {
        self.key = key
        self.chain = chain
    }

    /// The packed entries of a list of `size` entries of `bits` bits, every entry 0 but those
    /// `statuses` name (index → value).
    public static func packedEntries(bits: Int, size: Int, statuses: [Int: UInt8]) throws(Problem) -> [UInt8] {
        guard [1, 2, 4, 8].contains(bits) else { throw Problem(description: "bits must be 1, 2, 4 or 8, not \(bits)") }
        guard size > 0 else { throw Problem(description: "the list needs at least one entry") }
        var bytes = [UInt8](repeating: 0, count: (size * bits + 7) / 8)
        for (index, value) in statuses {
            guard index >= 0, index < size else {
                throw Problem(description: "index \(index) is outside the list's \(size) entries")
            }
            guard Int(value) < 1 << bits else {
                throw Problem(description: "status \(value) of index \(index) does not fit \(bits) bits")
            }
            let bit = index * bits
            bytes[bit / 8] |= value << UInt8(bit % 8)
        }
        return bytes
    }

    /// A signed Status List Token for the list at `uri` with these entries: a compact JWS, or a
    /// CWT as base64url text. `issuer` becomes the `iss` claim (CWT key 1); a list signed under a
    /// chain needs one, bound to the leaf certificate's names (spec §3b).
    public func sign(
        uri: String, bits: Int, size: Int, statuses: [Int: UInt8], format: TokenFormat, issuedAt: Int64,
        expiresAt: Int64? = nil, timeToLive: Int64? = nil, issuer: String? = nil
    ) throws(Problem) -> String {
        if chain != nil, issuer == nil {
            throw Problem(
                description:
                    "a Status List Token with a certificate chain needs an iss: one of the leaf certificate's URIs or DNS names (spec §3b)"
            )
        }
        return try signWithoutIssuerCheck(
            uri: uri, bits: bits, size: size, statuses: statuses, format: format, issuedAt: issuedAt,
            expiresAt: expiresAt, timeToLive: timeToLive, issuer: issuer)
    }

    /// ``sign(uri:bits:size:statuses:format:issuedAt:expiresAt:timeToLive:issuer:)`` without
    /// refusing a chain without `iss`: for the tests of the verifier's refusal of such a list.
    func signWithoutIssuerCheck(
        uri: String, bits: Int, size: Int, statuses: [Int: UInt8], format: TokenFormat, issuedAt: Int64,
        expiresAt: Int64?, timeToLive: Int64?, issuer: String?
    ) throws(Problem) -> String {
        if let timeToLive, timeToLive <= 0 { throw Problem(description: "ttl must be a positive number of seconds") }
        let compressed = Deflate.zlib(try Self.packedEntries(bits: bits, size: size, statuses: statuses))
        let fields = Fields(
            uri: uri, issuer: issuer, issuedAt: issuedAt, expiresAt: expiresAt, timeToLive: timeToLive, bits: bits,
            compressed: compressed)
        switch format {
        case .jws: return jws(fields)
        case .cwt: return cwt(fields)
        }
    }

    /// The claims of one list.
    private struct Fields {
        var uri: String
        var issuer: String?
        var issuedAt: Int64
        var expiresAt: Int64?
        var timeToLive: Int64?
        var bits: Int
        var compressed: [UInt8]
    }

    private func jws(_ fields: Fields) -> String {
        var header = JSONWriter()
        if let chain {
            header.raw(chain.jwsHeader(algorithm: key.algorithm, type: "statuslist+jwt"))
        } else {
            header.raw("{\"alg\":")
            header.string(key.algorithm.rawValue)
            header.raw(",\"kid\":")
            header.string(key.keyID)
            header.raw(",\"typ\":\"statuslist+jwt\"}")
        }
        var claims = JSONWriter()
        claims.raw("{\"sub\":")
        claims.string(fields.uri)
        if let issuer = fields.issuer {
            claims.raw(",\"iss\":")
            claims.string(issuer)
        }
        claims.raw(",\"iat\":")
        claims.integer(Int(fields.issuedAt))
        if let expiresAt = fields.expiresAt {
            claims.raw(",\"exp\":")
            claims.integer(Int(expiresAt))
        }
        if let timeToLive = fields.timeToLive {
            claims.raw(",\"ttl\":")
            claims.integer(Int(timeToLive))
        }
        claims.raw(",\"status_list\":{\"bits\":")
        claims.integer(fields.bits)
        claims.raw(",\"lst\":\"")
        claims.raw(Base64URL.encode(fields.compressed))
        claims.raw("\"}}")
        let signingInput = Base64URL.encode(header.bytes) + [UInt8(ascii: ".")] + Base64URL.encode(claims.bytes)
        let signature = CWTSigner(key: key).deterministicSignature(of: signingInput)
        return String(decoding: signingInput + [UInt8(ascii: ".")] + Base64URL.encode(signature), as: UTF8.self)
    }

    private func cwt(_ fields: Fields) -> String {
        let signer = CWTSigner(key: key)
        let algorithm = CWTSigner.coseAlgorithm(key.algorithm)
        let protected =
            chain?.coseProtectedHeader(algorithm: algorithm, type: "application/statuslist+cwt")
            ?? CWTWriter.protectedHeader(algorithm: algorithm, keyID: key.keyID, type: "application/statuslist+cwt")
        let claims = CWTWriter.statusListClaims(
            uri: fields.uri, issuedAt: fields.issuedAt, expiresAt: fields.expiresAt, timeToLive: fields.timeToLive,
            bits: fields.bits, compressedList: fields.compressed, issuer: fields.issuer)
        return Base64URL.encodeString(signer.sign(payload: claims, protected: protected))
    }
}
