import Foundation
import TestSupport
import Testing
import TokenVerifier

/// `keygen`, `sign`, `gen`, `inspect` and `--help`/`--version`, end to end.
@Suite struct ToolCommandTests {
    @Test(arguments: ["Ed25519", "EdDSA", "ES256"])
    func keygenSignVerifyRoundTrip(_ alg: String) throws {
        let space = try Workspace()
        let name = space.path("op")
        let keygen = try Tool.run([
            "keygen", "--alg", alg, "--kid", "op-\(alg)", "--env", "prod", "--iss", "operator-a", "--out", name,
        ])
        #expect(keygen.status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: name + ".private.jwk")
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let claims = Workspace.claims(["env": "\"prod\""])
        let signed = try Tool.run(
            ["sign", "--key", name + ".private.jwk"], input: claims + "\n\nnot json\n" + claims + "\n")
        #expect(signed.status == 1)  // one bad line
        #expect(signed.stderr.contains(":3:"))
        #expect(signed.lines.count == 2)
        let verified = try Tool.run(
            [
                "verify", "--keys", name + ".jwks", "--env", "prod", "--issuer", "operator-a", "--at",
                Workspace.checkTime,
            ],
            input: signed.stdout)
        #expect(verified.answers.count == 2)
        #expect(verified.answers.allSatisfy { $0["valid"] as? Bool == true && $0["alg"] as? String == alg })
    }

    @Test func keygenPrintsBothHalves() throws {
        let output = try Tool.run(["keygen", "--alg", "ES256"])
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as! [String: Any]
        let privateJWK = try #require(object["private_jwk"] as? [String: Any])
        let publicJWKS = try #require(object["public_jwks"] as? [String: Any])
        #expect(privateJWK["d"] != nil)
        let publicKey = try #require((publicJWKS["keys"] as? [[String: Any]])?.first)
        #expect(publicKey["d"] == nil)
        #expect(publicKey["kid"] as? String == privateJWK["kid"] as? String)
    }

    @Test func genWritesASetWhoseVerdictsHold() throws {
        let space = try Workspace()
        let out = space.path("set")
        let gen = try Tool.run(["gen", "--count", "2000", "--seed", "42", "--realistic", "--out", out])
        #expect(gen.status == 0)
        let verify = try Tool.run([
            "verify", "--keys", out + "/keys.jwks", "--revocations", out + "/revocations.jsonl",
            "--at", "1800000000", out + "/requests.jsonl",
        ])
        let expected = try String(contentsOfFile: out + "/expected.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(verify.lines.count == 2000)
        #expect(expected.count == 2000)
        var reasons = Set<String>()
        for (answer, line) in zip(verify.answers, expected) {
            let expectation = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(answer["valid"] as? Bool == expectation["valid"] as? Bool)
            #expect(answer["reason"] as? String == expectation["reason"] as? String)
            if let reason = answer["reason"] as? String { reasons.insert(reason) }
        }
        #expect(reasons == ["expired", "revoked_token", "bad_signature", "command_not_permitted"])
        // Reproducible: the same seed gives the same Ed25519 tokens and the same verdicts.
        let again = try Tool.run(["gen", "--count", "2000", "--seed", "42", "--realistic", "--out", out + "2"])
        #expect(again.status == 0)
        #expect(
            try String(contentsOfFile: out + "2/expected.jsonl", encoding: .utf8) == expected.joined(separator: "\n")
                + "\n")
        #expect(
            try String(contentsOfFile: out + "2/keys.jwks", encoding: .utf8)
                == String(contentsOfFile: out + "/keys.jwks", encoding: .utf8))
    }

    @Test func inspectMarksOutputUnverified() throws {
        let space = try Workspace()
        let output = try Tool.run(["inspect", space.token()])
        #expect(output.status == 0)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as! [String: Any]
        #expect(object["UNVERIFIED"] != nil)
        #expect((object["claims"] as? [String: Any])?["sub"] as? String == "phone-1")
        #expect((object["header"] as? [String: Any])?["kid"] as? String == "ed-1")
        #expect(try Tool.run(["inspect", "not-a-token"]).status == 2)
    }

    @Test func helpAndVersion() throws {
        let help = try Tool.run(["verify", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("--revocations") && help.stdout.contains("bad_signature"))
        let version = try Tool.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.contains("tokenverify"))
    }
}
