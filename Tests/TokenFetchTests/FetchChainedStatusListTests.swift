import Foundation
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

/// `fetch --trust-anchors`: a Status List Token that carries a chain (spec §3b) is checked by it,
/// as `verify --trust-anchors` would; without anchors it is refused naming why.
@Suite struct FetchChainedStatusListTests {
    static let issuer = "https://op.example"

    /// A root and a leaf under it (valid a day either side of now), and the root as anchors.
    struct Hierarchy {
        let root: Certificate
        let leaf: Certificate
        let leafKey = SigningKey.generate(algorithm: .ed25519, keyID: "leaf")
        let anchors: TrustAnchors

        init() throws {
            let now = Int64(Date().timeIntervalSince1970)
            let rootKey = SigningKey.generate(algorithm: .es256, keyID: "root")
            root = try CertificateIssuer.issue(
                CertificateRequest(
                    subject: [("CN", "Fetch Root")], serial: [1], notBefore: now - 86_400, notAfter: now + 86_400,
                    isCA: true),
                subjectKey: try CertificateKey(jwk: Array(rootKey.privateJWK.utf8)), signer: .selfSigned
            ).certificate
            leaf = try CertificateIssuer.issue(
                CertificateRequest(
                    subject: [("CN", "Fetch Signer")], serial: [2], notBefore: now - 86_400, notAfter: now + 86_400,
                    isCA: false, uris: [FetchChainedStatusListTests.issuer]),
                subjectKey: try CertificateKey(jwk: Array(leafKey.privateJWK.utf8)), signer: .issuer(root, rootKey)
            ).certificate
            anchors = try TrustAnchors.parse(pem: Array(root.pem.utf8), environment: nil, file: "root.pem")
        }

        func list(uri: String, format: TokenFormat) throws -> String {
            try StatusListIssuer(key: leafKey, chain: try TokenChain([leaf], signingKey: leafKey)).sign(
                uri: uri, bits: 2, size: 64, statuses: [3: 1], format: format,
                issuedAt: Int64(Date().timeIntervalSince1970) - 60, issuer: FetchChainedStatusListTests.issuer)
        }
    }

    @Test(arguments: [TokenFormat.jws, .cwt])
    func aChainedListPassesWithTheAnchorsAndIsRefusedWithout(format: TokenFormat) throws {
        let fixture = try FetchFixture()
        let hierarchy = try Hierarchy()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        let keys = try fixture.keysTarget("keys.jwks")
        let list = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try fixture.publisher.publish("list", try hierarchy.list(uri: list.url, format: format))
        let plain = try fixture.fetcher()
        let refused = plain.fetch([keys, list])
        guard case .failed(let why) = refused[1].outcome else {
            Issue.record("without anchors the chained list must be refused: \(refused[1].outcome)")
            return
        }
        #expect(why.contains("no trust anchors are configured"), "\(why)")
        #expect(fixture.file(list) == nil, "nothing written")
        let withAnchors = try Fetcher(
            configuration: FetchConfiguration(
                directory: fixture.out + "-anchored", caFile: fixture.publisher.caFile, timeout: 5,
                statusListLoader: standardStatusListLoader(anchors: hierarchy.anchors)))
        let reports = withAnchors.fetch([keys, list])
        #expect(reports[1].outcome == .updated("status list, 64 entries of 2 bits"), "\(reports[1].outcome)")
        #expect(reports[1].statusList?.list?.isVerifiedByChain == true)
    }
}
