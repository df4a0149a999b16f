import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// Messages that say how to fix it: verify's inputs checked before anything is read, key files
/// refused for the true reason, and `inspect` on one line.
@Suite struct FixItMessageTests {
    @Test func aBareJWKGivenToKeysIsNamedWithTheFix() throws {
        let space = try Workspace()
        let bare = try space.write("one.jwk", space.ed.publicJWK)
        let output = try Tool.run(["verify", "--keys", bare], input: "x\n")
        #expect(output.status == 2 && output.stdout.isEmpty)
        #expect(
            output.stderr.contains(
                "\(bare): this is one JWK, not a key set: wrap it as {\"keys\":[…]}, or run `tokenverify keys import \(bare)`"
            ))
        let pem = try space.write(
            "key.pem",
            "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"
        )
        #expect(
            try Tool.run(["verify", "--keys", pem], input: "x\n").stderr.contains(
                "run `tokenverify keys import \(pem)`"))
    }

    @Test func aKeyWithoutKidNamesKeysImport() throws {
        let space = try Workspace()
        let file = try space.write(
            "nokid.jwks", #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}"#
        )
        let output = try Tool.run(["verify", "--keys", file], input: "x\n")
        #expect(output.status == 2)
        #expect(
            output.stderr.contains(
                "\(file): key #1: \"kid\" is missing: give every key a kid, or let `tokenverify keys import FILE`"))
    }

    @Test func signSaysWhatTheKeyFileIsAndPicksOneByKid() throws {
        let space = try Workspace()
        let claims = Workspace.claims() + "\n"
        let set = try Tool.run(["sign", "--key", space.path("keys.jwks")], input: claims)
        #expect(set.status == 2 && set.stderr.contains("a key set (JWKS) of public keys; sign needs a private JWK"))
        let publicKey = try space.write("public.jwk", space.ed.publicJWK)
        #expect(
            try Tool.run(["sign", "--key", publicKey], input: claims).stderr.contains(
                "a public JWK (no \"d\"); sign needs a private JWK"))
        let lines = try space.write("signing-keys.jwk", space.ed.privateJWK + "\n" + space.es.privateJWK + "\n")
        let ambiguous = try Tool.run(["sign", "--key", lines], input: claims)
        #expect(
            ambiguous.status == 2
                && ambiguous.stderr.contains("holds 2 keys, one a line (kids: ed-1, es-1); choose one with --kid K"))
        let missing = try Tool.run(["sign", "--key", lines, "--kid", "nope"], input: claims)
        #expect(missing.status == 2 && missing.stderr.contains("no key with kid \"nope\" among its 2 keys"))
        let picked = try Tool.run(["sign", "--key", lines, "--kid", "es-1"], input: claims)
        #expect(picked.status == 0)
        let verified = try Tool.run(space.verifyArguments, input: picked.stdout)
        #expect(verified.answers.map { $0["kid"] as? String } == ["es-1"])
        #expect(verified.answers.map { $0["valid"] as? Bool } == [true])
    }

    @Test func theSameKeyFileTwiceIsSaid() throws {
        let space = try Workspace()
        let file = space.path("keys.jwks")
        let output = try Tool.run(["verify", "--keys", file, "--keys", file], input: "x\n")
        #expect(output.status == 2)
        #expect(output.stderr.contains("\(file): given twice: give each key file once"))
        #expect(!output.stderr.contains("duplicate kid"))
        try FileManager.default.createSymbolicLink(atPath: space.path("link.jwks"), withDestinationPath: file)
        let linked = try Tool.run(["verify", "--keys", file, "--keys", space.path("link.jwks")], input: "x\n")
        #expect(linked.stderr.contains("the same file as \(file)"))
    }

    @Test func countsAgreeWithTheirNouns() throws {
        #expect(counted(1, "entry", "entries") == "1 entry")
        #expect(counted(2, "entry", "entries") == "2 entries")
        #expect(counted(0, "key") == "0 keys")
        let space = try Workspace()
        let one = try Tool.run(["gen", "--count", "1", "--out", space.path("one")])
        #expect(one.stderr.contains("wrote 1 token ("))
        let tool = try LiveTool(space.verifyArguments + ["--reload-interval", "0.05"])
        tool.send(space.token() + "\n")
        #expect(tool.readLine()?.contains("\"valid\":true") == true)  // started with the empty list
        try space.replace("revocations.jsonl", "{\"jti\":\"t-1\"}\n")
        #expect(tool.ask(space.token(), until: "revoked_token"))
        tool.closeInput()
        let stderr = tool.finish().stderr
        #expect(stderr.contains("revocations reloaded") && stderr.contains(": 1 entry\n"), "\(stderr)")
    }

    @Test func aMistypedSubcommandIsNamed() throws {
        let output = try Tool.run(["verfy", "--keys", "k.jwks"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("'verfy' is not a subcommand of tokenverify. Did you mean 'verify'?"))
        #expect(!output.stderr.contains("Unknown option"))
        #expect(try Tool.run(["keys", "lst"]).stderr.contains("Did you mean 'list'?"))
    }

    @Test func inputsAreCheckedBeforeAnythingIsRead() throws {
        let space = try Workspace()
        let tokens = try space.write("tokens.txt", space.token() + "\n")
        for (input, message) in [
            (space.directory.path, "a directory, not a file of tokens"),
            (space.path("missing.txt"), "No such file or directory"),
        ] {
            let output = try Tool.run(space.verifyArguments + [tokens, input])
            #expect(output.status == 2)
            #expect(output.stdout.isEmpty, "nothing answered")
            #expect(output.stderr.contains("input \(input): \(message)"), "\(output.stderr)")
        }
    }

    @Test func keyFilesAreRefusedForTheTrueReason() throws {
        let space = try Workspace()
        func verify(_ jwks: String) throws -> Tool.Output {
            try Tool.run(
                ["verify", "--keys", try space.write("k.jwks", jwks), "--at", Workspace.checkTime],
                input: space.token() + "\n")
        }
        // An OKP key with "y": ignored like any unknown member, as the README says.
        var withY = space.ed.publicJWK
        withY.removeLast()
        let accepted = try verify("{\"keys\":[\(withY),\"y\":\"AAAA\"}]}")
        #expect(accepted.status == 0 && accepted.answers.first?["valid"] as? Bool == true, "\(accepted.stderr)")
        // A byte order mark, as verify's input accepts one.
        let bom = try verify("\u{FEFF}{\"keys\":[\(space.ed.publicJWK)]}")
        #expect(bom.status == 0 && bom.answers.first?["valid"] as? Bool == true, "\(bom.stderr)")
        // Mixed order (B + a point of order 8): neither off the curve nor of small order.
        let mixed = try verify(
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"mFGerfNbmVIztRtc0j6cxaKLY5taSvDskDy5YNgbeBk","kid":"m"}]}"#)
        #expect(
            mixed.status == 2
                && mixed.stderr.contains(
                    "key \"m\": \"x\" is not a valid Ed25519 public key: not in the prime-order subgroup"),
            "\(mixed.stderr)")
        let small = try verify(
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA3o","kid":"s"}]}"#)
        #expect(small.stderr.contains("key \"s\": \"x\" is not a valid Ed25519 public key: a point of small order"))
        let off = try verify(
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","kid":"o"}]}"#)
        #expect(off.stderr.contains("key \"o\": \"x\" is not a valid Ed25519 public key: not a point on the curve"))
    }

    @Test func inspectPrintsExactlyOneLine() throws {
        let space = try Workspace()
        let claims = "{\r\n  \"sub\": \"phone-1\",\r\n\t\"note\": \"a \\\"quoted\\\" \\n text\"\r\n}"
        let raw = "{\"alg\":\"EdDSA\",\r\n\"kid\":\"ed-1\"}"
        let broken = "{\"sub\":\"line\nbreak\"}"  // not JSON: shown as a string, escaped
        for token in [space.token(claims: claims, header: raw), b64(raw) + "." + b64(broken) + ".AA"] {
            let output = try Tool.run(["inspect", token])
            #expect(output.status == 0)
            #expect(output.stdout.filter { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.count == 1)
            #expect(output.stdout.hasSuffix("\n"))
            #expect(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) is [String: Any])
        }
        let output = try Tool.run(["inspect", space.token(claims: claims, header: raw)])
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as! [String: Any]
        #expect((object["claims"] as? [String: Any])?["note"] as? String == "a \"quoted\" \n text")
    }
}

/// spec §6's line limit end to end: a 65,536-byte line is within the default limit with LF or
/// CR LF, and over it after a leading space (or with a trailing tab).
@Suite struct LineLimitTests {
    @Test func theDefaultLimitCountsBlanksButNotTheLineBreak() throws {
        let space = try Workspace()
        let line = String(repeating: "A", count: 65_536)  // not a token: malformed_token when within the limit
        let input = line + "\n" + line + "\r\n" + " " + line + "\r\n" + line + "\t\n" + line
        let output = try Tool.run(space.verifyArguments, input: input)
        #expect(
            output.answers.map { $0["reason"] as? String } == [
                "malformed_token", "malformed_token", "malformed_request", "malformed_request", "malformed_token",
            ])
    }
}
