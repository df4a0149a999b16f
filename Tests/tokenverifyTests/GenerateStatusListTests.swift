import Foundation
import TestSupport
import Testing

/// `gen --status-share` (spec §4c, §7): a share of the set's tokens name their entry in a status
/// list the set carries (a JWS list for the JWS tokens, a CWT list for the CWTs), the same on one
/// thread and many, and `verify --status-lists` gives every line the verdict written beside it.
@Suite struct GenerateStatusListTests {
    @Test func aStatusShareIsReproducibleAndVerifiesAsExpected() throws {
        let space = try Workspace()
        let one = space.path("one")
        let many = space.path("many")
        let arguments = [
            "gen", "--count", "5000", "--seed", "12", "--realistic", "--cwt-share", "0.3", "--step-share", "0.2",
            "--status-share", "0.6", "--status-invalid-share", "0.1", "--status-suspended-share", "0.05",
        ]
        #expect(try Tool.run(arguments + ["--threads", "1", "--out", one]).status == 0)
        #expect(try Tool.run(arguments + ["--threads", "3", "--out", many]).status == 0)
        for name in GenerateCommandTests.setFiles + [
            "status-lists/jws.statuslist.jwt", "status-lists/cwt.statuslist.cwt",
        ] {
            let a = try Data(contentsOf: URL(fileURLWithPath: one + "/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: many + "/" + name))
            #expect(!a.isEmpty && a == b, "\(name) differs between 1 and 3 threads")
        }
        let output = try Tool.run([
            "verify", "--at", "1800000000", "--keys", one + "/keys.jwks", "--revocations", one + "/revocations.jsonl",
            "--step-policy", one + "/step-policy.json", "--device-steps", one + "/device-steps.jsonl",
            "--status-lists", one + "/status-lists", "--", one + "/requests.jsonl",
        ])
        #expect(output.status == 0, "\(output.stderr)")
        let expected = try GenerateCommandTests.lines(one + "/expected.jsonl").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(output.answers.count == expected.count)
        for (answer, entry) in zip(output.answers, expected) {
            #expect(answer["reason"] as? String == entry["reason"] as? String, "line \(entry["line"]!)")
        }
        // The same answers, byte for byte, with the per-key signature tables off.
        let tablesOff = try Tool.run([
            "verify", "--at", "1800000000", "--keys", one + "/keys.jwks", "--revocations", one + "/revocations.jsonl",
            "--step-policy", one + "/step-policy.json", "--device-steps", one + "/device-steps.jsonl",
            "--status-lists", one + "/status-lists", "--table-memory", "es256=0", "--table-memory", "ed25519=0",
            "--", one + "/requests.jsonl",
        ])
        #expect(tablesOff.stdout == output.stdout)
        let counts = Dictionary(grouping: output.answers.compactMap { $0["reason"] as? String }, by: { $0 }).mapValues(
            \.count)
        #expect((counts["status_invalid"] ?? 0) > 150 && (counts["status_suspended"] ?? 0) > 60, "\(counts)")
        // Without the lists, every token that names one is status_unavailable.
        let without = try Tool.run([
            "verify", "--at", "1800000000", "--keys", one + "/keys.jwks", "--quiet", one + "/tokens.txt",
        ])
        let unavailable = without.answers.filter { $0["reason"] as? String == "status_unavailable" }.count
        #expect(unavailable > 2500 && unavailable < 3500, "\(unavailable) of 5000 tokens at a 0.6 share")
    }
}
