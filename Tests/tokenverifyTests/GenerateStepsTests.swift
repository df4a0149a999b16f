import Foundation
import TestSupport
import Testing

/// `gen --step-share` (spec §4b): the shape of `step-policy.json` and `device-steps.jsonl`, and
/// `step_required` verdicts that follow from them. `verify` on this branch has no
/// `--step-policy`/`--device-steps` yet, so the end-to-end check is left to the branch that has
/// them; here every other verdict is checked against `verify`.
@Suite struct GenerateStepsTests {
    static func json(_ line: Substring) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
    }

    @Test func stepFilesAndVerdicts() throws {
        let space = try Workspace()
        let out = space.path("set")
        let gen = try Tool.run([
            "gen", "--count", "6000", "--seed", "9", "--realistic", "--step-share", "0.3", "--out", out,
        ])
        #expect(gen.status == 0)
        #expect(gen.stderr.contains("step_required"))

        let policy =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: out + "/step-policy.json")))
            as! [String: [String]]
        #expect(
            policy == [
                "unlock": ["trustedPhone", "deviceActivation"],
                "engine_start": ["trustedPhone", "deviceActivation", "mediumCarKey"], "*": ["trustedPhone"],
            ])
        let order = ["trustedPhone", "deviceActivation", "mediumCarKey"]
        var done: [String: Set<String>] = [:]
        var entries = 0
        for line in try GenerateCommandTests.lines(out + "/device-steps.jsonl") {
            let entry = try Self.json(line)
            #expect(Set(entry.keys) == ["sub", "aud", "done"])
            let steps = try #require(entry["done"] as? [String])
            #expect(steps == Array(order.prefix(steps.count)), "steps are done in order")
            done["\(entry["sub"]!) \(entry["aud"]!)", default: []].formUnion(steps)
            entries += 1
        }
        let requests = try GenerateCommandTests.lines(out + "/requests.jsonl")
        let expected = try GenerateCommandTests.lines(out + "/expected.jsonl")
        #expect(entries > 5000 && entries < 6000)  // one a signed line; repeats add none

        let verify = try Tool.run([
            "verify", "--keys", out + "/keys.jwks", "--revocations", out + "/revocations.jsonl",
            "--at", "1800000000", out + "/requests.jsonl",
        ])
        let answers = verify.answers
        #expect(answers.count == 6000)
        var stepRequired = 0
        var validWithSteps = 0
        for index in 0..<6000 {
            let request = try Self.json(requests[index])
            let want = try Self.json(expected[index])
            let device = request["device"] as! String
            let object = request["object"] as! String
            let command = request["command"] as! String
            let required = policy[command] ?? policy["*"]!
            let missing = required.first { !(done["\(device) \(object)"] ?? []).contains($0) }
            let reason = want["reason"] as? String
            if reason == "step_required" {
                stepRequired += 1
                #expect(
                    want["detail"] as? String
                        == "command \"\(command)\" needs step \"\(missing ?? "?")\" of device \"\(device)\" for object \"\(object)\""
                )
                // Without the step options, verify stops at the next check: valid or bad_signature.
                #expect(
                    answers[index]["valid"] as? Bool == true || answers[index]["reason"] as? String == "bad_signature")
            } else {
                if reason == nil || reason == "bad_signature" {
                    #expect(missing == nil, "line \(index + 1) misses \(missing ?? "")")
                }
                if reason == nil, missing == nil { validWithSteps += 1 }
                #expect(answers[index]["valid"] as? Bool == want["valid"] as? Bool)
                #expect(answers[index]["reason"] as? String == reason)
            }
        }
        #expect(stepRequired > 600 && validWithSteps > 3000)

        // Without --step-share there are no step files.
        let plain = space.path("plain")
        #expect(try Tool.run(["gen", "--count", "10", "--out", plain]).status == 0)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: plain).sorted()
                == GenerateCommandTests.setFiles.sorted())
    }
}
