import Foundation
import TestSupport
import Testing

/// CWTs (spec §2b) across implementations: CWTs minted by python-cwt and pycose (PyPI) verify in
/// tokenverify with the verdicts the spec gives, and CWTs from `tokenverify sign --format cwt` verify
/// in both. A library that is not installed skips its tests with the reason (a failure when CI
/// is set: see `External`).
@Suite struct CWTInteropTests {
    /// Each library's CWTs, in order: EdDSA and ES256 valid, expired, with a tampered payload, with
    /// a flipped signature bit (python-cwt's eight, then pycose's).
    static let expected: [String?] = Array(
        repeating: [
            nil, nil, "expired", "expired", "bad_signature", "bad_signature",
            "bad_signature", "bad_signature",
        ], count: 2
    ).flatMap { $0 }

    static let minter = #"""
        import base64, json, sys
        import cbor2, cwt
        from cwt import COSEKey
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519
        from cryptography.hazmat.primitives import serialization
        from pycose.messages import Sign1Message
        from pycose.keys import OKPKey, EC2Key
        from pycose.keys.curves import Ed25519, P256
        from pycose.headers import Algorithm, KID
        from pycose.algorithms import EdDSA, Es256
        out = sys.argv[1]
        def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        claims = {5: 1600000000, 6: 1600000000, 1: "operator-a", 2: "phone-1", 3: "car-1", 7: b"t-1", 4: 4102444800, "ch": ["ble"], "cmd": ["unlock"]}
        ed = ed25519.Ed25519PrivateKey.generate()
        es = ec.generate_private_key(ec.SECP256R1())
        edx = ed.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        edd = ed.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        nums = es.private_numbers()
        esx, esy, esd = nums.public_numbers.x.to_bytes(32, "big"), nums.public_numbers.y.to_bytes(32, "big"), nums.private_value.to_bytes(32, "big")
        edjwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(edx), "kid": "py-ed", "alg": "EdDSA"}
        esjwk = {"kty": "EC", "crv": "P-256", "x": b64(esx), "y": b64(esy), "kid": "py-es", "alg": "ES256"}
        open(out + "/keys.jwks", "w").write(json.dumps({"keys": [edjwk, esjwk]}))
        tokens = []
        # python-cwt
        cwt_ed = COSEKey.from_jwk(dict(edjwk, d=b64(edd)))
        cwt_es = COSEKey.from_jwk(dict(esjwk, d=b64(esd)))
        def mint_cwt(key, **changes): return cwt.encode_and_sign({**claims, **{int(k[1:]): v for k, v in changes.items()}}, key)
        def mint_pycose(alg, kid, key, **changes):
            message = Sign1Message(phdr={Algorithm: alg, KID: kid}, payload=cbor2.dumps({**claims, **{int(k[1:]): v for k, v in changes.items()}}))
            message.key = key
            return message.encode()
        pc_ed = OKPKey(crv=Ed25519, x=edx, d=edd)
        pc_es = EC2Key(crv=P256, x=esx, y=esy, d=esd)
        def tampered(token):
            message = cbor2.loads(token)
            message.value[2] = cbor2.dumps(dict(claims, cmd=["engine_start"]))
            return cbor2.dumps(message)
        def flipped(token):
            message = cbor2.loads(token)
            signature = bytearray(message.value[3]); signature[5] ^= 1
            message.value[3] = bytes(signature)
            return cbor2.dumps(message)
        for mint in (lambda key, **c: mint_cwt(cwt_ed if key == "ed" else cwt_es, **c),
                     lambda key, **c: mint_pycose(EdDSA, b"py-ed", pc_ed, **c) if key == "ed" else mint_pycose(Es256, b"py-es", pc_es, **c)):
            ed_ok, es_ok = mint("ed"), mint("es")
            tokens += [ed_ok, es_ok, mint("ed", k4=1700000000), mint("es", k4=1700000000)]
            tokens += [tampered(ed_ok), tampered(es_ok), flipped(ed_ok), flipped(es_ok)]
        open(out + "/tokens.txt", "w").write("\n".join(b64(token) for token in tokens) + "\n")
        """#

    static let verifier = #"""
        import base64, json, sys, warnings
        warnings.simplefilter("ignore")
        import cbor2, cwt
        from cwt import COSEKey
        from pycose.messages import Sign1Message
        from pycose.keys import OKPKey, EC2Key
        from pycose.keys.curves import Ed25519, P256
        library, keys, tokens = sys.argv[1], {}, open(sys.argv[3]).read().split()
        for line in open(sys.argv[2]).read().split("\n"):
            if line.strip():
                for key in json.loads(line)["keys"]: keys[key["kid"]] = key
        def unb64(text): return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        def tampered(data):
            message = cbor2.loads(data)
            claims = cbor2.loads(message.value[2])
            claims["cmd"] = ["engine_start"]
            message.value[2] = cbor2.dumps(claims)
            return cbor2.dumps(message)
        for data in [unb64(token) for token in tokens] + [tampered(unb64(token)) for token in tokens]:
            message = cbor2.loads(data)
            jwk = keys[cbor2.loads(message.value[0])[4].decode()]
            try:
                if library == "cwt":
                    cwt.decode(data, COSEKey.from_jwk(jwk))
                    print("ok")
                else:
                    decoded = Sign1Message.decode(data)
                    x = unb64(jwk["x"])
                    decoded.key = OKPKey(crv=Ed25519, x=x) if jwk["kty"] == "OKP" else EC2Key(crv=P256, x=x, y=unb64(jwk["y"]))
                    print("ok" if decoded.verify_signature() else "refused: signature")
            except Exception as error:
                print("refused: " + type(error).__name__ + " " + str(error))
        """#

    static func problem() -> String? {
        External.pythonProblem("cwt") ?? External.pythonProblem("pycose")
    }

    @Test func cwtsFromPythonCWTAndPycoseVerify() throws {
        try External.require(Self.problem() == nil, Self.problem() ?? "")
        let space = try Workspace()
        let mint = try External.run(External.python, ["-c", Self.minter, space.directory.path])
        try #require(mint.status == 0, "\(mint.stderr)")
        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", space.path("keys.jwks"), space.path("tokens.txt"),
        ])
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.answers.map { $0["reason"] as? String } == Self.expected, "\(output.stdout)")
        #expect(output.answers.allSatisfy { $0["format"] as? String == "cwt" })
        // A bstr cti is reported (and revoked) as its base64url.
        #expect(output.answers.first?["jti"] as? String == "dC0x")
    }

    @Test(arguments: ["cwt", "pycose"])
    func cwtsFromTokenverifyVerifyIn(_ library: String) throws {
        try External.require(Self.problem() == nil, Self.problem() ?? "")
        let space = try Workspace()
        let claims =
            #"{"iss": "operator-a", "sub": "phone-1", "aud": "car-1", "jti": "t-1", "exp": 4102444800, "ch": ["ble"], "cmd": ["unlock"]}"#
        var tokens = ""
        var keys = ""
        for alg in ["EdDSA", "ES256"] {
            let name = space.path("tv-\(alg)")
            #expect(try Tool.run(["keygen", "--alg", alg, "--kid", "tv-\(alg)", "--out", name]).status == 0)
            let signed = try Tool.run(
                ["sign", "--format", "cwt", "--key", name + ".private.jwk"], input: claims + "\n")
            #expect(signed.status == 0, "\(signed.stderr)")
            tokens += signed.stdout
            keys += try String(contentsOfFile: name + ".jwks", encoding: .utf8) + "\n"
        }
        try space.write("keys.lines", keys)
        try space.write("tokens.txt", tokens)
        let result = try External.run(
            External.python, ["-c", Self.verifier, library, space.path("keys.lines"), space.path("tokens.txt")])
        #expect(result.status == 0, "\(result.stderr)")
        // The two CWTs verify; the same two with a tampered payload are refused.
        #expect(
            result.stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != ":" })) } == [
                "ok", "ok", "refused", "refused",
            ],
            "\(result.stdout)")
    }
}
