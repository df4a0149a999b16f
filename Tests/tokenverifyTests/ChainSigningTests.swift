import Foundation
import TestSupport
import Testing
import TokenVerifier

/// `sign --chain` and `status-list --chain` (spec §3b): the chain goes into the header leaf
/// first (JWS `x5c`, standard base64 DER; CWT protected header 33 `x5chain`, one bstr or an
/// array) in place of the `kid`, and a chain whose leaf does not hold the signing key is refused.
/// A JWS is verified by joserfc and a CWT by pycose with the leaf key taken from the chain.
@Suite struct ChainSigningTests {
    static let claims = Workspace.claims(["iss": "\"https://op.example\""]) + "\n"

    /// The JSON header of a compact JWS.
    static func header(_ token: String) throws -> [String: Any] {
        let segment = try #require(token.split(separator: ".").first)
        let bytes = try #require(Base64URL.decode(Array(segment.utf8)))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// The protected header map of a base64url CWT (COSE_Sign1 under tag 18).
    static func protectedHeader(_ token: String) throws -> CBORItem {
        let bytes = try #require(Base64URL.decode(Array(token.utf8)))
        let message = try #require(CBORItem.decode(bytes))
        guard case .tagged(18, .array(let parts)) = message, parts.count == 4, case .bytes(let protected) = parts[0]
        else {
            Issue.record("not a COSE_Sign1 under tag 18: \(message)")
            return .map([])
        }
        return try #require(CBORItem.decode(protected))
    }

    static func sign(_ chain: ChainFixture, _ arguments: [String]) throws -> String {
        let signed = try Tool.run(["sign", "--key", chain.path("leaf.private.jwk")] + arguments, input: claims)
        try #require(signed.status == 0, "\(signed.stderr)")
        return signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test(arguments: [0, 1])
    func jwsCarriesX5cLeafFirstAndNoKid(_ index: Int) throws {
        let chain = try ChainFixture(CertificateCommandTests.keyTypes[index])
        let token = try Self.sign(chain, ["--chain", chain.path("chain.pem")])
        let header = try Self.header(token)
        #expect(Set(header.keys) == ["alg", "typ", "x5c"], "\(header)")
        #expect(header["alg"] as? String == (index == 0 ? "ES256" : "EdDSA"))
        let x5c = try #require(header["x5c"] as? [String])
        let expected = ChainFixture.ders(pem: try chain.text("leaf.pem") + chain.text("inter.pem"))
        #expect(x5c.count == 2)
        #expect(x5c.map { Data(base64Encoded: $0) } == expected, "standard base64 of the DER, leaf first")
        #expect(x5c.allSatisfy { !$0.contains("-") && !$0.contains("_") && $0.count % 4 == 0 })
        // Without --chain the header is the usual one, with the kid.
        let plain = try Self.header(try Self.sign(chain, []))
        #expect(plain["kid"] as? String == "leaf" && plain["x5c"] == nil)
    }

    @Test func cwtCarriesX5chainAsOneBstrOrAnArray() throws {
        let chain = try ChainFixture(("EdDSA", "ES256", "ES256"))
        let leafDER = ChainFixture.ders(pem: try chain.text("leaf.pem"))[0]
        let interDER = ChainFixture.ders(pem: try chain.text("inter.pem"))[0]
        let two = try Self.protectedHeader(
            try Self.sign(chain, ["--format", "cwt", "--chain", chain.path("chain.pem")]))
        #expect(two[1] == .negative(6), "alg -7 (ES256)")
        #expect(two[4] == nil, "no kid beside the chain")
        #expect(two[33] == .array([.bytes(Array(leafDER)), .bytes(Array(interDER))]))
        let one = try Self.protectedHeader(
            try Self.sign(chain, ["--format", "cwt", "--chain", chain.path("leaf.pem")]))
        #expect(one[33] == .bytes(Array(leafDER)), "one certificate is one bstr (RFC 9360)")
        guard case .map(let pairs) = one else { return }
        #expect(pairs.map { "\($0.0)" } == ["\(CBORItem.unsigned(1))", "\(CBORItem.unsigned(33))"])
        let plain = try Self.protectedHeader(try Self.sign(chain, ["--format", "cwt"]))
        #expect(plain[4] == .bytes(Array("leaf".utf8)) && plain[33] == nil)
    }

    @Test func aChainWhoseLeafIsNotTheSigningKeyIsRefused() throws {
        let chain = try ChainFixture(("ES256", "EdDSA", "ES256"))
        for format in ["jws", "cwt"] {
            let wrongOrder = try Tool.run(
                [
                    "sign", "--key", chain.path("leaf.private.jwk"), "--format", format, "--chain",
                    chain.path("inter.pem"),
                ],
                input: Self.claims)
            #expect(wrongOrder.status == 2 && wrongOrder.stdout.isEmpty)
            #expect(
                wrongOrder.stderr.contains(
                    "the leaf certificate \"CN=Test CA 1,O=Operator\" (Ed25519) does not hold the signing key \"leaf\" (P-256)"
                ),
                "\(wrongOrder.stderr)")
        }
        let list = try Tool.run(
            [
                "status-list", "--key", chain.path("inter.private.jwk"), "--uri", "https://op.example/sl", "--size",
                "8", "--iss", ChainFixture.issuer, "--chain", chain.path("chain.pem"),
            ], input: "")
        #expect(list.status == 2 && list.stderr.contains("does not hold the signing key \"inter\""), "\(list.stderr)")
        let notPEM = try Tool.run(
            ["sign", "--key", chain.path("leaf.private.jwk"), "--chain", chain.path("leaf.jwks")], input: Self.claims)
        #expect(notPEM.status == 2 && notPEM.stderr.contains("leaf.jwks: no PEM certificate"), "\(notPEM.stderr)")
    }

    @Test func statusListTokensCarryTheChain() throws {
        let chain = try ChainFixture(("ES256", "EdDSA", "EdDSA"))
        let arguments = [
            "status-list", "--key", chain.path("leaf.private.jwk"), "--uri", "https://op.example/sl", "--size", "8",
            "--iat", "1800000000", "--chain", chain.path("chain.pem"),
        ]
        let withoutIssuer = try Tool.run(arguments, input: "")
        #expect(withoutIssuer.status == 2 && withoutIssuer.stderr.contains("--chain needs --iss"), "\(withoutIssuer)")
        let jws = try Tool.run(arguments + ["--iss", ChainFixture.issuer], input: "{\"idx\":3,\"status\":1}\n")
        try #require(jws.status == 0, "\(jws.stderr)")
        let header = try Self.header(jws.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Set(header.keys) == ["alg", "typ", "x5c"] && header["typ"] as? String == "statuslist+jwt")
        #expect((header["x5c"] as? [String])?.count == 2)
        let payload = try #require(Base64URL.decode(Array(jws.stdout.split(separator: ".")[1].utf8)))
        let claims = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        #expect(claims["iss"] as? String == ChainFixture.issuer && claims["sub"] as? String == "https://op.example/sl")
        let cwt = try Tool.run(
            arguments + ["--iss", ChainFixture.issuer, "--format", "cwt"], input: "{\"idx\":3,\"status\":1}\n")
        try #require(cwt.status == 0, "\(cwt.stderr)")
        let protected = try Self.protectedHeader(cwt.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(protected[16] == .text("application/statuslist+cwt") && protected[4] == nil)
        guard case .array(let certificates) = protected[33] else {
            Issue.record("x5chain is not an array: \(String(describing: protected[33]))")
            return
        }
        #expect(certificates.count == 2)
        // The claims map gains 1: iss.
        let cwtText = cwt.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cwtBytes = try #require(Base64URL.decode(Array(cwtText.utf8)))
        let message = try #require(CBORItem.decode(cwtBytes))
        guard case .tagged(18, .array(let parts)) = message, case .bytes(let cwtClaims) = parts[2] else {
            Issue.record("not a COSE_Sign1: \(message)")
            return
        }
        let claimsMap = try #require(CBORItem.decode(cwtClaims))
        #expect(claimsMap[1] == .text(ChainFixture.issuer) && claimsMap[2] == .text("https://op.example/sl"))
        #expect(claimsMap[6] == .unsigned(1_800_000_000))
        // Without a chain (until verify reads chains, a list read needs a kid) an iss leaves the
        // list readable: its entries are those written.
        for format in ["jws", "cwt"] {
            let plain = try Tool.run(
                Array(arguments.dropLast(2)) + ["--iss", ChainFixture.issuer, "--format", format],
                input: "{\"idx\":3,\"status\":1}\n")
            let inspected = try Tool.run(["inspect", plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
            #expect(
                inspected.status == 0 && inspected.stdout.contains(#""non_zero":[{"idx":3,"status":1}]"#)
                    && inspected.stdout.contains(ChainFixture.issuer), "\(format): \(inspected.stdout)")
        }
    }

    static let jwsVerifier = #"""
        import base64, json, sys, warnings
        warnings.simplefilter("ignore")
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
        from joserfc import jwt
        from joserfc.jwk import ECKey, OKPKey
        from joserfc.jws import JWSRegistry
        for token in open(sys.argv[1]).read().split():
            text = token.split(".")[0]
            header = json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
            leaf = x509.load_der_x509_certificate(base64.b64decode(header["x5c"][0], validate=True))
            pem = leaf.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
            key = ECKey.import_key(pem) if header["alg"] == "ES256" else OKPKey.import_key(pem)
            registry = JWSRegistry(algorithms=[header["alg"]])
            registry.max_header_length = 8192  # joserfc's default, 512 bytes, is less than a chain
            try:
                claims = jwt.decode(token, key, registry=registry).claims
                print("ok", leaf.subject.rfc4514_string(), claims["iss"])
            except Exception as error:
                print("refused:", type(error).__name__)
        """#

    static let cwtVerifier = #"""
        import base64, sys, warnings
        warnings.simplefilter("ignore")
        import cbor2
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization
        from pycose.messages import Sign1Message
        from pycose.keys import OKPKey, EC2Key
        from pycose.keys.curves import Ed25519, P256
        for token in open(sys.argv[1]).read().split():
            data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
            chain = cbor2.loads(cbor2.loads(data).value[0])[33]
            leaf = x509.load_der_x509_certificate(chain[0] if isinstance(chain, list) else chain)
            public = leaf.public_key()
            message = Sign1Message.decode(data)
            if hasattr(public, "public_numbers"):
                numbers = public.public_numbers()
                message.key = EC2Key(crv=P256, x=numbers.x.to_bytes(32, "big"), y=numbers.y.to_bytes(32, "big"))
            else:
                message.key = OKPKey(crv=Ed25519, x=public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw))
            print(("ok " + leaf.subject.rfc4514_string()) if message.verify_signature() else "refused: signature")
        """#

    /// Tokens of both key types, the second of each with a flipped signature byte.
    static func tokens(format: String) throws -> String {
        var tokens: [String] = []
        for index in [0, 1] {
            let chain = try ChainFixture(CertificateCommandTests.keyTypes[index])
            let token = try sign(chain, ["--format", format, "--chain", chain.path("chain.pem")])
            var bytes = try #require(
                Base64URL.decode(Array((format == "jws" ? token.split(separator: ".")[2] : Substring(token)).utf8)))
            bytes[bytes.count - 3] ^= 1
            let flipped = Base64URL.encodeString(bytes)
            tokens += [
                token,
                format == "jws" ? token.split(separator: ".")[0..<2].joined(separator: ".") + "." + flipped : flipped,
            ]
        }
        return tokens.joined(separator: "\n") + "\n"
    }

    @Test func joserfcVerifiesChainedJWSWithTheLeafKeyFromX5c() throws {
        try External.require(
            External.pythonProblem("joserfc") == nil && External.pythonProblem("cryptography") == nil,
            External.pythonProblem("joserfc") ?? External.pythonProblem("cryptography") ?? "")
        let space = try Workspace()
        let file = try space.write("tokens.txt", try Self.tokens(format: "jws"))
        let result = try External.run(External.python, ["-c", Self.jwsVerifier, file])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let ok = "ok CN=signer-1 https://op.example"
        #expect(lines == [ok, "refused: BadSignatureError", ok, "refused: BadSignatureError"], "\(result.stdout)")
    }

    @Test func pycoseVerifiesChainedCWTWithTheLeafKeyFromX5chain() throws {
        try External.require(CWTInteropTests.problem() == nil, CWTInteropTests.problem() ?? "")
        let space = try Workspace()
        let file = try space.write("tokens.txt", try Self.tokens(format: "cwt"))
        let result = try External.run(External.python, ["-c", Self.cwtVerifier, file])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(
            lines == ["ok CN=signer-1", "refused: signature", "ok CN=signer-1", "refused: signature"],
            "\(result.stdout)")
    }
}
