import Foundation
import TestSupport
import Testing

/// Status lists across implementations: Status List Tokens built by PyPI's `token-status-list`
/// (its JWS header and payload, signed here with `cryptography`: the package's own JWS assembly
/// writes the signature as a Python bytes literal) load and answer for tokens minted by joserfc (JWS) and python-cwt (CWT, claim
/// 65535); its CWT, which follows an earlier draft, is refused with a message that says so.
@Suite struct StatusListInteropTests {
    static let uri = "https://op.example/statuslists/py"

    static let minter = #"""
        import base64, json, sys
        import cwt
        from cwt import COSEKey
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec, ed25519
        from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
        from joserfc import jwt
        from joserfc.jwk import OKPKey, ECKey
        from token_status_list import IssuerStatusList
        out, uri = sys.argv[1], sys.argv[2]
        def b64(data): return base64.urlsafe_b64encode(data).rstrip(b"=").decode()
        ed = ed25519.Ed25519PrivateKey.generate()
        es = ec.generate_private_key(ec.SECP256R1())
        edx = ed.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        edd = ed.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
        nums = es.private_numbers()
        esx, esy, esd = (nums.public_numbers.x.to_bytes(32, "big"), nums.public_numbers.y.to_bytes(32, "big"),
                         nums.private_value.to_bytes(32, "big"))
        edjwk = {"kty": "OKP", "crv": "Ed25519", "x": b64(edx), "kid": "py-ed", "alg": "EdDSA"}
        esjwk = {"kty": "EC", "crv": "P-256", "x": b64(esx), "y": b64(esy), "kid": "py-es", "alg": "ES256"}
        open(out + "/keys.jwks", "w").write(json.dumps({"keys": [edjwk, esjwk]}))
        def sign_es(data):
            r, s = decode_dss_signature(es.sign(data, ec.ECDSA(hashes.SHA256())))
            return r.to_bytes(32, "big") + s.to_bytes(32, "big")
        # The issuer's lists: 2 bits an entry; index 1 INVALID, 2 SUSPENDED, 3 application-specific.
        for name, alg, kid, signer in (("ed", "EdDSA", "py-ed", ed.sign), ("es", "ES256", "py-es", sign_es)):
            issuer = IssuerStatusList.new(2, 1024)
            issuer[1], issuer[2], issuer[3] = 1, 2, 3
            payload = issuer.sign_jwt_payload(alg=alg, kid=kid, iss="operator-a", sub=uri + "/" + name, iat=1799990000, ttl=300)
            # (signed_jwt_token would write the signature as a Python bytes literal: joined here instead)
            open(out + "/" + name + ".statuslist.jwt", "w").write(payload.decode() + "." + b64(signer(payload)))
        old = IssuerStatusList.new(1, 64)
        old[1] = 1
        open(out + "/old.statuslist.cwt", "wb").write(old.sign_cwt(ed.sign, alg="EdDSA", kid=b"py-ed", iss="operator-a", sub=uri, iat=1799990000))
        claims = {"iss": "operator-a", "sub": "phone-1", "aud": "car-1", "exp": 4102444800, "ch": ["ble"], "cmd": ["unlock"]}
        jws_ed = OKPKey.import_key(dict(edjwk, d=b64(edd)))
        jws_es = ECKey.import_key(dict(esjwk, d=b64(esd)))
        cwt_ed = COSEKey.from_jwk(dict(edjwk, d=b64(edd)))
        tokens = []
        for index in (0, 1, 2, 3, 1024):
            for name, key, alg in (("ed", jws_ed, "EdDSA"), ("es", jws_es, "ES256")):
                status = {"status_list": {"idx": index, "uri": uri + "/" + name}}
                tokens.append(jwt.encode({"alg": alg, "kid": key.kid}, dict(claims, jti="j-%d" % index, status=status), key, algorithms=[alg]))
            status = {"status_list": {"idx": index, "uri": uri + "/es"}}
            cbor = {1: "operator-a", 2: "phone-1", 3: "car-1", 4: 4102444800, 7: b"c", "ch": ["ble"], "cmd": ["unlock"], 65535: status}
            tokens.append(b64(cwt.encode_and_sign(cbor, cwt_ed)))
        open(out + "/tokens.txt", "w").write("\n".join(tokens) + "\n")
        """#

    static func problem() -> String? {
        External.pythonProblem("token_status_list") ?? External.pythonProblem("cwt")
            ?? External.pythonProblem("joserfc")
    }

    @Test func listsFromTokenStatusListAnswerForTokensFromJoserfcAndPythonCWT() throws {
        try External.require(Self.problem() == nil, Self.problem() ?? "")
        let space = try Workspace()
        let mint = try External.run(External.python, ["-c", Self.minter, space.directory.path, Self.uri])
        try #require(mint.status == 0, "\(mint.stderr)")
        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", space.path("keys.jwks"),
            "--status-lists", space.path("ed.statuslist.jwt"), "--status-lists", space.path("es.statuslist.jwt"),
            space.path("tokens.txt"),
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let reasons = output.answers.map { $0["reason"] as? String }
        let perIndex: [String?] = [nil, "status_invalid", "status_suspended", "status_invalid", "status_unavailable"]
        #expect(reasons == perIndex.flatMap { [$0, $0, $0] }, "\(output.stdout)")
        #expect(output.answers.filter { $0["format"] as? String == "cwt" }.count == 5)
        #expect(
            output.answers[7]["detail"] as? String
                == #"token index 2 of status list "\#(Self.uri)/es" (issued 2027-01-15T05:13:20Z) is 0x02 SUSPENDED"#)

        let old = try Tool.run(
            ["verify", "--keys", space.path("keys.jwks"), "--status-lists", space.path("old.statuslist.cwt")], input: ""
        )
        #expect(old.status == 2)
        #expect(
            old.stderr.contains(
                #"typ (16) must be "application/statuslist+cwt" (found "statuslist+cwt", an earlier draft's form)"#),
            "\(old.stderr)")
    }
}
