import Testing
import TokenTools
import TokenVerifier

/// The certificate tools in process: requests checked before anything is signed, certificates
/// issued and read back, PEM chains read strictly, and the chain headers' exact bytes.
@Suite struct CertificateTests {
    static func request(
        ca: Bool, pathLength: Int? = nil, uris: [String] = [], dnsNames: [String] = []
    )
        -> CertificateRequest
    {
        CertificateRequest(
            subject: [("CN", "test")], serial: [0x01], notBefore: 1_700_000_000, notAfter: 1_900_000_000, isCA: ca,
            pathLength: pathLength, uris: uris, dnsNames: dnsNames)
    }

    static func subjectKey(_ key: SigningKey, privately: Bool) throws -> CertificateKey {
        try CertificateKey(jwk: Array((privately ? key.privateJWK : key.publicJWK).utf8))
    }

    @Test func subjectsAreReadWithEscapes() throws {
        let parsed = try CertificateRequest.parseSubject(#" CN = Lock server\, east , O=Op\\erator,C=DE"#)
        #expect(parsed.map(\.field) == ["CN", "O", "C"])
        #expect(parsed.map(\.value) == ["Lock server, east", #"Op\erator"#, "DE"])
        for bad in ["CN", "CN=", "=x", "CN=x,", "CN=x\\", "CN=a\u{1}b"] {
            #expect(throws: CertificateProblem.self, "\(bad)") { try CertificateRequest.parseSubject(bad) }
        }
    }

    @Test func serialsAreDecimalOrHexadecimal() {
        #expect(CertificateRequest.parseSerial("66219") == [0x01, 0x02, 0xAB])
        #expect(CertificateRequest.parseSerial("0x0102ab") == [0x01, 0x02, 0xAB])
        #expect(CertificateRequest.parseSerial("18446744073709551616") == [1, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(CertificateRequest.parseSerial("0") == [])
        for bad in ["", "0x", "12a", "-1", "0xfg", String(repeating: "f", count: 41)] {
            #expect(CertificateRequest.parseSerial(bad) == nil, "\(bad)")
        }
        let random = CertificateRequest.randomSerial()
        #expect(random.count == 16 && random[0] & 0xC0 == 0x40)
    }

    @Test func requestsAreCheckedBeforeSigning() {
        #expect(Self.request(ca: true).problem() == nil)
        var request = Self.request(ca: false, uris: ["https://op.example", "urn:op:a"], dnsNames: ["*.op.example"])
        #expect(request.problem() == nil)
        request.serial = [0x80] + Array(repeating: 1, count: 19)
        #expect(request.problem()?.description.contains("20 bytes") == true, "21 octets in DER")
        request.serial = [0x00, 0x7F] + Array(repeating: 1, count: 19)
        #expect(request.problem() == nil, "a leading zero byte is not counted")
        request.notAfter = request.notBefore - 1
        #expect(request.problem() != nil)
        #expect(Self.request(ca: false, pathLength: 0).problem() != nil)
        #expect(Self.request(ca: true, pathLength: -1).problem() != nil)
        for uri in ["op.example", "1http://x", "https://op.example/a b", ":x"] {
            #expect(Self.request(ca: false, uris: [uri]).problem() != nil, "\(uri)")
        }
        for name in ["", "a..b", "-a.example", "a_b.example", "*", "a.*.example"] {
            #expect(Self.request(ca: false, dnsNames: [name]).problem() != nil, "\(name)")
        }
    }

    @Test(arguments: [SignatureAlgorithm.es256, .edDSA])
    func issuedCertificatesReadBack(_ algorithm: SignatureAlgorithm) throws {
        let rootKey = SigningKey.generate(algorithm: algorithm, keyID: "root")
        let leafKey = SigningKey.generate(algorithm: .es256, keyID: "leaf")
        let (root, rootWarnings) = try CertificateIssuer.issue(
            Self.request(ca: true, pathLength: 1), subjectKey: try Self.subjectKey(rootKey, privately: true),
            signer: .selfSigned)
        #expect(rootWarnings.isEmpty)
        #expect(root.isCA && root.pathLength == 1 && root.subject == "CN=test" && root.holds(rootKey))
        let (leaf, _) = try CertificateIssuer.issue(
            Self.request(ca: false, uris: ["https://op.example"]),
            subjectKey: try Self.subjectKey(leafKey, privately: false), signer: .issuer(root, rootKey))
        #expect(!leaf.isCA && leaf.holds(leafKey) && !leaf.holds(rootKey))
        #expect(leaf.keyType == .p256 && leaf.publicKey.count == 64)
        let pem = leaf.pem + root.pem
        #expect(pem.split(separator: "\n").allSatisfy { $0.count <= 64 })
        let read = try Certificate.read(pem: Array(pem.utf8))
        #expect(read.map(\.der) == [leaf.der, root.der])
        // Signed under a key that is not the issuer certificate's: refused.
        #expect(throws: CertificateProblem.self) {
            try CertificateIssuer.issue(
                Self.request(ca: false), subjectKey: try Self.subjectKey(leafKey, privately: false),
                signer: .issuer(root, leafKey))
        }
    }

