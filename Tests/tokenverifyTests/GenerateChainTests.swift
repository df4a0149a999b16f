import Foundation
import TestSupport
import Testing
import TokenVerifier

/// `gen --chain-share` (spec §3b, §7): a share of the tokens carry leaf + intermediate (JWS
/// `x5c`, CWT `x5chain`) in place of a `kid`, the root is written as `anchors.pem`, the set is
/// byte for byte the same on one thread and many, and `verify --trust-anchors int=anchors.pem`
/// gives every line the verdict written beside it.
@Suite struct GenerateChainTests {
    static let arguments = [
        "gen", "--count", "5000", "--seed", "13", "--realistic", "--cwt-share", "0.4", "--chain-share", "0.5",
        "--chain-leaves", "40",
    ]

    @Test func aChainShareIsReproducibleAndVerifiesAsExpected() throws {
        let space = try Workspace()
        let one = space.path("one")
        let many = space.path("many")
        #expect(try Tool.run(Self.arguments + ["--threads", "1", "--out", one]).status == 0)
        #expect(try Tool.run(Self.arguments + ["--threads", "3", "--out", many]).status == 0)
        for name in GenerateCommandTests.setFiles + ["anchors.pem"] {
            let a = try Data(contentsOf: URL(fileURLWithPath: one + "/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: many + "/" + name))
            #expect(!a.isEmpty && a == b, "\(name) differs between 1 and 3 threads")
        }
        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", one + "/keys.jwks", "--revocations", one + "/revocations.jsonl",
            "--trust-anchors", "int=" + one + "/anchors.pem", one + "/requests.jsonl",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let expected = try GenerateCommandTests.lines(one + "/expected.jsonl").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(output.answers.count == expected.count && expected.count == 5000)
        // A valid chained token's answer has no kid but its leaf's x5t#S256; its leaf is the first
        // certificate of its header.
        let requests = try GenerateCommandTests.lines(one + "/requests.jsonl")
        var chained: [(leaf: String, cwt: Bool, valid: Bool)] = []
        for ((answer, entry), request) in zip(zip(output.answers, expected), requests) {
            #expect(answer["reason"] as? String == entry["reason"] as? String, "line \(entry["line"] ?? "?")")
            if answer["valid"] as? Bool == true, let thumbprint = answer["x5t#S256"] as? String {
                #expect(answer["kid"] == nil && thumbprint.utf8.count == 43, "\(answer)")
                let cwt = answer["format"] as? String == "cwt"
                chained.append((cwt ? "" : Self.leaf(ofRequest: String(request)), cwt, true))
            }
        }
        let valid = output.answers.filter { $0["valid"] as? Bool == true }.count
        let chainedValid = chained.filter(\.valid).count
        #expect(
            Double(chainedValid) > 0.4 * Double(valid) && Double(chainedValid) < 0.6 * Double(valid),
            "\(chainedValid) of \(valid) valid tokens chained at 0.5")
        #expect(chained.contains { $0.cwt && $0.valid } && chained.contains { !$0.cwt && $0.valid })
        let leaves = Set(chained.filter { !$0.cwt }.map(\.leaf)).count
        #expect(leaves > 60 && leaves <= 80, "\(leaves) distinct leaves of 40 per algorithm")
        let reasons = Set(output.answers.compactMap { $0["reason"] as? String })
        #expect(reasons.isSuperset(of: ["expired", "revoked_token", "bad_signature", "command_not_permitted"]))
    }

    /// The header carries leaf + intermediate, never the root; without anchors a chained token
    /// is not valid (no key carried in a token is trusted).
    @Test func theHeaderHoldsLeafAndIntermediateAndNoKid() throws {
        let space = try Workspace()
        let set = space.path("set")
        let arguments = ["gen", "--count", "200", "--seed", "3", "--chain-share", "1", "--out", set]
        #expect(try Tool.run(arguments).status == 0)
        let root = try String(contentsOfFile: set + "/anchors.pem", encoding: .utf8)
            .split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        for token in try GenerateCommandTests.lines(set + "/tokens.txt").prefix(50) where token.contains(".") {
            var encoded = String(token.prefix { $0 != "." })
            while encoded.count % 4 != 0 { encoded += "=" }
            let data = try #require(
                Data(
                    base64Encoded: encoded.replacingOccurrences(of: "-", with: "+")
                        .replacingOccurrences(of: "_", with: "/")))
            let header = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            let chain = try #require(header["x5c"] as? [String])
            #expect(chain.count == 2 && !chain.contains(root) && header["kid"] == nil)
        }
        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", set + "/keys.jwks", set + "/requests.jsonl",
        ])
        #expect(output.answers.count == 200)
        #expect(output.answers.allSatisfy { $0["valid"] as? Bool == false })
    }

    /// With `--chain-kids` each chained JWS also names its key: the same tokens are valid by
    /// `kid` without anchors and by their chain with them (a `kid` beside a chain is not used).
    @Test func chainKidsVerifyBothWays() throws {
        let space = try Workspace()
        let set = space.path("set")
        let made = try Tool.run([
            "gen", "--count", "120", "--seed", "3", "--chain-share", "1", "--chain-kids", "--out", set,
        ])
        #expect(made.status == 0, "\(made.stderr)")
        let keyIDs = Set(
            try GenerateCommandTests.lines(set + "/tokens.txt").filter { $0.contains(".") }.map { token in
                var encoded = String(token.prefix { $0 != "." })
                while encoded.count % 4 != 0 { encoded += "=" }
                let data = try #require(
                    Data(
                        base64Encoded: encoded.replacingOccurrences(of: "-", with: "+").replacingOccurrences(
                            of: "_", with: "/")))
                let header = try JSONSerialization.jsonObject(with: data) as! [String: Any]
                #expect((header["x5c"] as? [String])?.count == 2)
                return header["kid"] as? String ?? ""
            })
        #expect(!keyIDs.isEmpty && !keyIDs.contains(""), "\(keyIDs)")
        let verify = ["verify", "--at", "1800000000", "--keys", set + "/keys.jwks", set + "/requests.jsonl"]
        let byKid = try Tool.run(verify)
        let byChain = try Tool.run(verify + ["--trust-anchors", "int=" + set + "/anchors.pem"])
        for output in [byKid, byChain] {
            #expect(output.answers.count == 120)
            #expect(output.answers.allSatisfy { $0["valid"] as? Bool == true }, "\(output.stdout.prefix(400))")
        }
    }

    @Test func sharesAndLeafCountsOutOfRangeAreRefused() throws {
        let space = try Workspace()
        for extra in [["--chain-share", "1.5"], ["--chain-share", "-0.1"], ["--chain-leaves", "0"]] {
            let output = try Tool.run(["gen", "--count", "10", "--out", space.path("x")] + extra)
            #expect(output.status != 0, "\(extra)")
        }
    }

    /// Without a chain share the set is what it was before chains existed (the committed fingerprint).
    @Test func aZeroShareChangesNothing() throws {
        let space = try Workspace()
        let set = space.path("set")
        #expect(
            try Tool.run(["gen", "--count", "9000", "--seed", "7", "--realistic", "--chain-share", "0", "--out", set])
                .status == 0)
        #expect(try GenerateCommandTests.fingerprint(set) == "3c9dce024fae2f30")
        #expect(!FileManager.default.fileExists(atPath: set + "/anchors.pem"))
    }

    /// The first `x5c` certificate (standard base64) of a JWS request line's header.
    static func leaf(ofRequest line: String) -> String {
        var token = line
        if line.hasPrefix("{"), let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        {
            token = object["token"] as? String ?? ""
        }
        let header = token.split(separator: ".").first.map(String.init) ?? ""
        guard let bytes = Base64URL.decode(Array(header.utf8)),
            let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let chain = object["x5c"] as? [String]
        else { return "" }
        return chain.first ?? ""
    }
}
