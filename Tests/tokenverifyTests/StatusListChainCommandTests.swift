import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// `verify --trust-anchors … --status-lists …` with Status List Tokens that carry a chain (spec
/// §3b last paragraph, §4c), made by `status-list --chain --iss`, JWS and CWT: the list answers
/// for chained and `kid` tokens of its `iss`; a list without `iss`, or whose `iss` is not a leaf
/// name, stops start-up naming why; anchors replaced while running put the list out of force.
@Suite struct StatusListChainCommandTests {
    static let uri = "https://op.example/sl/1"
    /// A `kid` key of the leaf's issuer.
    let kidKey = SigningKey.generate(algorithm: .es256, keyID: "kid-1", issuer: ChainFixture.issuer)

    /// A list signed by the fixture's leaf with its chain: entry 1 INVALID, entry 2 SUSPENDED.
    func list(_ chain: ChainFixture, format: String, iss: String?) throws -> Tool.Output {
        try Tool.run(
            [
                "status-list", "--key", chain.path("leaf.private.jwk"), "--uri", Self.uri, "--bits", "2", "--size",
                "16", "--format", format, "--chain", chain.path("chain.pem"), "--iat", "1799000000",
            ] + (iss.map { ["--iss", $0] } ?? []),
            input: "{\"idx\":1,\"status\":1}\n{\"idx\":2,\"status\":2}\n")
    }

    func claims(index: Int) -> String {
        Workspace.claims([
            "iss": "\"\(ChainFixture.issuer)\"", "status": #"{"status_list":{"idx":\#(index),"uri":"\#(Self.uri)"}}"#,
        ])
    }

