import Foundation
import TestSupport
import Testing

/// `gen --cwt-share` (spec §7): a share of the set's tokens are CWTs (spec §2b), byte for byte
/// the same on one thread and many, and `verify` gives every line the verdict written beside it,
/// with `"format":"cwt"` on exactly the CWT lines.
@Suite struct GenerateCWTTests {
    @Test func aCWTShareIsReproducibleAndVerifiesAsExpected() throws {
        let space = try Workspace()
        let one = space.path("one")
        let many = space.path("many")
        let arguments = ["gen", "--count", "5000", "--seed", "11", "--realistic", "--cwt-share", "0.4"]
        #expect(try Tool.run(arguments + ["--threads", "1", "--out", one]).status == 0)
        #expect(try Tool.run(arguments + ["--threads", "3", "--out", many]).status == 0)
        for name in GenerateCommandTests.setFiles {
            let a = try Data(contentsOf: URL(fileURLWithPath: one + "/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: many + "/" + name))
            #expect(!a.isEmpty && a == b, "\(name) differs between 1 and 3 threads")
        }
        #expect(try GenerateCommandTests.fingerprint(one) == GenerateCommandTests.fingerprint(many))
        let tokens = try GenerateCommandTests.lines(one + "/tokens.txt")
        let cwtLines = Set(tokens.indices.filter { !tokens[$0].contains(".") }.map { $0 + 1 })
        #expect(cwtLines.count > 1700 && cwtLines.count < 2300, "\(cwtLines.count) CWTs of 5000 at a 0.4 share")

        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", one + "/keys.jwks", "--revocations", one + "/revocations.jsonl",
            one + "/requests.jsonl",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let expected = try GenerateCommandTests.lines(one + "/expected.jsonl").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(output.answers.count == expected.count)
        for (answer, entry) in zip(output.answers, expected) {
            let line = entry["line"] as! Int
            #expect(answer["reason"] as? String == entry["reason"] as? String, "line \(line)")
            #expect((answer["format"] as? String == "cwt") == cwtLines.contains(line), "line \(line)")
        }
        let reasons = Set(output.answers.compactMap { $0["reason"] as? String })
        #expect(reasons.isSuperset(of: ["expired", "revoked_token", "bad_signature", "command_not_permitted"]))
    }

    /// Without a CWT share the set is what it was before CWTs existed (the committed fingerprint).
    @Test func aZeroShareChangesNothing() throws {
        let space = try Workspace()
        #expect(
            try Tool.run([
                "gen", "--count", "9000", "--seed", "7", "--realistic", "--cwt-share", "0", "--out", space.path("set"),
            ]).status == 0)
        #expect(try GenerateCommandTests.fingerprint(space.path("set")) == "3c9dce024fae2f30")
    }
}
