import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenTools
@testable import TokenVerifier

/// The signature back ends against published vectors.
@Suite struct SignatureBackendTests {
    /// RFC 8037 Appendix A.4: the Ed25519 JWS, from the key of Appendix A.1.
    @Test func rfc8037AppendixA4() throws {
        let d = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
        let x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
        let jws =
            "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc.hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"
        let seed = try #require(Base64URL.decode(Array(d.utf8)))
        let publicKey = try #require(Base64URL.decode(Array(x.utf8)))
        #expect(Ed25519Signing.publicKey(seed: seed) == publicKey)
        #expect(Ed25519.isValidPublicKey(publicKey))

        let parts = jws.split(separator: ".")
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        let signature = try #require(Base64URL.decode(Array(parts[2].utf8)))
        #expect(Ed25519Signing.sign(signingInput, seed: seed) == signature)
        #expect(verifyEd25519(signature, signingInput, publicKey))
        var tampered = signature
        tampered[0] ^= 1
        #expect(!verifyEd25519(tampered, signingInput, publicKey))

        // The same key through the JWK path and the library's signer.
        let key = try SigningKey.parse(
            jwk: Array(
                "{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"d\":\"\(d)\",\"x\":\"\(x)\",\"kid\":\"rfc\",\"alg\":\"EdDSA\"}"
                    .utf8))
        #expect(
            key.sign(header: Array(#"{"alg":"EdDSA"}"#.utf8), claims: Array("Example of Ed25519 signing".utf8)) == jws)
    }

    func verifyEd25519(_ signature: [UInt8], _ message: [UInt8], _ publicKey: [UInt8]) -> Bool {
        signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                publicKey.withUnsafeBufferPointer { p in Ed25519.verify(signature: s, message: m, publicKey: p) }
            }
        }
    }

    /// The test groups of one Wycheproof file of `Tests/Vectors/wycheproof`; a missing file fails the test.
    func loadVectors(_ name: String) throws -> [[String: Any]] {
        let url = Repository.vectors("wycheproof").appendingPathComponent(name)
        let data = try #require(FileManager.default.contents(atPath: url.path), "no Wycheproof file at \(url.path)")
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        return try #require(json["testGroups"] as? [[String: Any]])
    }

    @Test func wycheproofEd25519() throws {
        let groups = try loadVectors("ed25519_test.json")
        var count = 0
        for group in groups {
            let publicKey = hexBytes((group["publicKey"] as! [String: Any])["pk"] as! String)
            let keyAccepted = Ed25519.isValidPublicKey(publicKey)
            for test in group["tests"] as! [[String: Any]] {
                let expected = test["result"] as! String == "valid"
                let verified =
                    keyAccepted
                    && verifyEd25519(hexBytes(test["sig"] as! String), hexBytes(test["msg"] as! String), publicKey)
                #expect(verified == expected, "tcId \(test["tcId"]!): \(test["comment"]!)")
                count += 1
            }
        }
        #expect(count == 151)
    }

    @Test func wycheproofP256P1363() throws {
        let groups = try loadVectors("ecdsa_secp256r1_sha256_p1363_test.json")
        var count = 0
        for group in groups {
            let point = hexBytes((group["publicKey"] as! [String: Any])["uncompressed"] as! String)
            let key = try #require(P256PublicKey(x: Array(point[1..<33]), y: Array(point[33..<65])))
            let context = P256VerifyContext(key: key)
            for test in group["tests"] as! [[String: Any]] {
                let expected = test["result"] as! String == "valid"
                let signature = hexBytes(test["sig"] as! String)
                let message = hexBytes(test["msg"] as! String)
                let verified = signature.withUnsafeBufferPointer { s in
                    message.withUnsafeBufferPointer { m in context.verify(signature: s, message: m) }
                }
                #expect(verified == expected, "tcId \(test["tcId"]!): \(test["comment"]!)")
                count += 1
            }
        }
        #expect(count == 262)
    }

    @Test func p256KeysOffTheCurveAreRefused() {
        let x = [UInt8](repeating: 1, count: 32)
        #expect(P256PublicKey(x: x, y: x) == nil)
        let p = hexBytes("FFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF")
        #expect(P256PublicKey(x: p, y: x) == nil)
        let key = P256PrivateKey()
        #expect(P256PublicKey(x: key.x, y: key.y) != nil)
    }

    @Test func ed25519SmallOrderKeysAreRefused() {
        var identity = [UInt8](repeating: 0, count: 32)
        identity[0] = 1
        #expect(!Ed25519.isValidPublicKey(identity))
        #expect(!Ed25519.isValidPublicKey([UInt8](repeating: 0, count: 32)))
    }
}
