import Foundation
import TestSupport
import Testing

/// Bad `--metrics-file`, `--metrics-interval` and `--summary-file` values stop start-up (exit 2,
/// nothing read); a metrics write that fails later is said on stderr and the stream goes on.
@Suite struct MetricsStartupTests {
    @Test(arguments: [
        (
            ["--metrics-file", "/nonexistent-folder/verify.prom"],
            "--metrics-file /nonexistent-folder/verify.prom: cannot write in /nonexistent-folder"
        ),
        (["--metrics-file", "FOLDER"], "a directory, not a file"),
        (["--summary-file", "/nonexistent-folder/summary.json"], "--summary-file /nonexistent-folder/summary.json"),
        (
            ["--metrics-file", "FOLDER/m.prom", "--metrics-interval", "0"],
            "--metrics-interval must be a positive number"
        ),
        (["--metrics-file", "FOLDER/m.prom", "--metrics-interval=-1"], "--metrics-interval must be a positive number"),
        (
            ["--metrics-file", "FOLDER/m.prom", "--metrics-interval", "nan"],
            "--metrics-interval must be a positive number"
        ),
        (["--metrics-interval", "5"], "--metrics-interval needs --metrics-file"),
    ])
    func verifyStopsBeforeReading(options: [String], message: String) throws {
        let workspace = try Workspace()
        let folder = workspace.directory.path
        let arguments = options.map { $0.replacingOccurrences(of: "FOLDER", with: folder) }
        let result = try Tool.run(workspace.verifyArguments + arguments, input: workspace.token() + "\n")
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "a line was answered: \(result.stdout)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(folder)/m.prom"))
    }

    @Test(arguments: [
        (["--watch", "--metrics-file", "/nonexistent-folder/fetch.prom"], "cannot write in /nonexistent-folder"),
        (["--metrics-file", "OUT/fetch.prom"], "--metrics-file needs --watch"),
        (
            ["--watch", "--metrics-file", "OUT/fetch.prom", "--metrics-interval", "0"],
            "--metrics-interval must be a positive number"
        ),
    ])
    func fetchStopsBeforeFetching(options: [String], message: String) throws {
        let workspace = try Workspace()
        let out = workspace.path("out")
        let arguments = options.map { $0.replacingOccurrences(of: "OUT", with: workspace.directory.path) }
        // Port 9 on 127.0.0.1: nothing listens, and nothing must be asked.
        let result = try Tool.run(["fetch", "--keys", "https://127.0.0.1:9/keys", "--out", out] + arguments)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out), "fetch started: \(out) was made")
    }

    /// The metrics folder goes away mid-run: stderr says the file is not written, every line is
    /// still answered, and once the folder is back the file is written again.
    @Test func aLaterWriteFailureNeverStopsTheStream() throws {
        let workspace = try Workspace()
        let folder = workspace.directory.appendingPathComponent("metrics")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let metrics = folder.appendingPathComponent("verify.prom").path
        let tool = try LiveTool(workspace.verifyArguments + ["--metrics-file", metrics, "--metrics-interval", "0.05"])
        #expect(eventually { FileManager.default.fileExists(atPath: metrics) })
        // Moved away in one step (a removal could meet a file being written in it).
        let away = workspace.directory.appendingPathComponent("metrics-away")
        try #require(rename(folder.path, away.path) == 0)
        #expect(eventually { tool.errorLines(from: 0).contains { $0.contains("metrics file not written") } })
        let token = workspace.token()
        for _ in 0..<3 { #expect(tool.ask(token, until: "\"valid\":true")) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        #expect(eventually { tool.errorLines(from: 0).contains { $0.contains("written again") } })
        tool.closeInput()
        let result = tool.finish()
        #expect(result.status == 0, "\(result.stderr)")
        let failures = result.stderr.components(separatedBy: "metrics file not written").count - 1
        #expect(failures == 1, "said once, not at every attempt: \(result.stderr)")
        #expect(try MetricsText(file: metrics).value("tokenverify_answers_total", ["valid": "true"]) == 3)
    }
}
