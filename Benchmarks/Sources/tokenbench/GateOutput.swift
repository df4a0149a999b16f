import ArgumentParser
import Foundation
import TokenBenchReport

/// What a run leaves behind: the formats, the pictures, the baseline update or comparison, and
/// the exit status.
struct GateOutput {
    let command: TokenBench
    let report: Report
    let baseline: Report?

    func finish() throws {
        let thresholds = try command.thresholds()
        var comparisons: [Comparison]?
        var status: Gate.ExitStatus?
        if let baseline, !command.updateBaseline {
            comparisons = Gate.compare(report, against: baseline, thresholds: thresholds)
            status = Gate.status(comparisons!, report: report, thresholds: thresholds)
        }
        let verdict = status.map { Gate.verdictLine($0, comparisons ?? []) }
        try writeFormats(comparisons: comparisons, status: status, verdict: verdict)
        if let json = command.json { try report.json().write(to: URL(fileURLWithPath: json)) }
        if let directory = command.plots {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, svg) in Plots.render(report) {
                try Data(svg.utf8).write(to: URL(fileURLWithPath: directory + "/" + name))
            }
        }
        guard let path = command.baseline else { return }
        if command.updateBaseline {
            try report.merged(into: baseline).json().write(to: URL(fileURLWithPath: path))
            log("tokenbench: wrote \(report.scenarios.count) scenarios into the baseline \(path)")
            return
        }
        guard let status, let comparisons else { return }
        for comparison in comparisons where comparison.verdict == .regression || comparison.verdict == .improvement {
            log("tokenbench: \(comparison.verdict.rawValue): \(comparison.message)")
        }
        log("tokenbench: \(verdict ?? "") (against \(path))")
        if status != .pass { throw ExitCode(status.rawValue) }
    }

    private func writeFormats(comparisons: [Comparison]?, status: Gate.ExitStatus?, verdict: String?) throws {
        for format in command.format {
            let files: [(String, Data)]
            switch format {
            case .table:
                files = [
                    (
                        "tokenbench.txt",
                        Data((TableFormat.render(report, comparisons: comparisons, verdict: verdict) + "\n").utf8)
                    )
                ]
            case .json:
                files = [("tokenbench.json", try report.json())]
            case .markdown:
                files = [
                    (
                        "tokenbench.md",
                        Data(MarkdownFormat.render(report, comparisons: comparisons, status: status).utf8)
                    )
                ]
            case .githubBenchmark:
                files = [
                    (
                        "github-benchmark-bigger.json",
                        try GitHubBenchmarkFormat.encode(GitHubBenchmarkFormat.biggerIsBetter(report))
                    ),
                    (
                        "github-benchmark-smaller.json",
                        try GitHubBenchmarkFormat.encode(GitHubBenchmarkFormat.smallerIsBetter(report))
                    ),
                ]
            }
            if let directory = command.outputDir {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                for (name, data) in files { try data.write(to: URL(fileURLWithPath: directory + "/" + name)) }
            } else {
                for (_, data) in files { FileHandle.standardOutput.write(data) }
            }
        }
    }
}
