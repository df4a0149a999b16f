import Foundation
import TestSupport
import Testing

/// Tokens and keys made by PyJWT (PyPI) and panva/jose (Debian's node-jose) go through
/// `keys import` and `verify` with the verdicts spec §2 gives them, and tokens from
/// `tokenverify sign` verify in PyJWT, jose and joserfc. A minter that is not installed skips
/// its tests with the reason (a failure when CI is set: see `External`).
@Suite struct InteropMinterTests {
    static let claims =
        #"{"iss": "operator-a", "sub": "phone-1", "aud": "car-1", "jti": "t-1", "exp": 4102444800, "ch": ["ble"], "cmd": ["unlock"]}"#

    /// The verdicts every minter's token list must get, in order (nil: valid).
    static let expected: [String?] = [
        nil, nil,  // EdDSA, ES256
        "expired", "expired",  // EdDSA, ES256
        "bad_signature", "bad_signature",  // EdDSA: tampered payload, tampered signature
        "bad_signature", "bad_signature",  // ES256: tampered payload, tampered signature
        "bad_signature",  // ES256 with a DER signature
        nil,  // ES256 with the high-S twin of its signature
    ]

    static let pyjwtMinter = #"""
        import base64, json, sys
        import jwt
        from jwt.algorithms import OKPAlgorithm, ECAlgorithm
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519
        from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
        out, claims = sys.argv[1], json.loads(sys.argv[2])
        ed = ed25519.Ed25519PrivateKey.generate()
        es = ec.generate_private_key(ec.SECP256R1())
        open(out + "/ed.jwk", "w").write(OKPAlgorithm.to_jwk(ed.public_key()))
        open(out + "/ec-private.jwk", "w").write(ECAlgorithm.to_jwk(es))
        open(out + "/ed.pem", "wb").write(ed.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
        def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        def mint(key, alg, kid, **changes): return jwt.encode(dict(claims, **changes), key, algorithm=alg, headers={"kid": kid})
        ed_ok, es_ok = mint(ed, "EdDSA", "py-ed"), mint(es, "ES256", "py-ec")
        tokens = [ed_ok, es_ok, mint(ed, "EdDSA", "py-ed", exp=1700000000), mint(es, "ES256", "py-ec", exp=1700000000)]
        other = b64(json.dumps(dict(claims, cmd=["engine_start"])).encode())
        for token in (ed_ok, es_ok):
            h, p, s = token.split(".")
            flipped = bytearray(unb64(s)); flipped[5] ^= 1
            tokens += [".".join([h, other, s]), ".".join([h, p, b64(bytes(flipped))])]
        h, p, s = es_ok.split(".")
        raw = unb64(s); r, s_ = int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big")
        n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
        tokens.append(".".join([h, p, b64(encode_dss_signature(r, s_))]))
        tokens.append(".".join([h, p, b64(r.to_bytes(32, "big") + max(s_, n - s_).to_bytes(32, "big"))]))
        open(out + "/tokens.txt", "w").write("\n".join(tokens) + "\n")
        """#

    static let pyjwtVerifier = #"""
        import json, sys
        import jwt
        jwks, tokens = json.load(open(sys.argv[1])), open(sys.argv[2]).read().split()
        keys = {k["kid"]: jwt.PyJWK(k) for k in jwks["keys"]}
        for token in tokens:
            header = jwt.get_unverified_header(token)
            try:
                jwt.decode(token, keys[header["kid"]].key, algorithms=[header["alg"]], audience="car-1")
                print("ok")
            except Exception as error:
                print("refused: " + type(error).__name__)
        """#

    static let joseMinter = #"""
        const jose = require('jose'), fs = require('fs'), crypto = require('crypto');
        (async () => {
          const [out, claimsText] = process.argv.slice(1), claims = JSON.parse(claimsText);
          const ed = await jose.generateKeyPair('EdDSA', { crv: 'Ed25519' }), es = await jose.generateKeyPair('ES256');
          const edJWK = await jose.exportJWK(ed.publicKey), esJWK = await jose.exportJWK(es.publicKey);
          const edKid = await jose.calculateJwkThumbprint(edJWK), esKid = await jose.calculateJwkThumbprint(esJWK);
          fs.writeFileSync(out + '/ed.jwk', JSON.stringify(edJWK));
          fs.writeFileSync(out + '/ec.jwk', JSON.stringify(esJWK));
          fs.writeFileSync(out + '/ec.pem', await jose.exportSPKI(es.publicKey));
          fs.writeFileSync(out + '/ed-private.pem', await jose.exportPKCS8(ed.privateKey));
          fs.writeFileSync(out + '/kids.json', JSON.stringify([edKid, esKid]));
          const mint = (key, alg, kid, changes = {}) => new jose.SignJWT({ ...claims, ...changes }).setProtectedHeader({ alg, kid }).sign(key);
          const edOK = await mint(ed.privateKey, 'EdDSA', edKid), esOK = await mint(es.privateKey, 'ES256', esKid);
          const tokens = [edOK, esOK, await mint(ed.privateKey, 'EdDSA', edKid, { exp: 1700000000 }), await mint(es.privateKey, 'ES256', esKid, { exp: 1700000000 })];
          const other = Buffer.from(JSON.stringify({ ...claims, cmd: ['engine_start'] })).toString('base64url');
          for (const token of [edOK, esOK]) {
            const [h, p, s] = token.split('.');
            const flipped = Buffer.from(s, 'base64url'); flipped[5] ^= 1;
            tokens.push([h, other, s].join('.'), [h, p, flipped.toString('base64url')].join('.'));
          }
          const [h, p, s] = esOK.split('.');
          const der = crypto.sign('sha256', Buffer.from(h + '.' + p), { key: es.privateKey, dsaEncoding: 'der' });
          tokens.push([h, p, der.toString('base64url')].join('.'));
          const raw = Buffer.from(s, 'base64url'), n = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551n;
          const s0 = BigInt('0x' + raw.subarray(32).toString('hex')), high = s0 > n - s0 ? s0 : n - s0;
          const highS = Buffer.concat([raw.subarray(0, 32), Buffer.from(high.toString(16).padStart(64, '0'), 'hex')]);
          tokens.push([h, p, highS.toString('base64url')].join('.'));
          fs.writeFileSync(out + '/tokens.txt', tokens.join('\n') + '\n');
        })().catch((error) => { console.error(error); process.exit(1); });
        """#

    static let joseVerifier = #"""
        const jose = require('jose'), fs = require('fs');
        (async () => {
          const jwks = JSON.parse(fs.readFileSync(process.argv[1])), tokens = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
          for (const token of tokens) {
            const header = jose.decodeProtectedHeader(token), jwk = jwks.keys.find((k) => k.kid === header.kid);
            try {
              await jose.jwtVerify(token, await jose.importJWK(jwk, header.alg), { audience: 'car-1', algorithms: [header.alg] });
              console.log('ok');
            } catch (error) { console.log('refused: ' + error.code); }
          }
        })().catch((error) => { console.error(error); process.exit(1); });
        """#

    static let joserfcVerifier = #"""
        import base64, json, sys, warnings
        warnings.simplefilter("ignore")
        from joserfc import jwt
        from joserfc.jwk import KeySet
        jwks, tokens = json.load(open(sys.argv[1])), open(sys.argv[2]).read().split()
        keys = KeySet.import_key_set(jwks)
        def header(token):
            text = token.split(".")[0]
            return json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        for token in tokens:
            try:
                jwt.decode(token, keys, algorithms=[header(token)["alg"]])
                print("ok")
            except Exception as error:
                print("refused: " + type(error).__name__)
        """#

    static let nodePath = "/usr/share/nodejs"

    static func nodeProblem() -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/node") else {
            return "no /usr/bin/node (Debian's nodejs)"
        }
        guard
            let probe = try? External.run(
                "/usr/bin/node", ["-e", "require('jose')"], environment: ["NODE_PATH": nodePath])
        else { return "cannot start node" }
        return probe.status == 0
            ? nil : "panva/jose is not installed (Debian's node-jose, scripts/install-dependencies)"
    }

    /// Verifies a minter's tokens.txt with the keys in `jwksFiles` and checks the verdicts.
    func expectVerdicts(_ space: Workspace, keys jwksFiles: [String]) throws {
        let output = try Tool.run(
            ["verify", "--at", "1800000000"] + jwksFiles.flatMap { ["--keys", $0] } + [space.path("tokens.txt")])
        #expect(output.status == 0, "\(output.stderr)")
        let reasons = output.answers.map { $0["reason"] as? String }
        #expect(reasons == Self.expected, "\(output.stdout)")
    }

    @Test func pyjwtTokensVerify() throws {
        try External.require(External.pythonProblem("jwt") == nil, External.pythonProblem("jwt") ?? "")
        let space = try Workspace()
        let mint = try External.run(External.python, ["-c", Self.pyjwtMinter, space.directory.path, Self.claims])
        try #require(mint.status == 0, "\(mint.stderr)")
        // to_jwk keys carry no kid: --kid names the one key of each file.
        let ed = try Tool.run(["keys", "import", "--kid", "py-ed", space.path("ed.jwk")])
        let ec = try Tool.run(["keys", "import", "--kid", "py-ec", space.path("ec-private.jwk")])
        #expect(ed.status == 0 && ec.status == 0, "\(ed.stderr) \(ec.stderr)")
        #expect(ec.stderr.contains("private key; only its public part"))
        #expect(!ec.stdout.contains("\"d\""))
        try space.write("ed.jwks", ed.stdout)
        try space.write("ec.jwks", ec.stdout)
        try expectVerdicts(space, keys: [space.path("ed.jwks"), space.path("ec.jwks")])
        // The same key as PEM SPKI imports to the same JWK.
        let pem = try Tool.run(["keys", "import", "--kid", "py-ed", space.path("ed.pem")])
        #expect(pem.status == 0 && pem.stdout == ed.stdout)
    }

    @Test func joseTokensVerify() throws {
        try External.require(Self.nodeProblem() == nil, Self.nodeProblem() ?? "")
        let space = try Workspace()
        let mint = try External.run(
            "/usr/bin/node", ["-e", Self.joseMinter, space.directory.path, Self.claims],
            environment: ["NODE_PATH": Self.nodePath])
        try #require(mint.status == 0, "\(mint.stderr)")
        // exportJWK keys carry no kid: import gives them their RFC 7638 thumbprint, as jose computes it.
        let imported = try Tool.run(["keys", "import", space.path("ed.jwk"), space.path("ec.jwk")])
        #expect(imported.status == 0, "\(imported.stderr)")
        try space.write("keys.jwks", imported.stdout)
        let kids =
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: space.directory.appendingPathComponent("kids.json"))) as! [String]
        let listed = try Tool.run(["keys", "list", space.path("keys.jwks")])
        #expect(listed.lines.map { String($0.split(separator: "\t")[0]) } == kids)
        try expectVerdicts(space, keys: [space.path("keys.jwks")])
        // The same keys as SPKI and PKCS #8 PEM import to the same JWKs.
        let pem = try Tool.run(["keys", "import", space.path("ed-private.pem"), space.path("ec.pem")])
        #expect(pem.status == 0 && pem.stdout == imported.stdout)
        #expect(pem.stderr.contains("ed-private.pem: key \"\(kids[0])\": a private key"))
    }

    /// Tokens from `tokenverify sign` (EdDSA and ES256, the algorithms all three libraries know),
    /// with a tampered copy of each that every library must refuse.
    func signedByTokenverify(_ space: Workspace) throws -> (jwks: String, tokens: String) {
        var keys: [String] = []
        var tokens: [String] = []
        for alg in ["EdDSA", "ES256"] {
            let name = space.path("tv-\(alg)")
            #expect(try Tool.run(["keygen", "--alg", alg, "--kid", "tv-\(alg)", "--out", name]).status == 0)
            let signed = try Tool.run(
                ["sign", "--key", name + ".private.jwk"],
                input: Self.claims.replacingOccurrences(of: "\n", with: "") + "\n")
            #expect(signed.status == 0, "\(signed.stderr)")
            tokens.append(signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            let set =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: name + ".jwks")))
                as! [String: Any]
            keys += (set["keys"] as! [[String: Any]]).map {
                String(decoding: try! JSONSerialization.data(withJSONObject: $0), as: UTF8.self)
            }
        }
        let tampered = tokens.map { token in
            var parts = token.split(separator: ".").map(String.init)
            parts[1] = b64(Self.claims.replacingOccurrences(of: "unlock", with: "engine_start"))
            return parts.joined(separator: ".")
        }
        return (
            try space.write("tv.jwks", "{\"keys\":[\(keys.joined(separator: ","))]}"),
            try space.write("tv-tokens.txt", (tokens + tampered).joined(separator: "\n") + "\n")
        )
    }

    static let reverseExpected = ["ok", "ok", "refused", "refused"]

    @Test func pyjwtVerifiesTokenverifyTokens() throws {
        try External.require(External.pythonProblem("jwt") == nil, External.pythonProblem("jwt") ?? "")
        let space = try Workspace()
        let (jwks, tokens) = try signedByTokenverify(space)
        let result = try External.run(External.python, ["-c", Self.pyjwtVerifier, jwks, tokens])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != ":" })) }
                == Self.reverseExpected, "\(result.stdout)")
    }

    @Test func joseVerifiesTokenverifyTokens() throws {
        try External.require(Self.nodeProblem() == nil, Self.nodeProblem() ?? "")
        let space = try Workspace()
        let (jwks, tokens) = try signedByTokenverify(space)
        let result = try External.run(
            "/usr/bin/node", ["-e", Self.joseVerifier, jwks, tokens], environment: ["NODE_PATH": Self.nodePath])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != ":" })) }
                == Self.reverseExpected, "\(result.stdout)")
    }

    @Test func joserfcVerifiesTokenverifyTokens() throws {
        try External.require(External.pythonProblem("joserfc") == nil, External.pythonProblem("joserfc") ?? "")
        let space = try Workspace()
        let (jwks, tokens) = try signedByTokenverify(space)
        let result = try External.run(External.python, ["-c", Self.joserfcVerifier, jwks, tokens])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != ":" })) }
                == Self.reverseExpected, "\(result.stdout)")
    }
}
