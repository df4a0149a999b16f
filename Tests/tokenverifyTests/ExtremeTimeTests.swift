import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// Every line answered whatever its numbers (spec §2, §2b, §6): a time outside 0001-01-01T00:00:00Z
/// … 9999-12-31T23:59:59Z (a request's `at`, a token's `exp`, `nbf` or `iat`) is an answer naming
/// the bound, `--at` and the other time options outside it a start-up refusal, never a trap that
/// loses the answers of the lines before it.
@Suite struct ExtremeTimeTests {
    static let bound = "0001-01-01T00:00:00Z … 9999-12-31T23:59:59Z"

    /// A chain (ES256 root, intermediate and leaf) and a workspace whose key set also holds the
    /// leaf's key as kid "leaf": a chain token and a kid token that are valid at 1800000000.
    struct World {
        let chain: ChainFixture
        let chainToken: String
        let kidToken: String
        var arguments: [String] {
            ["verify", "--keys", chain.path("leaf.jwks"), "--trust-anchors", chain.path("root.pem")]
        }

        init() throws {
            chain = try ChainFixture(("ES256", "ES256", "ES256"))
            let claims = Workspace.claims(["iss": "\"https://op.example\""]) + "\n"
            let signed = try Tool.run(
                ["sign", "--key", chain.path("leaf.private.jwk"), "--chain", chain.path("chain.pem")], input: claims)
            try #require(signed.status == 0, "\(signed.stderr)")
            chainToken = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let plain = try Tool.run(["sign", "--key", chain.path("leaf.private.jwk")], input: claims)
            try #require(plain.status == 0, "\(plain.stderr)")
            kidToken = plain.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        func request(_ token: String, at: String) -> String { "{\"token\":\"\(token)\",\"at\":\(at)}" }
    }

    static let outside = [
        "1e19", "-1e19", "1.7976931348623157e308", "-1.7976931348623157e308", "253402300800", "-62135596801",
        "9223372036854775808", "\"0000-12-31T23:59:59Z\"",
    ]
    static let inside = ["1e-320", "-0.0", "0", "253402300799", "253402300799.5", "-62135596800", "1800000000"]

    @Test func requestTimesOutsideTheRangeAreAnsweredMalformedRequest() throws {
        let world = try World()
        var lines: [String] = []
        for at in Self.outside + Self.inside {
            lines.append(world.request(world.chainToken, at: at))
            lines.append(world.request(world.kidToken, at: at))
        }
        let output = try BoundedRun.run(
            world.arguments, input: Data((lines.joined(separator: "\n") + "\n").utf8), seconds: 60)
        #expect(output.killed == nil && output.status == 0, "status \(output.status): \(output.stderr)")
        let answers = output.answers
        try #require(answers.count == lines.count, "\(answers.count) answers to \(lines.count) lines")
        for (index, answer) in answers.enumerated() {
            let at = (Self.outside + Self.inside)[index / 2]
            if Self.outside.contains(at) {
                #expect(answer["reason"] as? String == "malformed_request", "at \(at): \(answer)")
                let detail = answer["detail"] as? String ?? ""
                #expect(detail.contains("\"at\"") && detail.contains(Self.bound), "at \(at): \(detail)")
            } else {
                #expect(answer["reason"] as? String != "malformed_request", "at \(at): \(answer)")
            }
        }
        #expect(answers.suffix(2).allSatisfy { $0["valid"] as? Bool == true }, "\(answers.suffix(2))")
    }

    /// Line 2's time is out of range; lines 1 and 3 still get their answers, in JSON and in Arrow.
    @Test func aStreamAnswersEveryLineAroundABadTime() throws {
        let world = try World()
        let lines = [
            world.request(world.chainToken, at: "1800000000"), world.request(world.chainToken, at: "1e19"),
            world.request(world.kidToken, at: "1800000000"),
        ]
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let json = try BoundedRun.run(world.arguments, input: input)
        #expect(json.killed == nil && json.status == 0, "status \(json.status): \(json.stderr)")
        try #require(json.answers.count == 3, "\(json.answers.count) answers to 3 lines")
        #expect(json.answers.map { $0["line"] as? Int } == [1, 2, 3])
        #expect(json.answers.map { $0["valid"] as? Bool } == [true, false, true])
        #expect(json.answers[1]["reason"] as? String == "malformed_request")

        let arrow = try BoundedRun.run(world.arguments + ["--output-format", "arrow"], input: input)
        #expect(arrow.killed == nil && arrow.status == 0, "status \(arrow.status): \(arrow.stderr)")
        let messages = try IPCMessages(Array(arrow.stdout))
        let rows = messages.dropFirst().reduce(0) { $0 + Int($1.header.long(0)) }
        #expect(rows == 3)
    }

