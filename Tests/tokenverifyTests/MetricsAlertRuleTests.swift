import Foundation
import TestSupport
import Testing
import TokenTools

/// `fetch --watch --metrics-file` against the local HTTPS publisher, and the example alert rules
/// of docs/prometheus/tokenverify-alerts.yml checked with `promtool` against files the commands
/// wrote: `promtool check metrics` on each file, `promtool test rules` on series read from them.
/// Without promtool (Debian's package `prometheus`) those checks are skipped with the reason,
/// and fail under CI=true.
@Suite(.serialized) struct MetricsAlertRuleTests {
    static let promtool: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
        .split(separator: ":").map { "\($0)/promtool" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    static let rules = Tool.repository.appendingPathComponent("docs/prometheus/tokenverify-alerts.yml").path

    static func requirePromtool() throws -> String {
        try External.require(promtool != nil, "promtool is not installed (Debian's package prometheus)")
        return promtool!
    }

    /// `promtool check metrics` on a file: exit 0 and no lint.
    static func checkMetrics(_ path: String) throws {
        let promtool = try requirePromtool()
        let result = try External.run(
            promtool, ["check", "metrics"], input: Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(result.status == 0 && result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    /// Runs `promtool test rules` on the series of `file` (counters growing by their value each
    /// minute, as a run that keeps its mix; gauges constant; timestamps moved so that the file
    /// was written at 15m, the evaluation time) and expects `alert` with `labels`, or none.
    static func testRule(
        _ alert: String, on file: MetricsText, writtenAt: Double, expect labels: [[String: String]], summary: String
    ) throws {
        let promtool = try requirePromtool()
        let evaluation = 900.0
        var series: [[String: String]] = []
        for sample in file.samples where sample.value.isFinite {
            let family = file.types.keys.first { sample.name == $0 || sample.name.hasPrefix($0 + "_") } ?? sample.name
            let grows = ["counter", "histogram"].contains(file.types[family] ?? "")
            var value = sample.value
            if sample.name.hasSuffix("_timestamp_seconds") { value += evaluation - writtenAt }
            let labels = sample.labels.sorted { $0.key < $1.key }.map { label in
                let escaped = label.value.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
                return "\(label.key)=\"\(escaped)\""
            }
            series.append([
                "series": "\(sample.name){\(labels.joined(separator: ","))}",
                "values": grows ? "0+\(value)x30" : "\(value)x30",
            ])
        }
        let test: [String: Any] = [
            "rule_files": [rules], "evaluation_interval": "1m",
            "tests": [
                [
                    "interval": "1m", "input_series": series,
                    "alert_rule_test": [
                        [
                            "eval_time": "15m", "alertname": alert,
                            "exp_alerts": labels.map { ["exp_labels": $0, "exp_annotations": ["summary": summary]] },
                        ]
                    ],
                ]
            ],
        ]
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rules-test-\(UUID().uuidString).yml")
        try JSONSerialization.data(withJSONObject: test, options: [.sortedKeys, .withoutEscapingSlashes]).write(
            to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let result = try External.run(promtool, ["test", "rules", path.path])
        #expect(result.status == 0, "\(alert): \(result.stdout)\(result.stderr)")
    }

    @Test func fetchWatchMetricsAndTheStaleListRule() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        let metrics = publisher.directory.appendingPathComponent("fetch.prom").path
        let now = Int64(Date().timeIntervalSince1970)
        let expires = now + 1800
        func list(_ name: String) throws -> String {
            try StatusListIssuer(key: workspace.ed).sign(
                uri: publisher.url(name), bits: 1, size: 16, statuses: [:], format: .jws, issuedAt: now - 60,
                expiresAt: expires, timeToLive: 1)
        }
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        for name in ["list-ok", "list-down"] { try publisher.publish(name, try list(name)) }
        try publisher.publish("list-forged", "not a status list token")
        let fetch = try LiveTool([
            "fetch", "--keys", publisher.url("keys.jwks"), "--status-lists", publisher.url("list-ok"),
            publisher.url("list-down"), publisher.url("list-forged"), "--out", out, "--ca-file", publisher.caFile,
            "--watch", "--interval", "1", "--min-interval", "1", "--max-interval", "2",
            "--metrics-file", metrics, "--metrics-interval", "0.1",
        ])
        // A failed expectation that throws must not leave fetch running.
        defer { if fetch.process.isRunning { fetch.process.terminate() } }
        func file() -> MetricsText? { try? MetricsText(file: metrics) }
        func requests(_ name: String, _ outcome: String) -> Double {
            file()?.value("tokenverify_fetch_requests_total", ["url": publisher.url(name), "outcome": outcome]) ?? 0
        }
        #expect(eventually { requests("list-down", "fetched") >= 1 && requests("keys.jwks", "fetched") >= 1 })
        try publisher.setMode("list-down", "status 500")
        #expect(eventually { requests("list-down", "failed") >= 1 && requests("list-ok", "not_modified") >= 1 })
        #expect(requests("list-forged", "refused") >= 1)
        fetch.process.terminate()
        let result = fetch.finish()
        #expect(result.status == 0, "\(result.stderr)")

        let final = try #require(file())
        let down = ["url": publisher.url("list-down")]
        #expect(final.value("tokenverify_fetch_failing", down) == 1)
        #expect(final.value("tokenverify_fetch_failing", ["url": publisher.url("list-ok")]) == 0)
        #expect(final.value("tokenverify_fetch_failing", ["url": publisher.url("list-forged")]) == 1)
        #expect(final.value("tokenverify_fetch_status_list_expires_at_timestamp_seconds", down) == Double(expires))
        #expect(final.value("tokenverify_fetch_status_list_issued_at_timestamp_seconds", down) == Double(now - 60))
        let lastSuccess = final.value("tokenverify_fetch_last_success_timestamp_seconds", down) ?? 0
        #expect(lastSuccess >= Double(now) - 5 && lastSuccess <= Date().timeIntervalSince1970)
        #expect((final.value("tokenverify_fetch_next_timestamp_seconds", down) ?? 0) > lastSuccess)
        #expect(
            final.value("tokenverify_fetch_last_success_timestamp_seconds", ["url": publisher.url("list-forged")]) == 0)
        #expect(final.types["tokenverify_fetch_requests_total"] == "counter")

        try Self.checkMetrics(metrics)
        let writtenAt = try #require(final.value("tokenverify_fetch_metrics_written_timestamp_seconds"))
        // list-down fires; list-ok (fetched) and list-forged (no list in place) do not.
        try Self.testRule(
            "TokenverifyStatusListExpiringUnrefreshed", on: final, writtenAt: writtenAt,
            expect: [["severity": "critical", "url": publisher.url("list-down")]],
            summary: "Status list \(publisher.url("list-down")) expires within the hour and fetching it fails")
    }

    @Test func badSignatureShareRule() throws {
        let workspace = try Workspace()
        let (input, _, _) = MetricsCommandTests.mixedInput(workspace)
        for (name, lines, fires) in [("mixed.prom", input, true), ("clean.prom", workspace.token() + "\n", false)] {
            let metrics = workspace.path(name)
            let result = try Tool.run(workspace.verifyArguments + ["--metrics-file", metrics], input: lines)
            #expect(result.status == 0, "\(result.stderr)")
            try Self.checkMetrics(metrics)
            let file = try MetricsText(file: metrics)
            try Self.testRule(
                "TokenverifyBadSignatureShareHigh", on: file,
                writtenAt: file.value("tokenverify_metrics_written_timestamp_seconds")!,
                expect: fires ? [["severity": "warning"]] : [], summary: "More than 5% of answers are bad_signature")
        }
    }

    @Test func failedReloadRule() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let tool = try LiveTool(
            workspace.verifyArguments + [
                "--metrics-file", metrics, "--metrics-interval", "0.05", "--reload-interval", "0.05",
            ])
        #expect(eventually { FileManager.default.fileExists(atPath: metrics) })
        try workspace.replace("revocations.jsonl", "{not json\n")
        #expect(
            eventually {
                (try? MetricsText(file: metrics))?.value("tokenverify_reload_failing", ["part": "revocations"]) == 1
            })
        tool.closeInput()
        #expect(tool.finish().status == 0)
        try Self.checkMetrics(metrics)
        let file = try MetricsText(file: metrics)
        try Self.testRule(
            "TokenverifyReloadFailed", on: file,
            writtenAt: file.value("tokenverify_metrics_written_timestamp_seconds")!,
            expect: [["severity": "warning", "part": "revocations"]],
            summary: "tokenverify could not reload its revocations; the previous state stays in force")
    }
}
