import Foundation
import LiveState
import Testing
import TokenMetrics
import TokenVerifier

@testable import TokenStream

/// ``SummaryFile``: the end-of-run summary as one JSON object (spec §6b).
@Suite struct SummaryFileTests {
    func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func theSummaryCountsByReasonAndNamesTheStateInForce() throws {
        var summary = RunSummary()
        summary.answered = 5
        summary.valid = 2
        summary.byReason = [.badSignature: 2, .expired: 1]
        summary.statusUnchecked = 1
        let run = SummaryFile.Run(summary: summary, linesRead: 6, seconds: 1.5, interrupted: true, outputClosed: false)
        let files = LiveStateFiles(
            keys: ["/k/keys.jwks"], revocations: ["/k/revoked.jsonl"], stepPolicy: "/k/policy.json",
            warn: { _ in })
        let bytes = SummaryFile.json(run, files: files, verifier: Verifier(keys: try KeySet(keys: [])))
        #expect(bytes.last == UInt8(ascii: "\n"), "one line")
        #expect(bytes.dropLast().contains(UInt8(ascii: "\n")) == false)
        let json = try object(bytes)
        #expect(json["answered"] as? Int == 5)
        #expect(json["valid"] as? Int == 2)
        #expect(json["invalid"] as? Int == 3)
        #expect(json["lines"] as? Int == 6)
        #expect(json["seconds"] as? Double == 1.5)
        #expect(json["interrupted"] as? Bool == true)
        #expect(json["output_closed"] as? Bool == false)
        #expect(json["status_unchecked"] as? Int == 1)
        #expect(json["by_reason"] as? [String: Int] == ["bad_signature": 2, "expired": 1])
        #expect((json["cpu_seconds"] as? Double ?? -1) >= 0)
        let state = try #require(json["state"] as? [String: Any])
        #expect(state["key_files"] as? [String] == ["/k/keys.jwks"])
        #expect(state["revocation_files"] as? [String] == ["/k/revoked.jsonl"])
        #expect(state["step_policy_file"] as? String == "/k/policy.json")
        #expect(state["keys"] as? Int == 0)
        #expect(state["status_lists"] == nil, "no status lists configured")
    }

    @Test func membersAreSortedByName() throws {
        let run = SummaryFile.Run(
            summary: RunSummary(), linesRead: 0, seconds: 0, interrupted: false, outputClosed: false)
        let text = String(
            decoding: SummaryFile.json(
                run, files: LiveStateFiles(keys: [], warn: { _ in }), verifier: Verifier(keys: try KeySet(keys: []))),
            as: UTF8.self)
        let order = ["answered", "by_reason", "cpu_seconds", "interrupted", "invalid", "lines", "output_closed"]
        let positions = order.map { text.range(of: "\"\($0)\"")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(text)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted(), "\(text)")
    }
}
