import Foundation
import TestSupport
import Testing

@testable import TokenTools
@testable import TokenVerifier

/// RFC 6979 nonces for ES256 (`TokenSigner`, used by `gen`), against RFC 6979 Appendix A.2.5
/// (P-256, SHA-256), and tokens that the verifier accepts.
@Suite struct DeterministicES256Tests {
    static func hex(_ text: String) -> [UInt8] { hexBytes(text) }

    static let privateKey = hex("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721")

    @Test(arguments: [
        (
            "sample", "A6E3C57DD01ABE90086538398355DD4C3B17AA873382B0F24D6129493D8AAD60",
            "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
            "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
        ),
        (
            "test", "D16B6AE827F17175E040871A1C7EC3500192C4C92677336EC2537ACAEE0008E0",
            "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
            "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"
        ),
    ])
    func rfc6979AppendixA25(message: String, k: String, r: String, s: String) throws {
        let result = try #require(TokenSigner.deterministicES256(Array(message.utf8), privateScalar: Self.privateKey))
        #expect(result.nonce == Self.hex(k))
        #expect(Array(result.signature[..<32]) == Self.hex(r))
        #expect(Array(result.signature[32...]) == Self.hex(s))
    }

    @Test func publicKeyOfTheVectorKey() throws {
        let key = try #require(P256PrivateKey(d: Self.privateKey))
        #expect(key.x == Self.hex("60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"))
        #expect(key.y == Self.hex("7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299"))
    }

    /// The signer's tokens are the same every time, verify, and a tampered payload does not.
    @Test(arguments: [SignatureAlgorithm.es256, .ed25519, .edDSA])
    func signerTokensVerify(_ algorithm: SignatureAlgorithm) throws {
        let key = try SigningKey.derive(algorithm: algorithm, keyID: "k-1", secret: Array(repeating: 7, count: 32))
        let claims = Array(Fixtures.claims().utf8)
        let tampered = Array(Fixtures.claims(["role": "\"admin\""]).utf8)
        var tokens: [UInt8] = []
        let signer = TokenSigner(key: key)
        let other = TokenSigner(key: key)
        claims.withUnsafeBufferPointer { signer.appendToken(claims: $0, to: &tokens) }
        tokens.append(UInt8(ascii: "\n"))
        claims.withUnsafeBufferPointer { other.appendToken(claims: $0, to: &tokens) }
        tokens.append(UInt8(ascii: "\n"))
        claims.withUnsafeBufferPointer { claimBytes in
            tampered.withUnsafeBufferPointer {
                signer.appendToken(claims: claimBytes, to: &tokens, presentedClaims: $0)
            }
        }
        let lines = tokens.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 3 && lines[0] == lines[1])
        let verifier = Verifier(
            keys: try KeySet(keys: [try Fixtures.publicKey(key)]), revocations: .empty,
            options: VerificationOptions(checkTime: Fixtures.now))
        #expect(verifier.verify(VerificationRequest(token: lines[0])).isValid)
        #expect(verifier.verify(VerificationRequest(token: lines[2])).reason == .badSignature)
        if algorithm == .es256 {
            // Not OpenSSL's randomised signing: the same input signed twice with `sign` differs.
            #expect(key.sign(claims: claims) != key.sign(claims: claims))
        } else {
            #expect(key.sign(claims: claims) == lines[0])
        }
    }
}
