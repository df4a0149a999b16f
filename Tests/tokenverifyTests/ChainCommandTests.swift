import Foundation
import TestSupport
import Testing
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// `verify --trust-anchors` end to end (spec §3b): the demo's chained tokens, anchors as watched
/// live state, a bad anchor file at start-up, and `keys list` and `inspect` showing chains.
@Suite struct ChainCommandTests {
    static let demo = Tool.repository.appendingPathComponent("Data/demo")
    static func demoPath(_ name: String) -> String { demo.appendingPathComponent(name).path }

    @Test func demoChainStreamMatchesExpectedVerdicts() throws {
        let output = try Tool.run([
            "verify", "--keys", Self.demoPath("keys.jwks"), "--trust-anchors", "int=" + Self.demoPath("anchors.pem"),
            Self.demoPath("chain-requests.jsonl"),
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let expected = try String(contentsOfFile: Self.demoPath("chain-expected.jsonl"), encoding: .utf8)
            .split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let answers = output.answers
        #expect(answers.count == expected.count)
        for (answer, expectation) in zip(answers, expected) {
            #expect(answer["line"] as? Int == expectation["line"] as? Int)
            #expect(answer["valid"] as? Bool == expectation["valid"] as? Bool, "\(answer)")
            #expect(answer["reason"] as? String == expectation["reason"] as? String, "\(answer)")
            #expect(answer["format"] as? String == expectation["format"] as? String, "\(answer)")
        }
    }

    @Test func withoutAnchorsTheDemosChainedTokensHaveNoKey() throws {
        let output = try Tool.run([
            "verify", "--keys", Self.demoPath("keys.jwks"), Self.demoPath("chain-requests.jsonl"),
        ])
        #expect(output.answers.allSatisfy { $0["reason"] as? String == "bad_header" }, "\(output.stdout)")
    }

    @Test func aBadAnchorFileStopsStartUpNamingIt() throws {
        let space = try Workspace()
        let bad = try space.write("roots.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        let output = try Tool.run(space.verifyArguments + ["--trust-anchors", bad], input: Data("x\n".utf8))
        #expect(output.status == 2)
        #expect(output.stderr.contains(bad), "\(output.stderr)")
        #expect(output.stdout.isEmpty)
    }

    @Test func anchorsAreWatchedAndABadReloadKeepsThem() throws {
        let space = try Workspace()
        let folder = space.path("anchors")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ChainAnchorFiles.install(ChainAnchorFiles.otherRootPEM, as: "other.pem", in: folder)
        let live = try LiveTool([
            "verify", "--keys", Self.demoPath("keys.jwks"), "--trust-anchors", folder, "--reload-interval", "0.05",
        ])
        defer { live.closeInput() }
        let token = try String(contentsOfFile: Self.demoPath("chain-requests.jsonl"), encoding: .utf8)
            .split(separator: "\n")[0]
        func answer() -> String {
            live.send(token + "\n")
            return live.readLine() ?? "(no answer)"
        }
        #expect(answer().contains("\"reason\":\"untrusted_chain\""))
        let demoRoot = try String(contentsOfFile: Self.demoPath("anchors.pem"), encoding: .utf8)
        try ChainAnchorFiles.install(demoRoot, as: "demo.pem", in: folder)
        #expect(live.ask(String(token), until: "\"valid\":true", timeout: 10), "\(live.errorLines(from: 0))")
        // A file that is not PEM: the reload fails, says why, and the anchors in force stay.
        try ChainAnchorFiles.install("not a certificate\n", as: "zz-broken.pem", in: folder)
        #expect(live.waitForErrorLine(containing: "zz-broken.pem") != nil, "\(live.errorLines(from: 0))")
        #expect(answer().contains("\"valid\":true"))
    }

    @Test func keysListShowsTheAnchors() throws {
        let output = try Tool.run(["keys", "list", "--trust-anchors", "int=" + Self.demoPath("anchors.pem")])
        #expect(output.status == 0, "\(output.stderr)")
        let fields = output.stdout.split(separator: "\n").first?.split(separator: "\t").map(String.init) ?? []
        #expect(fields.prefix(4) == ["anchor", "int", "CN=Demo Operator Root", "CN=Demo Operator Root"], "\(fields)")
        #expect(fields.contains("CA"), "\(fields)")
        let json = try Tool.run(["keys", "list", "--json", "--trust-anchors", Self.demoPath("anchors.pem")])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let anchor = object?["anchor"] as? [String: Any]
        #expect(anchor?["subject"] as? String == "CN=Demo Operator Root")
        #expect((anchor?["x5t#S256"] as? String)?.count == 43)
    }

    @Test func anEmptyKeySetWarnsOnlyWithoutAnchors() throws {
        let space = try Workspace()
        let empty = try space.write("empty.jwks", #"{"keys":[]}"#)
        let alone = try Tool.run(["keys", "list", empty])
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(
            alone.stderr.contains("the key files hold no keys; every token would be unknown_key"), "\(alone.stderr)")
        let anchored = try Tool.run(["keys", "list", empty, "--trust-anchors", Self.demoPath("anchors.pem")])
        #expect(anchored.status == 0, "\(anchored.stderr)")
        #expect(!anchored.stderr.contains("hold no keys"), "\(anchored.stderr)")
        #expect(anchored.stdout.hasPrefix("anchor\t"), "\(anchored.stdout)")
    }

    @Test func inspectShowsTheChain() throws {
        let lines = try String(contentsOfFile: Self.demoPath("chain-requests.jsonl"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        for line in lines.prefix(2) {
            let output = try Tool.run(["inspect", line])
            #expect(output.status == 0, "\(output.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any]
            let chain = object?["chain"] as? [[String: Any]] ?? []
            #expect(chain.count == 2, "\(output.stdout)")
            #expect(chain.first?["subject"] as? String == "CN=Demo Operator Token Signer")
            #expect(chain.first?["dns_names"] as? [String] == ["keys.demo-operator.example"])
            #expect(chain.last?["ca"] as? Bool == true)
        }
    }
}

/// What the chain command tests share.
enum ChainAnchorFiles {
    /// A self-signed root that issued none of the demo's certificates.
    static let otherRootPEM = Fixtures.unrelatedRootPEM

    /// Writes `text` under a hidden name in `directory`, then renames it into place.
    static func install(_ text: String, as name: String, in directory: String) throws {
        let temporary = directory + "/." + name + ".partial"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, directory + "/" + name) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}
