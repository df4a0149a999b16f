import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// `tokenverify verify` end to end: the built binary, fed through pipes.
@Suite struct VerifyCommandTests {
    @Test func demoStreamMatchesExpectedVerdicts() throws {
        let demo = Tool.repository.appendingPathComponent("Data/demo")
        let output = try Tool.run([
            "verify", "--keys", demo.appendingPathComponent("keys.jwks").path,
            "--revocations", demo.appendingPathComponent("revocations.jsonl").path,
            "--step-policy", demo.appendingPathComponent("step-policy.json").path,
            "--device-steps", demo.appendingPathComponent("device-steps.jsonl").path,
            demo.appendingPathComponent("requests.jsonl").path,
        ])
        #expect(output.status == 0)
        let expected = try String(contentsOf: demo.appendingPathComponent("expected.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let answers = output.answers
        #expect(answers.count == expected.count)
        for (answer, expectation) in zip(answers, expected) {
            #expect(answer["line"] as? Int == expectation["line"] as? Int)
            #expect(answer["valid"] as? Bool == expectation["valid"] as? Bool, "\(answer)")
            #expect(answer["reason"] as? String == expectation["reason"] as? String, "\(answer)")
        }
        #expect(output.stderr.contains("18 answered (4 valid, 14 invalid)"))
    }

    @Test func everyReasonCodeOverTheLineProtocol() throws {
        let space = try Workspace()
        try space.write(
            "revocations.jsonl",
            """
            {"kid":"prod-1"}
            {"jti":"t-revoked"}
            {"sub":"phone-revoked"}
            {"aud":"car-revoked"}
            {"sub":"phone-1","aud":"car-granted"}
            """)
        let good = space.token()
        let cases: [(String, String)] = [
            (#"{"token":"x","colour":"red"}"#, "malformed_request"),
            ("a.b", "malformed_token"),
            (space.token(header: #"{"alg":"HS256","kid":"ed-1"}"#), "unsupported_alg"),
            (space.token(header: #"{"alg":"Ed25519","kid":"ed-1","crit":["x"]}"#), "bad_header"),
            (space.token(header: #"{"alg":"Ed25519","kid":"nobody"}"#), "unknown_key"),
            (space.token(header: #"{"alg":"Ed25519","x5c":["QUJD"]}"#), "untrusted_chain"),
            (space.token(header: #"{"alg":"ES256","kid":"ed-1"}"#), "key_alg_mismatch"),
            (space.token(space.prod, claims: Workspace.claims(["env": "\"int\""])), "wrong_environment"),
            (space.token(space.prod, claims: Workspace.claims(["iss": "\"operator-b\""])), "wrong_issuer"),
            (space.token(claims: Workspace.claims(["nbf": "1800000100"])), "not_yet_valid"),
            (space.token(claims: Workspace.claims(["exp": "1800000000"])), "expired"),
            (space.token(space.prod), "revoked_key"),
            (space.token(claims: Workspace.claims(["jti": "\"t-revoked\""])), "revoked_token"),
            (space.token(space.es, claims: Workspace.claims(["sub": "\"phone-revoked\""])), "revoked_device"),
            (space.token(claims: Workspace.claims(["aud": #"["car-1","car-revoked"]"#])), "revoked_object"),
            (space.token(claims: Workspace.claims(["aud": "\"car-granted\""])), "revoked_grant"),
            ("{\"token\":\"\(good)\",\"device\":\"phone-2\"}", "wrong_device"),
            ("{\"token\":\"\(good)\",\"object\":\"car-2\"}", "wrong_object"),
            ("{\"token\":\"\(good)\",\"channel\":\"remote\"}", "channel_not_permitted"),
            ("{\"token\":\"\(good)\",\"command\":\"engine_start\"}", "command_not_permitted"),
            ("{\"token\":\"\(good)\",\"command\":\"lock\"}", "step_required"),
            (
                space.token(
                    claims: Workspace.claims(["status": #"{"status_list":{"idx":1,"uri":"https://op.example/sl"}}"#])),
                "status_invalid"
            ),
            (
                space.token(
                    claims: Workspace.claims(["status": #"{"status_list":{"idx":2,"uri":"https://op.example/sl"}}"#])),
                "status_suspended"
            ),
            (
                space.token(
                    claims: Workspace.claims(["status": #"{"status_list":{"idx":0,"uri":"https://op.example/other"}}"#])
                ), "status_unavailable"
            ),
            (
                replacingSignature(good, with: space.token(claims: Workspace.claims(["jti": "\"t-2\""]))),
                "bad_signature"
            ),
        ]
        let policy = try space.write("policy.json", #"{"lock":["trustedPhone"]}"#)
        let list = try space.write(
            "list.jwt",
            try StatusListIssuer(key: space.ed).sign(
                uri: "https://op.example/sl", bits: 2, size: 16, statuses: [1: 1, 2: 2], format: .jws,
                issuedAt: 1_799_990_000))
        let anchors = try space.write("anchors.pem", ChainAnchorFiles.otherRootPEM)
        let output = try Tool.run(
            space.verifyArguments + ["--step-policy", policy, "--status-lists", list, "--trust-anchors", anchors],
            input: cases.map(\.0).joined(separator: "\n") + "\n")
        #expect(output.status == 0)
        let reasons = output.answers.map { $0["reason"] as? String }
        #expect(reasons == cases.map(\.1))
        #expect(Set(cases.map(\.1)) == Set(Reason.allCases.map(\.rawValue)))
        for answer in output.answers { #expect((answer["detail"] as? String)?.isEmpty == false) }
    }

    @Test func validAnswersCarryTheClaims() throws {
        let space = try Workspace()
        let token = space.token(
            space.es,
            claims: Workspace.claims(["aud": #"["car-1","car-2"]"#, "role": "\"friend\"", "exp": "1800003600.5"]))
        let output = try Tool.run(
            space.verifyArguments,
            input: "{\"id\":{\"n\":[1,2]},\"token\":\"\(token)\",\"object\":\"car-2\",\"command\":\"lock\"}\n")
        let answer = try #require(output.answers.first)
        #expect(output.lines.first?.hasPrefix(#"{"line":1,"id":{"n":[1,2]},"valid":true"#) == true)
        #expect(answer["jti"] as? String == "t-1")
        #expect(answer["sub"] as? String == "phone-1")
        #expect(answer["aud"] as? [String] == ["car-1", "car-2"])
        #expect(answer["kid"] as? String == "es-1")
        #expect(answer["alg"] as? String == "ES256")
        #expect(answer["exp"] as? Double == 1800003600.5)
        #expect(answer["role"] as? String == "friend")
    }

    @Test func linesBlanksCRLFAndWhiteSpace() throws {
        let space = try Workspace()
        let token = space.token()
        // last line without newline
        let input = "\n  \t\(token)\t \r\n\r\n\n{\"id\":7,\"token\":\"\(token)\"}\r\n   \n\(token)"
        let output = try Tool.run(space.verifyArguments, input: input)
        #expect(output.answers.map { $0["line"] as? Int } == [2, 5, 7])
        #expect(output.answers.allSatisfy { $0["valid"] as? Bool == true })
        #expect(output.answers[1]["id"] as? Int == 7)
    }

    @Test func manyLinesComeBackInOrderOrUnorderedAsASet() throws {
        let space = try Workspace()
        let tokens = (0..<3000).map { index in
            index % 3 == 0
                ? "garbage-\(index)"
                : space.token(
                    index % 2 == 0 ? space.ed : space.es,
                    claims: Workspace.claims(["jti": "\"t-\(index)\""]))
        }
        let input = tokens.joined(separator: "\n")
        let ordered = try Tool.run(space.verifyArguments + ["--threads", "3"], input: input)
        #expect(ordered.answers.map { $0["line"] as! Int } == Array(1...3000))
        for answer in ordered.answers {
            let line = answer["line"] as! Int
            #expect(answer["valid"] as? Bool == ((line - 1) % 3 != 0))
            if line % 3 != 1 { #expect(answer["jti"] as? String == "t-\(line - 1)") }
        }
        let unordered = try Tool.run(space.verifyArguments + ["--unordered", "--threads", "3"], input: input)
        #expect(Set(unordered.answers.map { $0["line"] as! Int }) == Set(1...3000))
        #expect(unordered.lines.count == 3000)
    }

    @Test func malformedRequestsAreAnsweredAndEchoTheirID() throws {
        let space = try Workspace()
        let lines = [
            #"{"id":1,"token":"a.b.c","devise":"phone"}"#,
            #"{"id":2,"token":7}"#,
            #"{"id":3}"#,
            #"{"id":4,"token":"a","token":"b"}"#,
            #"{"id":5,"token":"a.b.c","at":"noon"}"#,
            #"{"id":6,"token":"a.b.c""#,
            "{\u{1}}",
        ]
        let output = try Tool.run(space.verifyArguments, input: lines.joined(separator: "\n"))
        #expect(output.answers.count == lines.count)
        #expect(output.answers.allSatisfy { $0["reason"] as? String == "malformed_request" })
        #expect(output.answers.prefix(5).map { $0["id"] as? Int } == [1, 2, 3, 4, 5])
    }

    @Test func oversizedLinesAreAnsweredWithoutStoppingTheStream() throws {
        let space = try Workspace()
        let token = space.token()
        let huge = String(repeating: "A", count: 200_000)
        let output = try Tool.run(
            space.verifyArguments, input: "\(token)\n\(huge)\n\(token)\n{\"token\":\"\(huge)\"}\n\(token)")
        #expect(output.answers.map { $0["line"] as? Int } == [1, 2, 3, 4, 5])
        #expect(
            output.answers.map { $0["reason"] as? String } == [nil, "malformed_request", nil, "malformed_request", nil])
        let small = try Tool.run(space.verifyArguments + ["--max-line-bytes", "100"], input: "\(token)\nshort.b.c\n")
        #expect(small.answers.map { $0["reason"] as? String } == ["malformed_request", "malformed_token"])
    }

    @Test func arrowOutputBoundsTheLineLengthItAnswers() throws {
        let space = try Workspace()
        let token = space.token()
        let tooLong = try Tool.run(
            space.verifyArguments + ["--output-format", "arrow", "--max-line-bytes", "268435457"], input: token)
        #expect(tooLong.status == 2 && tooLong.stdout.isEmpty)
        #expect(tooLong.stderr.contains("--output-format arrow answers lines of at most 268435456 bytes"))
        let atTheBound = try Tool.run(
            space.verifyArguments + ["--output-format", "arrow", "--max-line-bytes", "268435456"], input: token)
        #expect(atTheBound.status == 0 && !atTheBound.stdout.isEmpty && !atTheBound.stdout.hasPrefix("{"))
    }

    @Test func auditListsEveryFailure() throws {
        let space = try Workspace()
        try space.write("revocations.jsonl", #"{"jti":"t-1"}"#)
        let token = replacingSignature(space.token(claims: Workspace.claims(["exp": "1"])), with: space.token())
        let output = try Tool.run(
            space.verifyArguments + ["--audit"], input: "{\"token\":\"\(token)\",\"command\":\"horn\"}")
        let answer = try #require(output.answers.first)
        #expect(answer["reason"] as? String == "expired")
        #expect(
            answer["reasons"] as? [String] == ["expired", "revoked_token", "command_not_permitted", "bad_signature"])
        #expect((answer["details"] as? [String])?.count == 4)
    }

    @Test func checkTimeFromAtOptionAndRequest() throws {
        let space = try Workspace()
        let token = space.token()  // valid for [.., 1800003600)
        let args = ["verify", "--keys", space.path("keys.jwks")]
        let late = try Tool.run(args + ["--at", "2027-01-15T08:00:00Z"], input: token)
        #expect(late.answers.first?["reason"] as? String == nil)
        let expired = try Tool.run(args + ["--at", "1800003600"], input: token)
        #expect(expired.answers.first?["reason"] as? String == "expired")
        let perLine = try Tool.run(
            args + ["--at", "1800003600"],
            input:
                "{\"token\":\"\(token)\",\"at\":1800000000}\n{\"token\":\"\(token)\",\"at\":\"2027-01-15T09:00:00+01:00\"}"
        )
        #expect(perLine.answers.map { $0["valid"] as? Bool } == [true, true])
        let lenient = try Tool.run(args + ["--at", "1800003659", "--leeway", "60"], input: token)
        #expect(lenient.answers.first?["valid"] as? Bool == true)
    }

    @Test func exitStatuses() throws {
        let space = try Workspace()
        let good = space.token()
        #expect(try Tool.run(space.verifyArguments, input: good + "\nbad").status == 0)
        #expect(try Tool.run(space.verifyArguments + ["--fail-on-invalid"], input: good + "\nbad").status == 1)
        #expect(try Tool.run(space.verifyArguments + ["--fail-on-invalid"], input: good).status == 0)
        let usage = try Tool.run(["verify"], input: good)
        #expect(usage.status == 2)
        #expect(usage.stdout.isEmpty)
        let badAt = try Tool.run(space.verifyArguments + ["--at", "tomorrow"], input: good)
        #expect(badAt.status == 2)
        let missingInput = try Tool.run(space.verifyArguments + [space.path("nope.txt")], input: good)
        #expect(missingInput.status == 2)
        #expect(missingInput.stderr.contains("nope.txt"))
        #expect(missingInput.stdout.isEmpty)
    }

    @Test func badKeyFilesStopStartUpNamingFileAndKey() throws {
        let space = try Workspace()
        let offCurve =
            #"{"kty":"EC","crv":"P-256","kid":"broken-7","x":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE","y":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE"}"#
        let file = try space.write("bad.jwks", "{\"keys\":[\(space.ed.publicJWK),\(offCurve)]}")
        let output = try Tool.run(["verify", "--keys", file], input: space.token())
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("bad.jwks"))
        #expect(output.stderr.contains("broken-7"))
        let duplicate = try space.write("dup.jwks", "{\"keys\":[\(space.ed.publicJWK)]}")
        let twice = try Tool.run(["verify", "--keys", space.path("keys.jwks"), "--keys", duplicate], input: "")
        #expect(twice.status == 2)
        #expect(twice.stderr.contains("ed-1") && twice.stderr.contains("dup.jwks"))
        let missing = try Tool.run(["verify", "--keys", space.path("missing.jwks")], input: "")
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("missing.jwks"))
        let privateKey = try space.write("private.jwks", "{\"keys\":[\(space.ed.privateJWK)]}")
        let warned = try Tool.run(["verify", "--keys", privateKey, "--at", Workspace.checkTime], input: space.token())
        #expect(warned.status == 0)
        #expect(warned.stderr.contains("warning") && warned.stderr.contains("\"d\""))
        #expect(warned.answers.first?["valid"] as? Bool == true)
        let badRevocations = try space.write("bad.jsonl", "{\"jti\":\"a\"}\n{\"jti\":1}\n")
        let refused = try Tool.run(
            ["verify", "--keys", space.path("keys.jwks"), "--revocations", badRevocations], input: "")
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("bad.jsonl:2"))
    }

    @Test func answersAtOnceToAnInteractiveProducer() throws {
        let space = try Workspace()
        let live = try LiveTool(space.verifyArguments + ["--quiet"])
        for index in 1...5 {
            live.send(space.token() + "\n")
            let line = try #require(live.readLine(timeout: 10), "no answer to line \(index) while input stays open")
            #expect(line.hasPrefix("{\"line\":\(index),\"valid\":true"))
        }
        live.closeInput()
        #expect(live.finish().status == 0)
    }

    @Test func revocationsReloadWhenTheFileIsReplaced() throws {
        let space = try Workspace()
        let token = space.token()
        let live = try LiveTool(space.verifyArguments)
        live.send(token + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)
        try space.replace("revocations.jsonl", "{\"jti\":\"t-1\"}\n")
        #expect(live.ask(token, until: "revoked_token"))
        // A broken replacement keeps the old snapshot.
        try space.replace("revocations.jsonl", "{\"jti\":\"t-1\"}\n{broken\n")
        #expect(live.waitForErrorLine(containing: "previous list stays in force") != nil, "the broken list is read")
        live.send(token + "\n")
        #expect(live.readLine()?.contains("revoked_token") == true)
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(end.stderr.contains("revocations reloaded"))
        #expect(end.stderr.contains("previous list stays in force"))
    }

    @Test func sighupReloadsRevocations() throws {
        let space = try Workspace()
        let token = space.token()
        // File polling off: only the signal can bring the new list in.
        let live = try LiveTool(space.verifyArguments + ["--reload-interval", "0"])
        live.send(token + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)
        let seen = try LiveTool.changeSeenByAPollingWitness(
            space.verifyArguments, probe: token, reloaded: "revocations reloaded (file changed)"
        ) { try space.replace("revocations.jsonl", "{\"sub\":\"phone-1\"}\n") }
        #expect(seen, "a polling verifier on the same files brings the new list in")
        live.send(token + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)  // not polled
        kill(live.process.processIdentifier, SIGHUP)
        #expect(live.ask(token, until: "revoked_device"))
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(end.stderr.contains("revocations reloaded (SIGHUP)"))
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func signalEndsAnIdleRun(_ signal: Int32) throws {
        let space = try Workspace()
        let live = try LiveTool(space.verifyArguments + ["--revocations", space.path("revocations.jsonl")])
        live.send(space.token() + "\n")
        #expect(live.readLine() != nil)
        #expect(live.waitUntilReadingStandardInput(), "input stays open and the reader waits on it")
        kill(live.process.processIdentifier, signal)
        #expect(live.waitUntilExit(timeout: 10), "still running 10 s after the signal")
        if live.process.isRunning {
            live.process.terminate()
            live.closeInput()
        }
        #expect(live.finish().status == 0)
    }

    @Test func closedStdoutEndsQuietly() throws {
        let space = try Workspace()
        let input = try space.write("many.txt", String(repeating: space.token() + "\n", count: 20_000))
        try External.run(
            "/bin/bash",
            [
                "-c",
                "'\(Tool.binary.path)' verify --keys '\(space.path("keys.jwks"))' --at \(Workspace.checkTime) '\(input)' 2>'\(space.path("stderr.txt"))' | head -n 1 > /dev/null; echo ${PIPESTATUS[0]} > '\(space.path("status.txt"))'",
            ])
        let stderr = try String(contentsOfFile: space.path("stderr.txt"), encoding: .utf8)
        let status = try String(contentsOfFile: space.path("status.txt"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(status == "0", "killed or failed when its reader went away: status \(status)")
        #expect(stderr.isEmpty, "\(stderr)")
    }
}

/// `token` with the signature segment of `other`.
func replacingSignature(_ token: String, with other: String) -> String {
    var parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    parts[2] = String(other.split(separator: ".", omittingEmptySubsequences: false)[2])
    return parts.joined(separator: ".")
}
