import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenVerifier

/// Tokens minted by another implementation (Python `cryptography`, `Data/demo/make_demo.py`)
/// verify, and every demo line gets, through the line protocol, the verdict written down beside it.
@Suite struct DemoStreamTests {
    static let demo = Repository.demo

    /// The demo stream, and the mixed JWS and CWT stream (spec §2b).
    @Test(arguments: [("requests.jsonl", "expected.jsonl"), ("cwt-requests.jsonl", "cwt-expected.jsonl")])
    func demoLinesMatchTheirExpectedVerdicts(_ requests: String, _ expectedVerdicts: String) throws {
        let (keys, warnings) = try KeySet.load(files: [Self.demo.appendingPathComponent("keys.jwks").path])
        #expect(warnings.isEmpty)
        let revocations = try RevocationList.load(files: [Self.demo.appendingPathComponent("revocations.jsonl").path])
        let steps = SecuritySteps(
            policy: try StepPolicy.load(file: Self.demo.appendingPathComponent("step-policy.json").path),
            done: try DeviceSteps.load(files: [Self.demo.appendingPathComponent("device-steps.jsonl").path]))
        let verifier = Verifier(
            keys: keys, revocations: revocations, steps: steps, options: VerificationOptions(checkTime: 1_800_000_000))
        let lines = try String(contentsOf: Self.demo.appendingPathComponent(requests), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().filter { !$0.element.isEmpty }
            .map { InputLine(number: $0.offset + 1, bytes: Array($0.element.utf8)) }
        var output: [UInt8] = []
        _ = LineAnswerer(verifier: verifier, maxLineBytes: 65536).answer(lines, to: &output)
        let answers = try output.split(separator: 0x0A).map {
            try JSONSerialization.jsonObject(with: Data($0)) as! [String: Any]
        }
        let expected = try String(contentsOf: Self.demo.appendingPathComponent(expectedVerdicts), encoding: .utf8)
            .split(separator: "\n")
            .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(expected.count == answers.count && answers.count == lines.count)
        #expect(expected.filter { $0["valid"] as! Bool }.count >= 3)
        for (answer, entry) in zip(answers, expected) {
            let line = entry["line"] as! Int
            #expect(answer["line"] as? Int == line)
            #expect(answer["valid"] as? Bool == entry["valid"] as? Bool, "line \(line)")
            #expect(answer["reason"] as? String == entry["reason"] as? String, "line \(line)")
            #expect(answer["format"] as? String == entry["format"] as? String, "line \(line)")
        }
    }
}
