import Foundation
import Testing
import TokenGen
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// What a hostile or broken world sends `tokenverify verify`, through the built binary: every
/// non-blank line answered exactly once with the right reason, memory bounded, never a crash.
@Suite struct HostileInputTests {
    /// Runs `lines` (joined by newlines) and returns the reasons, one per line; checks that
    /// every answer is numbered as its line.
    private func reasons(_ space: Workspace, _ lines: [String], extra: [String] = []) throws -> [String?] {
        let output = try Tool.run(space.verifyArguments + extra, input: lines.joined(separator: "\n") + "\n")
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.answers.map { $0["line"] as? Int } == Array(1...lines.count))
        return output.answers.map { $0["reason"] as? String }
    }

    private func segments(
        _ header: String, _ claims: String, _ signature: [UInt8] = Array(repeating: 7, count: 64)
    ) -> String {
        b64(header) + "." + b64(claims) + "." + Base64URL.encodeString(signature)
    }

    @Test func algorithmNoneAndAlgorithmConfusionAreRefused() throws {
        let space = try Workspace()
        let claims = Workspace.claims()
        let publicKey =
            Base64URL.decode(
                Array(space.ed.publicJWK.utf8).split(separator: UInt8(ascii: "\"")).map(Array.init)
                    .first { $0.count == 43 } ?? []) ?? []
        let cases: [(String, String)] = [
            (segments(#"{"alg":"none","kid":"ed-1"}"#, claims, []), "unsupported_alg"),
            (segments(#"{"alg":"none","kid":"ed-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":"None","kid":"ed-1"}"#, claims, []), "unsupported_alg"),
            (segments(#"{"kid":"ed-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":null,"kid":"ed-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":["Ed25519"],"kid":"ed-1"}"#, claims), "unsupported_alg"),
            // HS256 with the public key as the MAC secret: the classic confusion.
            (segments(#"{"alg":"HS256","kid":"ed-1"}"#, claims, publicKey), "unsupported_alg"),
            (segments(#"{"alg":"RS256","kid":"es-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":"ES384","kid":"es-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":"ed25519","kid":"ed-1"}"#, claims), "unsupported_alg"),
            (segments(#"{"alg":"es256","kid":"es-1"}"#, claims), "unsupported_alg"),
            // The algorithm comes from the key: a token cannot pick the other back end.
            (space.token(space.es, header: #"{"alg":"Ed25519","kid":"es-1"}"#), "key_alg_mismatch"),
            (space.token(space.es, header: #"{"alg":"EdDSA","kid":"es-1"}"#), "key_alg_mismatch"),
            (space.token(space.ed, header: #"{"alg":"ES256","kid":"ed-1"}"#), "key_alg_mismatch"),
        ]
        #expect(try reasons(space, cases.map(\.0)) == cases.map(\.1))
    }

    @Test func keysCarriedInTheHeaderAreNeverTrusted() throws {
        let space = try Workspace()
        // The attacker signs with a key of their own and offers it in every way JOSE knows.
        let attacker = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
        let attackerES = SigningKey.generate(algorithm: .es256, keyID: "es-1")
        let jwk = attacker.publicJWK
        let headers = [
            #"{"alg":"Ed25519","kid":"ed-1","jwk":\#(jwk)}"#,
            #"{"alg":"Ed25519","kid":"ed-1","jku":"https://attacker.example/jwks.json"}"#,
            #"{"alg":"Ed25519","kid":"ed-1","x5u":"https://attacker.example/cert.pem"}"#,
            #"{"alg":"Ed25519","kid":"ed-1","x5c":["MIIBszCCAVmgAwIBAgIUV2ZkZmRm"]}"#,
            #"{"alg":"Ed25519","kid":"ed-1","jwk":\#(jwk),"jku":"https://a.example/","x5u":"https://a.example/","x5c":["AA"]}"#,
        ]
        var lines = headers.map { space.token(attacker, header: $0) }
        lines.append(space.token(attackerES, header: #"{"alg":"ES256","kid":"es-1","jwk":\#(attackerES.publicJWK)}"#))
        // A kid the key set does not hold stays unknown, whatever the header carries.
        lines.append(space.token(attacker, header: #"{"alg":"Ed25519","kid":"attacker","jwk":\#(jwk)}"#))
        let expected = Array(repeating: "bad_signature", count: headers.count + 1) + ["unknown_key"]
        #expect(try reasons(space, lines) == expected)
        // The same headers on tokens our key signed are fine: the members are ignored, not refused.
        let genuine = headers.map { space.token(space.ed, header: $0) }
        #expect(try reasons(space, genuine) == Array(repeating: nil, count: headers.count))
    }

    @Test func criticalHeaderAndTypeAreChecked() throws {
        let space = try Workspace()
        let lines = [
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","crit":[]}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","crit":["exp"],"exp":1}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","crit":null}"#),
            space.token(header: #"{"alg":"Ed25519"}"#),
            space.token(header: #"{"alg":"Ed25519","kid":7}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","typ":"JOSE"}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","typ":"jwt"}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","typ":"DKT+JWT"}"#),
        ]
        #expect(
            try reasons(space, lines) == [
                "bad_header", "bad_header", "bad_header", "bad_header", "bad_header", "bad_header", nil, nil,
            ])
    }

    @Test func duplicateMembersAtEveryLevel() throws {
        let space = try Workspace()
        let claims = Workspace.claims()
        let body = String(claims.dropFirst().dropLast())
        let token = space.token()
        let lines = [
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","alg":"Ed25519"}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","kid":"es-1"}"#),
            space.token(header: #"{"alg":"Ed25519","kid":"ed-1","x":{"y":1,"y":2}}"#),
            space.token(claims: "{\(body),\"sub\":\"phone-2\"}"),
            space.token(claims: "{\(body),\"s\\u0075b\":\"phone-2\"}"),  // the same name, escaped
            space.token(claims: "{\(body),\"ext\":{\"a\":1,\"b\":{\"c\":[{\"d\":1,\"d\":1}]}}}"),
            space.token(claims: "{\(body),\"ext\":[{\"a\":1},{\"a\":1,\"a\":1}]}"),
            "{\"token\":\"\(token)\",\"token\":\"\(token)\"}",
            "{\"token\":\"\(token)\",\"device\":\"phone-1\",\"device\":\"phone-2\"}",
            "{\"token\":\"\(token)\",\"id\":{\"a\":1,\"a\":2}}",
            "{\"token\":\"\(token)\",\"\\u0069d\":1,\"id\":2}",
            // Not duplicates: the same name in sibling objects, or names that differ by case.
            space.token(claims: "{\(body),\"ext\":[{\"a\":1},{\"a\":1}],\"Sub\":\"x\"}"),
        ]
        let expected: [String?] =
            Array(repeating: "malformed_token", count: 7) + Array(repeating: "malformed_request", count: 4) + [nil]
        #expect(try reasons(space, lines) == expected)
    }

    @Test func deepNestingIsRefusedWithoutExhaustingTheStack() throws {
        let space = try Workspace()
        let body = String(Workspace.claims().dropFirst().dropLast())
        let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
        let deepObject = String(repeating: "{\"a\":", count: 5_000) + "1" + String(repeating: "}", count: 5_000)
        let fine = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let lines = [
            space.token(claims: "{\(body),\"ext\":\(deep)}"),
            space.token(claims: "{\(body),\"ext\":\(deepObject)}"),
            space.token(header: "{\"alg\":\"Ed25519\",\"kid\":\"ed-1\",\"x\":\(deep)}"),
            "{\"token\":\"\(space.token())\",\"id\":\(deep)}",
            "{\"token\":\"\(space.token())\",\"id\":\(String(repeating: "[", count: 40_000))}",
            space.token(claims: "{\(body),\"ext\":\(fine)}"),
        ]
        let expected: [String?] = [
            "malformed_token", "malformed_token", "malformed_token", "malformed_request", "malformed_request", nil,
        ]
        #expect(try reasons(space, lines, extra: ["--max-line-bytes", "1000000"]) == expected)
    }

    @Test func hugeNumbersAndStrings() throws {
        let space = try Workspace()
        let longDigits = "1" + String(repeating: "0", count: 5_000)
        let bigSubject = String(repeating: "p", count: 300_000)
        let lines = [
            space.token(claims: Workspace.claims(["exp": "1e400"])),
            space.token(claims: Workspace.claims(["exp": longDigits])),
            space.token(claims: Workspace.claims(["exp": "-1e400"])),
            // Finite, but outside 0001-01-01 … 9999-12-31: malformed, naming the bound.
            space.token(claims: Workspace.claims(["exp": "1e300"])),
            space.token(claims: Workspace.claims(["exp": "-1e300"])),
            // A NumericDate is a double: this rounds to exactly the check time, so it has expired.
            space.token(claims: Workspace.claims(["exp": "1800000000.000000000000000000001"])),
            space.token(claims: Workspace.claims(["nbf": "0.0000000000000000000000000000000000001e-300"])),
            space.token(claims: Workspace.claims(["exp": "\"1e300\""])),
            space.token(claims: Workspace.claims(["exp": "01800003600"])),
            "{\"token\":\"\(space.token())\",\"at\":1e999}",
            "{\"token\":\"\(space.token())\",\"at\":\(longDigits)}",
            space.token(claims: Workspace.claims(["sub": "\"\(bigSubject)\""])),
        ]
        let expected: [String?] = [
            "malformed_token", "malformed_token", "malformed_token", "malformed_token", "malformed_token", "expired",
            nil,
            "malformed_token", "malformed_token", "malformed_request", "malformed_request", nil,
        ]
        let output = try Tool.run(
            space.verifyArguments + ["--max-line-bytes", "1000000"], input: lines.joined(separator: "\n"))
        #expect(output.answers.map { $0["reason"] as? String } == expected)
        #expect((output.answers.last?["sub"] as? String)?.count == bigSubject.count)
    }

    @Test func invalidAndOverlongUTF8AndNULBytes() throws {
        let space = try Workspace()
        let claimsPrefix = Array(
            #"{"iss":"operator-a","aud":"car-1","jti":"t-1","exp":1800003600,"ch":["ble"],"cmd":["unlock"],"sub":"#.utf8
        )
        func token(subject: [UInt8]) -> String {
            space.ed.sign(claims: claimsPrefix + [UInt8(ascii: "\"")] + subject + Array("\"}".utf8))
        }
        let badSubjects: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80],
            [0xE2, 0x82], Array(#"\ud800"#.utf8), Array(#"\udc00x"#.utf8), [0x00], [0x1F],
        ]
        var lines = Data()
        for subject in badSubjects { lines.append(Data((token(subject: subject) + "\n").utf8)) }
        // Raw invalid bytes and NULs in request lines and bare tokens.
        lines.append(Data("{\"token\":\"".utf8) + Data([0xC0, 0xAF]) + Data("\"}\n".utf8))
        lines.append(Data("{\"token\":\"\(space.token())\",\"device\":\"a".utf8) + Data([0x00]) + Data("b\"}\n".utf8))
        lines.append(Data(space.token().utf8) + Data([0x00]) + Data("\n".utf8))
        lines.append(Data([0x00, 0x00, 0x00, 0x0A]))
        // Escaped NUL and valid non-ASCII text are fine, and come back escaped.
        lines.append(Data((token(subject: Array(#"a\u0000b"#.utf8)) + "\n").utf8))
        lines.append(Data((token(subject: Array("phöne-🚗".utf8)) + "\n").utf8))
        let output = try Tool.run(space.verifyArguments, input: lines)
        let expected: [String?] =
            Array(repeating: "malformed_token", count: badSubjects.count)
            + ["malformed_request", "malformed_request", "malformed_token", "malformed_token", nil, nil]
        #expect(output.answers.map { $0["reason"] as? String } == expected)
        #expect(output.answers.dropLast().last?["sub"] as? String == "a\u{0}b")
        #expect(output.answers.last?["sub"] as? String == "phöne-🚗")
    }

    @Test func aTokenWrittenWithJSONEscapesIsTheSameToken() throws {
        let space = try Workspace()
        let token = space.token()
        // "e" as \u0065 and the dots as \u002e: JSON text for exactly the same bytes.
        let escaped = "\\u0065" + token.dropFirst().replacingOccurrences(of: ".", with: "\\u002e")
        let tampered = "\\u0066" + token.dropFirst()
        let lines = ["{\"token\":\"\(escaped)\",\"id\":1}", "{\"token\":\"\(tampered)\",\"id\":2}"]
        #expect(try reasons(space, lines) == [nil, "malformed_token"])
    }

    @Test func blankLinesAndAMissingFinalNewline() throws {
        let space = try Workspace()
        let token = space.token()
        var input = Data(repeating: 0x0A, count: 1_000_000)
        input.append(Data(" \t\r\n\r\n\t\n".utf8))
        input.append(Data(token.utf8))  // no newline at the end
        let output = try Tool.run(space.verifyArguments, input: input)
        #expect(output.answers.count == 1)
        #expect(output.answers.first?["line"] as? Int == 1_000_004)
        #expect(output.answers.first?["valid"] as? Bool == true)
    }

    @Test func aTwoHundredMegabyteLineIsAnsweredWithoutBeingHeld() throws {
        let space = try Workspace()
        let token = space.token()
        let chunk = Data(repeating: UInt8(ascii: "A"), count: 1 << 20)
        let output = try Tool.run(
            space.verifyArguments, inputChunks: 200, of: chunk,
            prefix: Data((token + "\n").utf8), suffix: Data("\n\(token)\n".utf8))
        #expect(output.answers.map { $0["line"] as? Int } == [1, 2, 3])
        #expect(output.answers.map { $0["reason"] as? String } == [nil, "malformed_request", nil])
        #expect(output.peakResidentBytes > 0, "no memory sample was taken while the tool ran")
        #expect(
            output.peakResidentBytes < 100 << 20, "peak RSS \(output.peakResidentBytes >> 20) MiB for a 200 MiB line")
    }

    @Test func binaryGarbageGetsOneAnswerPerNonBlankLine() throws {
        let space = try Workspace()
        var random = SplitMix64(42)
        var garbage = [UInt8]()
        for _ in 0..<(2 << 20) {
            // Mostly random bytes, with enough newlines and JSON-ish bytes to make many lines.
            let roll = random.next() % 100
            switch roll {
            case 0..<3: garbage.append(0x0A)
            case 3..<6: garbage.append(UInt8(ascii: "{"))
            case 6..<8: garbage.append(UInt8(ascii: "."))
            default: garbage.append(UInt8(truncatingIfNeeded: random.next()))
            }
        }
        if garbage.starts(with: [0xEF, 0xBB, 0xBF]) { garbage[0] = 0x41 }
        let expectedLines = garbage.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated().compactMap {
            index, line -> Int? in
            let trimmed = line.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
            return trimmed.isEmpty || trimmed.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) ? nil : index + 1
        }
        let output = try Tool.run(space.verifyArguments, input: Data(garbage))
        #expect(output.status == 0)
        let answers = output.answers
        #expect(answers.map { $0["line"] as? Int } == expectedLines)
        #expect(answers.allSatisfy { ["malformed_request", "malformed_token"].contains($0["reason"] as? String) })
        #expect(!output.stderr.contains("Fatal"))
    }
}
