import Foundation
import TestSupport
import Testing
import TokenConcurrency
import TokenTools
import TokenVerifier

/// `verify --metrics-file` and `--summary-file` (spec §6b), run through the binary.
@Suite struct MetricsCommandTests {
    /// Tokens with known answers: three copies of one valid token (the two later copies are
    /// signature-cache hits), one expired, one with a broken signature, one malformed line.
    static func mixedInput(_ workspace: Workspace) -> (input: String, valid: Int, reasons: [String: Int]) {
        let valid = workspace.token()
        let expired = workspace.token(claims: Workspace.claims(["exp": "1700000000", "jti": "\"t-2\""]))
        var broken = workspace.token(claims: Workspace.claims(["jti": "\"t-3\""]))
        broken.removeLast(4)
        broken += broken.hasSuffix("AAAA") ? "BBBB" : "AAAA"
        let lines = [valid, expired, valid, broken, "not a token", valid]
        return (lines.joined(separator: "\n") + "\n", 3, ["expired": 1, "bad_signature": 1, "malformed_token": 1])
    }

    @Test func theNumbersInTheFileEqualTheAnswersWritten() throws {
        let workspace = try Workspace()
        let (input, valid, reasons) = Self.mixedInput(workspace)
        let metrics = workspace.path("verify.prom")
        let summary = workspace.path("summary.json")
        // One thread: the six lines are one chunk, so the later copies find the first one cached.
        let result = try Tool.run(
            workspace.verifyArguments + ["--threads", "1", "--metrics-file", metrics, "--summary-file", summary],
            input: input)
        #expect(result.status == 0, "\(result.stderr)")
        let answers = result.answers
        #expect(answers.count == 6)
        var written: [String: Int] = [:]
        for answer in answers where answer["valid"] as? Bool == false {
            written[answer["reason"] as! String, default: 0] += 1
        }
        #expect(written == reasons)

        let file = try MetricsText(file: metrics)
        #expect(file.value("tokenverify_lines_read_total") == Double(answers.count))
        #expect(file.value("tokenverify_answers_total", ["valid": "true"]) == Double(valid))
        for sample in file.all("tokenverify_answers_total") where sample.labels["valid"] == "false" {
            #expect(sample.value == Double(written[sample.labels["reason"]!] ?? 0), "\(sample)")
        }
        #expect(file.all("tokenverify_answers_total").count == Reason.allCases.count + 1)
        #expect(file.value("tokenverify_answer_latency_seconds_count") == Double(answers.count))
        #expect(file.value("tokenverify_answer_latency_seconds_bucket", ["le": "+Inf"]) == Double(answers.count))
        #expect(file.value("tokenverify_signature_cache_hits_total") == 2)
        #expect(file.value("tokenverify_signature_cache_misses_total") == 2)
        #expect(file.value("tokenverify_keys", ["env": "prod"]) == 1)
        #expect(file.value("tokenverify_reloads_total", ["part": "revocations", "outcome": "failed"]) == 0)
        for part in ["keys", "revocations"] {
            let seconds = file.value("tokenverify_state_load_seconds", ["part": part])
            #expect((seconds ?? -1) >= 0, "start-up load of \(part)")
        }
        #expect(file.types["tokenverify_answers_total"] == "counter")
        #expect(file.types["tokenverify_answer_latency_seconds"] == "histogram")
        #expect(file.text.components(separatedBy: "# HELP ").count == file.types.count + 1, "a HELP line per metric")

        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summary)))
        let json = try #require(object as? [String: Any])
        #expect(json["answered"] as? Int == 6)
        #expect(json["valid"] as? Int == valid)
        #expect(json["lines"] as? Int == 6)
        #expect(json["by_reason"] as? [String: Int] == reasons)
        #expect((json["cpu_seconds"] as? Double ?? 0) > 0)
        let state = try #require(json["state"] as? [String: Any])
        #expect(state["keys"] as? Int == 3)
        #expect(state["key_files"] as? [String] == [workspace.path("keys.jwks")])
    }

    /// A reader of the file sees the previous version or the next, never a part of one: every
    /// read, while the file is replaced every 20 ms, holds a whole exposition.
    @Test func aReaderNeverSeesAPartialFile() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let tool = try LiveTool(workspace.verifyArguments + ["--metrics-file", metrics, "--metrics-interval", "0.02"])
        let token = workspace.token()
        #expect(eventually { FileManager.default.fileExists(atPath: metrics) })
        var reads = 0
        var partial: [String] = []
        let end = Date().addingTimeInterval(1.5)
        while Date() < end {
            tool.send(token + "\n")
            guard let text = try? String(contentsOfFile: metrics, encoding: .utf8) else { continue }
            reads += 1
            let whole =
                text.hasPrefix("# HELP ")
                && text.range(of: #"tokenverify_answer_latency_seconds_count [0-9]+\n$"#, options: .regularExpression)
                    != nil
            if !whole { partial.append(text) }
        }
        tool.closeInput()
        let result = tool.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(reads > 50)
        #expect(partial.isEmpty, "\(partial.count) partial reads, the first: \(partial.first ?? "")")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path)
            .filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // The last write is the run's final figures.
        let answered = result.stdout.split(separator: "\n").count
        #expect(try MetricsText(file: metrics).value("tokenverify_lines_read_total") == Double(answered))
    }

    /// SIGTERM: every line read is answered, and the file is written a last time with them (the
    /// interval is an hour, so only the start-up write and the last one happen).
    @Test func theLastWriteAtSIGTERMHoldsEveryAnswer() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let tool = try LiveTool(workspace.verifyArguments + ["--metrics-file", metrics, "--metrics-interval", "3600"])
        #expect(eventually { FileManager.default.fileExists(atPath: metrics) })
        for _ in 0..<3 { #expect(tool.ask(workspace.token(), until: "\"valid\":true")) }
        tool.process.terminate()
        #expect(eventually { !tool.process.isRunning }, "verify did not stop on SIGTERM")
        if tool.process.isRunning { kill(tool.process.processIdentifier, SIGKILL) }
        let result = tool.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let file = try MetricsText(file: metrics)
        #expect(file.value("tokenverify_answers_total", ["valid": "true"]) == 3)
        #expect(file.value("tokenverify_lines_read_total") == 3)
    }

    /// Reloads by part and outcome: a broken key file fails its reload (the gauge says so until
    /// a good one loads), and its load time is there.
    @Test func reloadsAreCountedByPartAndOutcome() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let tool = try LiveTool(
            workspace.verifyArguments + [
                "--metrics-file", metrics, "--metrics-interval", "0.05", "--reload-interval", "0.05",
            ])
        func file() -> MetricsText? { try? MetricsText(file: metrics) }
        #expect(eventually { FileManager.default.fileExists(atPath: metrics) }, "verify did not start")
        try workspace.replace("keys.jwks", "{\"keys\": [")
        #expect(
            eventually {
                file()?.value("tokenverify_reloads_total", ["part": "keys", "outcome": "failed"]) == 1
                    && file()?.value("tokenverify_reload_failing", ["part": "keys"]) == 1
            }, "\(file()?.text ?? "")")
        try workspace.replace("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        #expect(
            eventually {
                file()?.value("tokenverify_reloads_total", ["part": "keys", "outcome": "loaded"]) == 1
                    && file()?.value("tokenverify_reload_failing", ["part": "keys"]) == 0
                    && file()?.value("tokenverify_keys", ["env": "prod"]) == 0
            }, "\(file()?.text ?? "")")
        #expect((file()?.value("tokenverify_state_load_seconds", ["part": "keys"]) ?? -1) >= 0)
        tool.closeInput()
        let result = tool.finish()
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A status list's uri with a backslash, a double quote and a newline is escaped in its
    /// label, and the list's iat and exp are there.
    @Test func labelValuesAreEscaped() throws {
        let workspace = try Workspace()
        let uri = "https://lists.example/a\\b\"c\nd"
        let list = try StatusListIssuer(key: workspace.ed).sign(
            uri: uri, bits: 1, size: 16, statuses: [:], format: .jws, issuedAt: 1_799_000_000,
            expiresAt: 1_900_000_000)
        let listFile = try workspace.write("list.jwt", list)
        let metrics = workspace.path("verify.prom")
        let result = try Tool.run(
            workspace.verifyArguments + ["--status-lists", listFile, "--metrics-file", metrics], input: "")
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        #expect(text.contains(#"{uri="https://lists.example/a\\b\"c\nd"}"#), "\(text)")
        let file = try MetricsText(text)
        #expect(file.value("tokenverify_status_list_issued_at_timestamp_seconds", ["uri": uri]) == 1_799_000_000)
        #expect(file.value("tokenverify_status_list_expires_at_timestamp_seconds", ["uri": uri]) == 1_900_000_000)
        #expect(file.value("tokenverify_reloads_total", ["part": "status_lists", "outcome": "loaded"]) == 0)
    }
}
