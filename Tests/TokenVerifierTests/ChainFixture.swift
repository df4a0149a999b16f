import TokenVerifier

@testable import TokenTools

/// A root → intermediate → leaf hierarchy issued with `CertificateIssuer` (spec §3b), and tokens
/// signed by the leaf's key with the chain in their header, for the chain tests.
struct ChainFixture {
    /// Validity of every certificate unless a test says otherwise.
    static let notBefore: Int64 = 1_800_000_000
    static let notAfter: Int64 = 1_900_000_000
    /// A time inside the validity.
    static let during: Double = 1_850_000_000

    let rootKey: SigningKey
    let root: Certificate
    let intermediateKey: SigningKey
    let intermediate: Certificate
    let leafKey: SigningKey
    let leaf: Certificate

    /// A hierarchy whose leaf signs with `leafAlgorithm`, names `uris` and `dnsNames`, and is
    /// valid from `leafNotBefore` to `leafNotAfter`.
    init(
        leafAlgorithm: SignatureAlgorithm = .ed25519, rootAlgorithm: SignatureAlgorithm = .es256,
        uris: [String] = ["https://operator.example/issuer"], dnsNames: [String] = ["operator.example"],
        leafNotBefore: Int64 = notBefore, leafNotAfter: Int64 = notAfter, intermediateIsCA: Bool = true,
        name: String = "Operator"
    ) throws {
        rootKey = SigningKey.generate(algorithm: rootAlgorithm, keyID: "root")
        root = try Self.issue(
            CertificateRequest(
                subject: [("CN", "\(name) Root")], serial: [1], notBefore: Self.notBefore, notAfter: Self.notAfter,
                isCA: true), key: rootKey, signer: .selfSigned)
        intermediateKey = SigningKey.generate(algorithm: .es256, keyID: "intermediate")
        intermediate = try Self.issue(
            CertificateRequest(
                subject: [("CN", "\(name) Intermediate")], serial: [2], notBefore: Self.notBefore,
                notAfter: Self.notAfter, isCA: intermediateIsCA, pathLength: intermediateIsCA ? 0 : nil),
            key: intermediateKey, signer: .issuer(root, rootKey))
        leafKey = SigningKey.generate(algorithm: leafAlgorithm, keyID: "leaf")
        leaf = try Self.issue(
            CertificateRequest(
                subject: [("CN", "\(name) Signer")], serial: [3], notBefore: leafNotBefore, notAfter: leafNotAfter,
                isCA: false, uris: uris, dnsNames: dnsNames),
            key: leafKey, signer: .issuer(intermediate, intermediateKey))
    }

    static func issue(
        _ request: CertificateRequest, key: SigningKey, signer: CertificateIssuer.Signer
    ) throws -> Certificate {
        try CertificateIssuer.issue(
            request, subjectKey: try CertificateKey(jwk: Array(key.privateJWK.utf8)), signer: signer
        ).certificate
    }

    /// The root as an anchor, for `environment`.
    func anchors(environment: Environment? = nil) throws -> TrustAnchors {
        try TrustAnchors.parse(pem: Array(root.pem.utf8), environment: environment, file: "root.pem")
    }

    /// The chain a token carries: leaf, intermediate (the anchor left out).
    var chain: [Certificate] { [leaf, intermediate] }

    /// Claims JSON for a token of this hierarchy's issuer, valid during the certificates' validity.
    static func claims(
        iss: String = "https://operator.example/issuer", exp: Int = 1_860_000_000, extra: String = ""
    ) -> [UInt8] {
        Array(
            """
            {"iss":"\(iss)","sub":"phone-1","aud":"car-1","jti":"t-\(iss.utf8.count)","iat":1840000000,"nbf":1840000000,"exp":\(exp),"ch":["ble"],"cmd":["unlock"]\(extra)}
            """.utf8)
    }

    /// A JWS signed by `key` (the leaf's unless given) with `chain` (this fixture's unless given) in `x5c`.
    func jws(
        claims: [UInt8] = claims(), chain: [Certificate]? = nil, key: SigningKey? = nil, kid: String? = nil
    )
        throws -> String
    {
        let signer = key ?? leafKey
        let tokenChain = try TokenChain(chain ?? self.chain, signingKey: leafKey)
        var header = tokenChain.jwsHeader(algorithm: signer.algorithm, type: "JWT")
        if let kid {
            header.removeLast()
            header += Array(",\"kid\":\"\(kid)\"}".utf8)
        }
        return signer.sign(header: header, claims: claims)
    }

    /// A CWT signed by `key` (the leaf's unless given) with `chain` in `x5chain` (protected),
    /// and `unprotected` as its unprotected header (CBOR map bytes).
    func cwt(
        claims: [UInt8] = claims(), chain: [Certificate]? = nil, key: SigningKey? = nil, unprotected: [UInt8] = [0xA0]
    ) throws -> String {
        let signer = key ?? leafKey
        let tokenChain = try TokenChain(chain ?? self.chain, signingKey: leafKey)
        let header = tokenChain.coseProtectedHeader(algorithm: CWTSigner.coseAlgorithm(signer.algorithm))
        let message = CWTSigner(key: signer).sign(
            payload: try CWTSigner.claimsCBOR(json: claims), protected: header, unprotected: unprotected)
        return String(decoding: Base64URL.encode(message), as: UTF8.self)
    }

    /// A token of `format`.
    func token(
        _ format: TokenFormat, claims: [UInt8] = claims(), chain: [Certificate]? = nil, key: SigningKey? = nil
    )
        throws -> String
    {
        format == .jws
            ? try jws(claims: claims, chain: chain, key: key) : try cwt(claims: claims, chain: chain, key: key)
    }
}
