import Foundation
import TestSupport
import Testing

/// `fetch --watch --metrics-file`: the watch loop records on the main thread while the metrics
/// writer renders on its own; under ThreadSanitizer (`swift build --sanitize=thread`) a race
/// between them ends the tool with status 66 and a report on stderr, which this test catches.
@Suite struct FetchWatchMetricsTests {
    @Test func theWatchLoopAndTheMetricsWriterShareTheFiguresWithoutARace() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("fetch.prom")
        // Port 9 on 127.0.0.1: nothing listens, so every request fails at once and is retried.
        let tool = try LiveTool([
            "fetch", "--keys", "https://127.0.0.1:9/keys", "--out", workspace.path("out"), "--watch",
            "--interval", "1", "--metrics-file", metrics, "--metrics-interval", "0.02",
        ])
        // The event: a file written after the loop recorded three failed requests (and scheduled
        // each retry), while the writer rendered the figures every 20 ms.
        let written = eventually(within: 30) {
            let text = (try? String(contentsOfFile: metrics, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").contains {
                $0.hasPrefix("tokenverify_fetch_requests_total{") && $0.contains("outcome=\"failed\"")
                    && $0.hasSuffix(" 3")
            }
        }
        #expect(written, "no metrics file with three failed requests")
        tool.process.terminate()
        let end = tool.finish()
        #expect(end.status == 0, "\(end.stderr)")
        #expect(!end.stderr.contains("ThreadSanitizer"), "\(end.stderr)")
    }
}