    /// A chained token (by `tokenverify sign --chain`) or a `kid` token of `format` for entry `index`.
    func token(_ chain: ChainFixture, format: String, index: Int, chained: Bool) throws -> String {
        guard chained else {
            let claims = Array(claims(index: index).utf8)
            return format == "jws" ? kidKey.sign(claims: claims) : try CWTSigner(key: kidKey).sign(claims: claims)
        }
        let signed = try Tool.run(
            [
                "sign", "--key", chain.path("leaf.private.jwk"), "--format", format, "--chain",
                chain.path("chain.pem"),
            ], input: claims(index: index) + "\n")
        try #require(signed.status == 0, "\(signed.stderr)")
        return signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The fixture's workspace set up for verify: keys.jwks (the kid key), anchors.pem (the
    /// root), lists/ holding the list.
    func prepare(_ chain: ChainFixture, format: String) throws {
        try chain.space.write("keys.jwks", "{\"keys\":[\(kidKey.publicJWK)]}")
        try chain.space.write("anchors.pem", try chain.text("root.pem"))
        let made = try list(chain, format: format, iss: ChainFixture.issuer)
        try #require(made.status == 0, "\(made.stderr)")
        try FileManager.default.createDirectory(atPath: chain.path("lists"), withIntermediateDirectories: true)
        try chain.space.write("lists/sl.\(format)", made.stdout)
    }

    func verifyArguments(_ chain: ChainFixture) -> [String] {
        [
            "verify", "--keys", chain.path("keys.jwks"), "--trust-anchors", chain.path("anchors.pem"),
            "--status-lists", chain.path("lists"), "--at", Workspace.checkTime,
        ]
    }

    @Test(arguments: ["jws", "cwt"])
    func aChainedListAnswersForChainedAndKidTokens(_ format: String) throws {
        let chain = try ChainFixture(("ES256", "ES256", "EdDSA"))
        try prepare(chain, format: format)
        var lines: [String] = []
        var expected: [String] = []
        for chained in [true, false] {
            for (index, reason) in [(0, "valid"), (1, "status_invalid"), (2, "status_suspended")] {
                lines.append(try token(chain, format: format, index: index, chained: chained))
                expected.append(reason)
            }
        }
        let run = try Tool.run(verifyArguments(chain), input: lines.joined(separator: "\n") + "\n")
        let answers = run.stdout.split(separator: "\n").map(String.init)
        try #require(answers.count == expected.count, "\(run.stdout) \(run.stderr)")
        for (answer, reason) in zip(answers, expected) {
            #expect(answer.contains(reason), "\(format): expected \(reason): \(answer)")
        }
    }

    @Test(arguments: ["jws", "cwt"])
    func aListWithoutIssOrWithAnotherIssStopsStartUp(_ format: String) throws {
        let chain = try ChainFixture(("ES256", "ES256", "EdDSA"))
        try prepare(chain, format: format)
        // (A chained list without iss is refused by `status-list` itself; the library tests
        // cover verify's refusal of one made anyway.)
        for (iss, why) in [
            ("https://other.example", "iss \"https://other.example\" is not a name of the chain's certificate")
        ] {
            let made = try list(chain, format: format, iss: iss)
            try #require(made.status == 0, "\(made.stderr)")
            try chain.space.write("lists/sl.\(format)", made.stdout)
            let run = try Tool.run(verifyArguments(chain), input: "")
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stderr.contains("sl.\(format)") && run.stderr.contains(why), "\(run.stderr)")
        }
        let withoutAnchors = try Tool.run(
            ["verify", "--keys", chain.path("keys.jwks"), "--status-lists", chain.path("lists"), "--at", "1800000000"],
            input: "")
        #expect(withoutAnchors.status == 2)
        #expect(
            withoutAnchors.stderr.contains("no trust anchors are configured (--trust-anchors)"),
            "\(withoutAnchors.stderr)")
    }

    @Test(arguments: ["jws", "cwt"])
    func anchorsReplacedWhileRunningPutTheListOutOfForce(_ format: String) throws {
        let chain = try ChainFixture(("ES256", "ES256", "EdDSA"))
        let other = try ChainFixture(("ES256", "ES256", "EdDSA"))
        try prepare(chain, format: format)
        let live = try LiveTool(verifyArguments(chain) + ["--reload-interval", "0.05"])
        defer { live.process.terminate() }
        let kidToken = try token(chain, format: format, index: 1, chained: false)
        live.send(kidToken + "\n")
        let before = live.readLine() ?? "(no answer)"
        #expect(before.contains("status_invalid"), "\(before)")
        try chain.space.replace("anchors.pem", try other.text("root.pem"))
        #expect(live.waitForErrorLine(containing: "trust anchors reloaded") != nil)
        #expect(live.ask(kidToken, until: "status_unavailable"), "the list goes out of force with its anchor")
        let notice = live.waitForErrorLine(
            containing: "its chain no longer verifies it under the trust anchors in force")
        #expect(notice?.contains("sl.\(format)") == true, "\(notice ?? "no notice")")
    }

    /// The `x5t#S256` of the certificate in `pem` (as `keys list` shows it).
    func thumbprint(_ chain: ChainFixture, _ pem: String) throws -> String {
        let listed = try Tool.run(["keys", "list", "--trust-anchors", chain.path(pem), "--json"])
        let match = try #require(listed.stdout.firstMatch(of: #/"x5t#S256":"([A-Za-z0-9_-]{43})"/#))
        return String(match.output.1)
    }

    /// Finding 7: a list signed by a leaf under a CA revoked by `x5t#S256` is out of force (from
    /// the revocation's `since` on), as a token signed under that CA is `revoked_key`.
    @Test(arguments: ["jws", "cwt"])
    func aListUnderARevokedCAIsOutOfForce(_ format: String) throws {
        let chain = try ChainFixture(("ES256", "ES256", "EdDSA"))
        try prepare(chain, format: format)
        let revoked = try thumbprint(chain, "inter.pem")
        try chain.space.write("revocations.jsonl", #"{"x5t#S256":"\#(revoked)","since":1799500000}"# + "\n")
        let kidToken = try token(chain, format: format, index: 0, chained: false)
        let requests = [1_799_400_000, 1_800_000_000].map { #"{"token":"\#(kidToken)","at":\#($0)}"# }
        let run = try Tool.run(
            verifyArguments(chain) + ["--revocations", chain.path("revocations.jsonl")],
            input: requests.joined(separator: "\n") + "\n")
        let answers = run.stdout.split(separator: "\n").map(String.init)
        try #require(answers.count == 2, "\(run.stderr)")
        #expect(answers[0].contains("\"valid\":true"), "before since: \(answers[0])")
        #expect(
            answers[1].contains("status_unavailable") && answers[1].contains("(intermediate 1) is revoked"),
            "\(answers[1])")
    }
}
