import Foundation
import TestSupport
import Testing
import TokenVerifier

/// Hostile CBOR (spec §2b) sent to `tokenverify verify` as CWT lines, through the built binary:
/// indefinite lengths, duplicate keys, deep nesting, huge declared lengths, wrong tags, trailing
/// bytes, ill-formed items. Every line is answered once, in order, with the right reason.
@Suite struct HostileCWTTests {
    func head(_ major: UInt8, _ argument: Int) -> [UInt8] {
        argument < 24
            ? [major << 5 | UInt8(argument)]
            : argument < 256
                ? [major << 5 | 24, UInt8(argument)]
                : [major << 5 | 25, UInt8(argument >> 8), UInt8(argument & 0xFF)]
    }
    func text(_ value: String) -> [UInt8] { head(3, value.utf8.count) + Array(value.utf8) }
    func bytes(_ value: [UInt8]) -> [UInt8] { head(2, value.count) + value }

    /// A COSE_Sign1 message (tag 18) from encoded parts; the signature is 64 junk bytes.
    func message(
        protected: [UInt8], unprotected: [UInt8] = [0xA0], payload: [UInt8],
        signature: [UInt8] = Array(repeating: 9, count: 64)
    ) -> String {
        Base64URL.encodeString([0xD2, 0x84] + bytes(protected) + unprotected + bytes(payload) + bytes(signature))
    }

    @Test func hostileCBORIsRefusedLineByLine() throws {
        let space = try Workspace()
        let protected: [UInt8] = [0xA2, 0x01, 0x32] + [0x04] + bytes(Array("ed-1".utf8))  // {1: -19, 4: h'ed-1'}
        let claims: [UInt8] =
            [0xA7, 0x01] + text("operator-a") + [0x02] + text("phone-1") + [0x03] + text("car-1")
            + [0x07] + text("t-1") + [0x04, 0x1A, 0x6B, 0x49, 0xE0, 0x10] + text("ch") + [0x81] + text("ble")
            + text("cmd") + [0x81] + text("unlock")
        let good = message(protected: protected, payload: claims)
        let goodBytes = Base64URL.decode(Array(good.utf8))!
        var deep: [UInt8] = Array(repeating: 0x81, count: 40_000) + [0x00]
        deep = [0xA8] + Array(claims.dropFirst()) + [0x18, 0x63] + deep
        let cases: [(String, String)] = [
            (good, "bad_signature"),  // well-formed: reaches the signature
            // indefinite map
            (message(protected: protected, payload: [0xBF] + claims.dropFirst() + [0xFF]), "malformed_token"),
            // indefinite protected header
            (message(protected: [0xBF, 0x01, 0x32, 0xFF], payload: claims), "malformed_token"),
            (
                Base64URL.encodeString([0xD2, 0x9F] + bytes(protected) + [0xA0] + bytes(claims) + bytes([1]) + [0xFF]),
                "malformed_token"
            ),
            (
                message(protected: protected, payload: [0xA8] + claims.dropFirst() + [0x01] + text("again")),
                "malformed_token"
            ),  // duplicate iss
            (
                message(
                    protected: [0xA3, 0x01, 0x32, 0x01, 0x32] + [0x04] + bytes(Array("ed-1".utf8)), payload: claims),
                "malformed_token"
            ),
            (message(protected: protected, payload: deep), "malformed_token"),  // 40,000 levels
            (
                Base64URL.encodeString([0xD2, 0x84, 0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
                "malformed_token"
            ),  // 2^64-byte bstr
            // 2^63-item array
            (Base64URL.encodeString([0xD2, 0x9B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]), "malformed_token"),
            (
                message(protected: protected, payload: [0xBB, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
                "malformed_token"
            ),  // huge map
            (Base64URL.encodeString([0xD8, 0x62] + goodBytes.dropFirst()), "malformed_token"),  // tag 98 (COSE_Sign)
            (Base64URL.encodeString([0xD1] + goodBytes.dropFirst()), "malformed_token"),  // tag 17 (COSE_Mac0)
            (Base64URL.encodeString([0xD2] + goodBytes), "malformed_token"),  // 18 twice
            (Base64URL.encodeString(goodBytes + [0xF6]), "malformed_token"),  // trailing byte
            (Base64URL.encodeString(goodBytes + goodBytes), "malformed_token"),  // two messages
            // trailing byte in the payload
            (message(protected: protected, payload: claims + [0x00]), "malformed_token"),
            // trailing byte in the header
            (message(protected: protected + [0x00], payload: claims), "malformed_token"),
            (
                message(
                    protected: protected, payload: [0xA8] + claims.dropFirst() + [0x18, 0x63, 0x63, 0xED, 0xA0, 0x80]),
                "malformed_token"
            ),  // surrogate in UTF-8
            (
                message(protected: protected, payload: [0xA8] + claims.dropFirst() + [0x18, 0x63, 0xF8, 0x01]),
                "malformed_token"
            ),  // ill-formed simple
            (
                message(protected: [0xA2, 0x01, 0x38, 0x22] + [0x04] + bytes(Array("ed-1".utf8)), payload: claims),
                "unsupported_alg"
            ),  // -35
            (
                message(
                    protected: protected, unprotected: [0xA1, 0x21] + bytes(Array(space.ed.publicJWK.utf8)),
                    payload: claims), "bad_signature"
            ),  // a key in a header
            (String(repeating: "A", count: 60_000), "malformed_token"),
            (good + "=", "malformed_token"), ("_-_-", "malformed_token"),
        ]
        let output = try Tool.run(space.verifyArguments, input: cases.map(\.0).joined(separator: "\n") + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.answers.map { $0["line"] as? Int } == Array(1...cases.count))
        for (index, answer) in output.answers.enumerated() {
            #expect(answer["reason"] as? String == cases[index].1, "line \(index + 1): \(answer)")
        }
    }

    /// Random bytes as CWTs: one answer each, never a crash.
    @Test func randomCBORGetsOneAnswerEach() throws {
        let space = try Workspace()
        var generator = SystemRandomNumberGenerator()
        let lines = (0..<2000).map { index -> String in
            let count = Int.random(in: 1...200, using: &generator)
            var bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            if index % 2 == 0 { bytes = [0xD2, 0x84] + bytes }
            return Base64URL.encodeString(bytes)
        }
        let output = try Tool.run(space.verifyArguments, input: lines.joined(separator: "\n") + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.answers.map { $0["line"] as? Int } == Array(1...lines.count))
        #expect(output.answers.allSatisfy { $0["valid"] as? Bool == false })
    }
}