    @Test func pemChainsAreReadStrictly() throws {
        let key = SigningKey.generate(algorithm: .es256, keyID: "k")
        let (root, _) = try CertificateIssuer.issue(
            Self.request(ca: true), subjectKey: try Self.subjectKey(key, privately: true), signer: .selfSigned)
        #expect(throws: CertificateProblem.self) { try Certificate(der: root.der + [0]) }
        #expect(throws: CertificateProblem.self) { try Certificate(der: Array(root.der.dropLast())) }
        let keyBlock = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----\n"
        #expect(throws: CertificateProblem.self) { try Certificate.read(pem: Array((root.pem + keyBlock).utf8)) }
        #expect(throws: CertificateProblem.self) { try Certificate.read(pem: Array("no pem".utf8)) }
    }

    @Test func chainHeadersHaveTheirExactForm() throws {
        let key = SigningKey.generate(algorithm: .ed25519, keyID: "k")
        let (root, _) = try CertificateIssuer.issue(
            Self.request(ca: true), subjectKey: try Self.subjectKey(key, privately: true), signer: .selfSigned)
        let one = try TokenChain([root], signingKey: key)
        let length = root.der.count
        #expect(length > 255 && length < 65536, "a two-byte length head")
        let lengthHead: [UInt8] = [0x59, UInt8(length >> 8), UInt8(length & 0xFF)]
        // {1: -19, 33: h'…'}
        #expect(one.coseProtectedHeader(algorithm: -19) == [0xA2, 0x01, 0x32, 0x18, 0x21] + lengthHead + root.der)
        let two = try TokenChain([root, root], signingKey: key)
        // {1: -19, 16: "t", 33: [h'…', h'…']}
        #expect(
            two.coseProtectedHeader(algorithm: -19, type: "t")
                == [0xA3, 0x01, 0x32, 0x10, 0x61, 0x74, 0x18, 0x21, 0x82] + lengthHead + root.der + lengthHead
                + root.der)
        let base64 = StandardBase64.encode(root.der)
        #expect(
            String(decoding: one.jwsHeader(algorithm: .ed25519, type: "JWT"), as: UTF8.self)
                == "{\"alg\":\"Ed25519\",\"typ\":\"JWT\",\"x5c\":[\"\(base64)\"]}")
        #expect(StandardBase64.encode([0xFB, 0xFF]) == "+/8=" && StandardBase64.encode([1, 2, 3]) == "AQID")
        let other = SigningKey.generate(algorithm: .ed25519, keyID: "other")
        #expect(throws: CertificateProblem.self) { try TokenChain([root], signingKey: other) }
        #expect(throws: CertificateProblem.self) { try TokenChain([], signingKey: key) }
    }
}
