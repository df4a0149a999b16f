import Foundation
import Testing

@testable import TokenVerifier

/// SPEC §3b: a certificate is what it is, whatever its encoding. Only DER is accepted (a BER
/// length anywhere is refused), and an ECDSA-signed certificate's twin (its signature (r, s)
/// re-encoded as (r, n − s), which OpenSSL accepts as well) gets the same identity, so that a
/// revocation by `x5t#S256` names both.
@Suite struct CertificateIdentityTests {
    let world: ChainWorld

    init() throws { world = try ChainWorld.shared.get() }

    func trusted(_ verdict: ChainVerdict, sourceLocation: SourceLocation = #_sourceLocation) -> TrustedChain? {
        guard case .trusted(let chain) = verdict else {
            Issue.record("expected trusted, got \(verdict)", sourceLocation: sourceLocation)
            return nil
        }
        return chain
    }

    func failure(_ verdict: ChainVerdict, sourceLocation: SourceLocation = #_sourceLocation) -> ChainFailure? {
        guard case .untrusted(let failure) = verdict else {
            Issue.record("expected untrusted, got \(verdict)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    /// The twins of the P-256 leaf and intermediate: other bytes, and OpenSSL validates them.
    @Test func twinsOfALeafAndAnIntermediateValidate() throws {
        let anchors = try world.anchors("rootP256")
        let leaf = world["leafP256"].der
        let intermediate = world["intP256"].der
        let twins = [CertificateEncodings.twin(leaf), CertificateEncodings.twin(intermediate)]
        #expect(twins[0] != leaf && twins[1] != intermediate)
        #expect(sha256(twins[0]) != sha256(leaf))
        for chain in [[twins[0], intermediate], [leaf, twins[1]], twins] {
            #expect(trusted(anchors.validate(chain, at: ChainWorld.now)) != nil)
        }
        // The openssl command line agrees.
        try Data(twins[0]).write(to: URL(fileURLWithPath: world.factory.path("leafTwin.der")))
        try world.factory.run([
            "x509", "-inform", "DER", "-in", world.factory.path("leafTwin.der"), "-out",
            world.factory.path("leafTwin.pem"),
        ])
        try world.factory.run([
            "verify", "-x509_strict", "-CAfile", world.factory.path("rootP256.pem"), "-untrusted",
            world.factory.path("intP256.pem"), "-attime", "\(ChainWorld.now)", world.factory.path("leafTwin.pem"),
        ])
    }

    /// A BER long-form length, in the outer SEQUENCE or in the tbsCertificate, of the leaf or the
    /// intermediate: refused as not DER, naming the certificate.
    @Test func berLengthsAreRefused() throws {
        let anchors = try world.anchors("rootP256")
        let leaf = world["leafP256"].der
        let intermediate = world["intP256"].der
        let cases: [(chain: [[UInt8]], position: Int, subject: String)] = [
            ([CertificateEncodings.outerLongForm(leaf), intermediate], 1, "CN=Leaf P-256,O=Op"),
            ([CertificateEncodings.tbsLongForm(leaf), intermediate], 1, "CN=Leaf P-256,O=Op"),
            ([leaf, CertificateEncodings.outerLongForm(intermediate)], 2, "CN=Int P-256,O=Op"),
            ([leaf, CertificateEncodings.tbsLongForm(intermediate)], 2, "CN=Int P-256,O=Op"),
        ]
        for item in cases {
            let refused = try #require(failure(anchors.validate(item.chain, at: ChainWorld.now)))
            #expect(refused.why == "is not DER-encoded (certificate \(item.position) of the chain)")
            #expect(refused.subject == item.subject)
            #expect(refused.thumbprint == Base64URL.encodeString(sha256(item.chain[item.position - 1])))
            #expect(!refused.dependsOnTime)
        }
    }

    /// An anchor that is not DER is refused when the anchors are loaded.
    @Test(arguments: [false, true])
    func berAnchorIsRefusedWhenLoaded(_ inTBS: Bool) throws {
        let root = world["rootP256"].der
        let ber = inTBS ? CertificateEncodings.tbsLongForm(root) : CertificateEncodings.outerLongForm(root)
        var decodes = false
        if let certificate = X509Certificate(der: ber) { decodes = certificate.subject == "CN=Root P-256,O=Op" }
        #expect(decodes, "OpenSSL decodes it")
        #expect(throws: TrustAnchorError(file: "ber.pem", reason: .notDER)) {
            try TrustAnchors.parse(pem: Array(CertificateEncodings.pem(ber).utf8), environment: nil, file: "ber.pem")
        }
    }

    /// The twin of a leaf, of an intermediate, and both: every certificate of the path gets the
    /// same identity set as the original's, its carried encoding first.
    @Test func twinsGetTheSameIdentities() throws {
        let anchors = try world.anchors("rootP256")
        let leaf = world["leafP256"].der
        let intermediate = world["intP256"].der
        let original = try #require(trusted(anchors.validate([leaf, intermediate], at: ChainWorld.now)))
        #expect(original.certificates.count == 3)
        let x5t = { (der: [UInt8]) in Base64URL.encode(sha256(der)) }
        let expected = [
            [x5t(leaf), x5t(CertificateEncodings.twin(leaf))],
            [x5t(intermediate), x5t(CertificateEncodings.twin(intermediate))],
            [x5t(world["rootP256"].der), x5t(CertificateEncodings.twin(world["rootP256"].der))],
        ]
        #expect(original.certificates.map(\.thumbprints) == expected)
        let twinLeaf = CertificateEncodings.twin(leaf)
        let twinIntermediate = CertificateEncodings.twin(intermediate)
        for chain in [[twinLeaf, intermediate], [leaf, twinIntermediate], [twinLeaf, twinIntermediate]] {
            let twin = try #require(trusted(anchors.validate(chain, at: ChainWorld.now)))
            #expect(twin.certificates.map { Set($0.thumbprints) } == original.certificates.map { Set($0.thumbprints) })
            #expect(twin.certificates.map(\.keyThumbprint) == original.certificates.map(\.keyThumbprint))
            // The first is the encoding carried.
            #expect(twin.certificates[0].thumbprints[0] == x5t(chain[0]))
            #expect(twin.certificates[1].thumbprints[0] == x5t(chain[1]))
        }
    }

    /// spki#S256 is SHA-256 of the key's SubjectPublicKeyInfo as `openssl pkey -pubout` writes it.
    @Test(arguments: [("leafP256", "intP256", "rootP256"), ("leafEd", "intP384", "rootRSA")])
    func keyThumbprintIsTheSubjectPublicKeyInfosHash(_ names: (String, String, String)) throws {
        let anchors = try world.anchors(names.2)
        let path = try #require(trusted(anchors.validate(world.chain(names.0, names.1), at: ChainWorld.now)))
        let keys = try [names.0, names.1, names.2].map { Base64URL.encode(sha256(try world.publicKeyInfo($0))) }
        #expect(path.certificates.map(\.keyThumbprint) == keys)
    }

    /// No twin for a signature that is not ECDSA: RSA (the P-384 intermediate under the RSA
    /// root) and Ed25519; the P-384 leaf's ECDSA signature gets one.
    @Test func onlyECDSASignaturesHaveTwins() throws {
        let rsa = try #require(
            trusted(try world.anchors("rootRSA").validate(world.chain("leafEd", "intP384"), at: ChainWorld.now)))
        #expect(rsa.certificates.map(\.thumbprints.count) == [2, 1, 1])
        let ed = try #require(
            trusted(try world.anchors("rootEd").validate(world.chain("leafEdEd", "intEd"), at: ChainWorld.now)))
        #expect(ed.certificates.map(\.thumbprints.count) == [1, 1, 1])
    }

    /// A chain key carries the identities of its validated path, computed when it was validated.
    @Test func chainKeyCarriesTheIdentities() throws {
        let anchors = try world.anchors("rootP256")
        let trust = ChainTrust(anchors: anchors, options: VerificationOptions())
        let value = ChainCacheOrderTests.x5c(world.chain("leafP256", "intP256"))
        let key = try value.withUnsafeBufferPointer {
            try trust.key(for: $0, format: .jws, at: Double(ChainWorld.now), signatureCache: nil).get()
        }
        let path = try #require(trusted(anchors.validate(world.chain("leafP256", "intP256"), at: ChainWorld.now)))
        #expect(key.certificates == path.certificates)
        #expect(key.thumbprints == key.certificates.map { $0.thumbprints[0] })
    }
}