    @Test(arguments: [TokenFormat.jws, .cwt])
    func tokenTimesOutsideTheRangeAreMalformedTokens(_ format: TokenFormat) throws {
        let space = try Workspace()
        let cases: [(claim: String, value: String)] = [
            ("exp", "1e19"), ("exp", "10000000000000000000"), ("exp", "1.7976931348623157e308"),
            ("exp", "253402300800"), ("nbf", "-1e19"), ("nbf", "-62135596801"), ("iat", "253402300800"),
            ("iat", "-18446744073709551616"),
        ]
        func token(_ claims: String) throws -> String {
            guard format == .cwt else { return space.token(claims: claims) }
            return try CWTSigner(key: space.ed).sign(claims: Array(claims.utf8))
        }
        var lines: [String] = []
        for (claim, value) in cases { lines.append(try token(Workspace.claims([claim: value]))) }
        lines.append(try token(Workspace.claims(["exp": "253402300799", "nbf": "-62135596800"])))
        let output = try BoundedRun.run(space.verifyArguments, input: Data((lines.joined(separator: "\n")).utf8))
        #expect(output.killed == nil && output.status == 0, "status \(output.status): \(output.stderr)")
        let answers = output.answers
        try #require(answers.count == lines.count)
        for ((claim, value), answer) in zip(cases, answers) {
            #expect(answer["reason"] as? String == "malformed_token", "\(claim) \(value): \(answer)")
            let detail = answer["detail"] as? String ?? ""
            #expect(detail.contains("claim \(format == .cwt ? "" : "\"")\(claim)"), "\(detail)")
            #expect(detail.contains(Self.bound), "\(claim) \(value): \(detail)")
        }
        #expect(answers.last?["valid"] as? Bool == true, "\(answers.last ?? [:])")
    }

    /// `--at` and the other commands' time options outside the range stop start-up naming the bound.
    @Test func timeOptionsOutsideTheRangeStopStartUp() throws {
        let space = try Workspace()
        let chain = try ChainFixture(("ES256", "ES256", "ES256"))
        let runs: [[String]] = [
            Array(space.verifyArguments.dropLast(2)) + ["--at", "1e19"],
            Array(space.verifyArguments.dropLast(2)) + ["--at=-1e19"],
            Array(space.verifyArguments.dropLast(2)) + ["--at", "0000-06-01T00:00:00Z"],
            [
                "certificate", "--key", chain.path("leaf.jwks"), "--subject", "CN=x", "--not-after", "1e19",
                "--out", space.path("x.pem"),
            ],
            [
                "status-list", "--key", chain.path("leaf.private.jwk"), "--uri", "https://op.example/sl/1",
                "--size", "8", "--iat", "1e19",
            ],
            [
                "status-list", "--key", chain.path("leaf.private.jwk"), "--uri", "https://op.example/sl/1",
                "--size", "8", "--exp=-9.3e18",
            ],
        ]
        for arguments in runs {
            let output = try BoundedRun.run(arguments)
            #expect(output.status == 2, "\(arguments): status \(output.status)")
            #expect(output.stderr.contains(Self.bound), "\(arguments): \(output.stderr)")
        }
        for (arguments, wording) in [
            (space.verifyArguments + ["--leeway", "1e300"], "--leeway must be a non-negative number of seconds"),
            (["gen", "--count", "1", "--at", "1e19", "--out", space.path("set")], "--at must be a NumericDate from"),
        ] {
            let output = try BoundedRun.run(arguments)
            #expect(output.status == 2 && output.stderr.contains(wording), "\(arguments): \(output.stderr)")
        }
    }

    /// A revocation's `since` or `issued_before` outside the range stops loading, naming the line.
    @Test func revocationTimesOutsideTheRangeStopLoading() throws {
        let space = try Workspace()
        for entry in [#"{"jti":"t-1","since":1e19}"#, #"{"jti":"t-1","issued_before":-1e300}"#] {
            try space.write("revocations.jsonl", entry + "\n")
            let output = try BoundedRun.run(space.verifyArguments, input: Data(space.token().utf8))
            #expect(output.status == 2, "\(entry): status \(output.status)")
            #expect(output.stderr.contains(Self.bound), "\(entry): \(output.stderr)")
        }
    }
}
