import TokenTools
import TokenVerifier

/// The certificates of a set with a chain share (spec §3b, §7 `gen --chain-share`): a
/// self-signed Ed25519 root (written as `anchors.pem`), an intermediate under it (path length
/// 0), and `TokenSetSpec.chainLeaves` leaf certificates per algorithm under the intermediate.
/// Every leaf holds one of the set's two signing keys (the line's algorithm) and names
/// `gen-operator` (the tokens' `iss`) as a dNSName; leaves differ in serial and subject, so each
/// is a distinct chain. A chained token carries leaf + intermediate in place of its `kid`. All of
/// it follows from the seed; certificates are made once per set, not per token.
package struct GenChains: Sendable {
    /// The root, the set's trust anchor.
    package let root: Certificate
    /// The intermediate every leaf is issued under.
    package let intermediate: Certificate
    /// Per algorithm (Ed25519, then ES256), the leaves' chains in token headers.
    let ed25519Leaves: [Leaf]
    let es256Leaves: [Leaf]

    /// One leaf's chain as the token headers carry it.
    struct Leaf: Sendable {
        let leaf: Certificate
        /// The JWS header `{"alg":…,"typ":"JWT","x5c":[leaf, intermediate]}`.
        let jwsHeader: [UInt8]
        /// The COSE protected header `{1: alg, 33: [leaf, intermediate]}`.
        let coseProtected: [UInt8]
    }

    /// How long every certificate is valid on each side of the set's check time: a year.
    static let validityMargin: Int64 = 365 * 86_400

    /// The chains of `spec` for its `keys`.
    package init(_ spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey)) throws(CertificateProblem) {
        var seeder = SplitMix64(spec.seed ^ 0xCE27_C4A1_0000_0001)
        func derive(_ keyID: String) -> SigningKey {
            let secret = (0..<4).flatMap { _ in withUnsafeBytes(of: seeder.next()) { Array($0) } }
            return try! SigningKey.derive(algorithm: .ed25519, keyID: keyID, secret: secret)
        }
        let rootKey = derive("gen-root")
        let intermediateKey = derive("gen-intermediate")
        let time = Int64(spec.checkTime)
        func request(_ subject: String, serial: [UInt8], isCA: Bool) -> CertificateRequest {
            CertificateRequest(
                subject: [("CN", subject), ("O", "tokenverify gen \(spec.seed)")], serial: serial,
                notBefore: time - Self.validityMargin, notAfter: time + Self.validityMargin, isCA: isCA,
                pathLength: isCA ? 0 : nil, dnsNames: isCA ? [] : ["gen-operator"])
        }
        func key(_ signing: SigningKey) throws(CertificateProblem) -> CertificateKey {
            try CertificateKey(jwk: Array(signing.privateJWK.utf8))
        }
        var rootRequest = request("gen root", serial: [1], isCA: true)
        rootRequest.pathLength = 1
        root = try CertificateIssuer.issue(rootRequest, subjectKey: key(rootKey), signer: .selfSigned).certificate
        intermediate = try CertificateIssuer.issue(
            request("gen intermediate", serial: [2], isCA: true), subjectKey: key(intermediateKey),
            signer: .issuer(root, rootKey)
        ).certificate
        var leaves: [[Leaf]] = []
        for (tag, signingKey) in [(UInt8(1), keys.ed25519), (2, keys.es256)] {
            let subjectKey = try key(signingKey)
            var made: [Leaf] = []
            for index in 0..<spec.chainLeaves {
                let serial = [0x10 | tag, UInt8(index >> 16 & 0xFF), UInt8(index >> 8 & 0xFF), UInt8(index & 0xFF)]
                let leaf = try CertificateIssuer.issue(
                    request("gen leaf \(signingKey.algorithm.rawValue) \(index)", serial: serial, isCA: false),
                    subjectKey: subjectKey, signer: .issuer(intermediate, intermediateKey)
                ).certificate
                let chain = try TokenChain([leaf, intermediate], signingKey: signingKey)
                made.append(
                    Leaf(
                        leaf: leaf,
                        jwsHeader: chain.jwsHeader(
                            algorithm: signingKey.algorithm, type: "JWT",
                            keyID: spec.chainKeyIDs ? signingKey.keyID : nil),
                        coseProtected: chain.coseProtectedHeader(
                            algorithm: Self.coseAlgorithm(signingKey.algorithm))))
            }
            leaves.append(made)
        }
        ed25519Leaves = leaves[0]
        es256Leaves = leaves[1]
    }

    /// The anchors file: the root as PEM (verify with `--trust-anchors int=SET/anchors.pem`).
    package var anchorsPEM: String { root.pem }

    /// The COSE algorithm of a JWS one (RFC 9053, RFC 9864).
    static func coseAlgorithm(_ algorithm: SignatureAlgorithm) -> Int64 {
        switch algorithm {
        case .ed25519: -19
        case .edDSA: -8
        case .es256: -7
        }
    }

    func leaf(_ index: Int, es256: Bool) -> Leaf { es256 ? es256Leaves[index] : ed25519Leaves[index] }
}
