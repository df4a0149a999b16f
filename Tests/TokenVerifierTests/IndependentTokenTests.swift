import Foundation
import Testing
@testable import TokenVerifier

/// Tokens minted by another implementation (Python `cryptography`, `Data/demo/make_demo.py`)
/// verify, and every demo line gets the verdict written down beside it.
@Suite struct IndependentTokenTests {
    static let demo = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Data/demo")

    @Test func demoLinesMatchTheirExpectedVerdicts() throws {
        let (keys, warnings) = try KeySet.load(files: [Self.demo.appendingPathComponent("keys.jwks").path])
        #expect(warnings.isEmpty)
        let revocations = try RevocationList.load(files: [Self.demo.appendingPathComponent("revocations.jsonl").path])
        let verifier = TokenVerifier(keys: keys, revocations: revocations, options: VerificationOptions(checkTime: 1_800_000_000))
        let worker = verifier.makeWorker()
        let lines = try String(contentsOf: Self.demo.appendingPathComponent("requests.jsonl"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
        var verdicts: [Int: (Bool, String?)] = [:]
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let parsed = Array(line.utf8).withUnsafeBufferPointer { RequestLine.parse($0) }
            switch parsed {
            case .success(let request):
                let result = worker.verify(request)
                verdicts[index + 1] = (result.isValid, result.reason?.rawValue)
            case .failure:
                verdicts[index + 1] = (false, Reason.malformedRequest.rawValue)
            }
        }
        let expected = try String(contentsOf: Self.demo.appendingPathComponent("expected.jsonl"), encoding: .utf8)
            .split(separator: "\n")
            .map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(expected.count == verdicts.count)
        #expect(expected.filter { $0["valid"] as! Bool }.count >= 3)
        for entry in expected {
            let line = entry["line"] as! Int
            let verdict = try #require(verdicts[line], "line \(line) has no answer")
            #expect(verdict.0 == entry["valid"] as! Bool, "line \(line)")
            #expect(verdict.1 == entry["reason"] as? String, "line \(line)")
        }
    }
}
