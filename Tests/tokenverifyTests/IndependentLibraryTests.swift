import Foundation
import TestSupport
import Testing

/// Tokens and keys made by an independent JOSE library (Python's joserfc, which
/// scripts/install-dependencies installs into .venv-interop) go through `keys import` and
/// `tokenverify verify` with the verdicts that library's authors would expect. Without joserfc
/// the test is skipped with the reason (a failure when CI is set: see `External`).
@Suite struct IndependentLibraryTests {
    static let script = #"""
        import json, sys, warnings
        warnings.simplefilter("ignore")
        from joserfc import jwt
        from joserfc.jwk import OKPKey, ECKey
        out = sys.argv[1]
        ed = OKPKey.generate_key("Ed25519", parameters={"kid": "jose-ed"})
        ec = ECKey.generate_key("P-256", parameters={"kid": "jose-ec"})
        json.dump({"keys": [ed.as_dict(private=False), ec.as_dict(private=False)]}, open(out + "/keys.jwks", "w"))
        claims = {"iss": "op", "sub": "phone", "aud": ["car"], "jti": "j1", "exp": 4102444800, "ch": ["ble"], "cmd": ["unlock"]}
        lines = [
            (jwt.encode({"alg": "EdDSA", "kid": "jose-ed"}, claims, ed, algorithms=["EdDSA"]), None),
            (jwt.encode({"alg": "Ed25519", "kid": "jose-ed"}, claims, ed, algorithms=["Ed25519"]), None),
            (jwt.encode({"alg": "ES256", "kid": "jose-ec", "typ": "JWT"}, claims, ec, algorithms=["ES256"]), None),
            (jwt.encode({"alg": "ES256", "kid": "jose-ec"}, dict(claims, exp=1700000000), ec, algorithms=["ES256"]), "expired"),
            (jwt.encode({"alg": "ES256", "kid": "jose-ed"}, claims, ec, algorithms=["ES256"]), "key_alg_mismatch"),
        ]
        forged = lines[0][0].split(".")
        forged[2] = lines[1][0].split(".")[2][::-1]
        lines.append((".".join(forged), None))  # reversed signature: bad_signature or malformed_token
        with open(out + "/tokens.txt", "w") as f:
            f.write("\n".join(token for token, _ in lines) + "\n")
        json.dump([reason for _, reason in lines], open(out + "/expected.json", "w"))
        """#

    @Test func joserfcTokensVerify() throws {
        try External.require(External.pythonProblem("joserfc") == nil, External.pythonProblem("joserfc") ?? "")
        let space = try Workspace()
        let mint = try External.run(External.python, ["-c", Self.script, space.directory.path])
        #expect(mint.status == 0, "\(mint.stderr)")
        // joserfc's key set goes through `keys import` unchanged (its keys have kids).
        let imported = try Tool.run(["keys", "import", space.path("keys.jwks")])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\"kid\":\"jose-ed\"") && imported.stdout.contains("\"kid\":\"jose-ec\""))
        try space.write("imported.jwks", imported.stdout)
        let output = try Tool.run([
            "verify", "--keys", space.path("imported.jwks"), "--at", "1800000000", space.path("tokens.txt"),
        ])
        let expected =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: space.path("expected.json"))))
            as! [Any]
        let reasons = output.answers.map { $0["reason"] as? String }
        #expect(reasons.count == expected.count)
        for (index, reason) in reasons.enumerated().dropLast() {
            #expect(reason == expected[index] as? String, "line \(index + 1): \(output.lines[index])")
        }
        #expect(["bad_signature", "malformed_token"].contains(reasons.last ?? nil))
    }
}
