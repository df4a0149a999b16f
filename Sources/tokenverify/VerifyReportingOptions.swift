import ArgumentParser
import LiveState
import TokenConcurrency
import TokenMetrics
import TokenStream
import TokenVerifier

/// `verify`'s reports for monitoring and batch jobs (spec §6b): `--metrics-file` (the Prometheus
/// text format, written every `--metrics-interval` seconds and at exit) and `--summary-file`
/// (the end-of-run summary as JSON).
struct VerifyReportingOptions: ParsableArguments {
    @OptionGroup var metricsOptions: MetricsFileOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write the end-of-run summary (counts by reason, lines, seconds, CPU seconds, the state in force) to this file as one JSON object.",
            valueName: "path"))
    var summaryFile: String?

    func validate() throws {
        try MetricsOptionRules.validate(file: metricsOptions.metricsFile, interval: metricsOptions.metricsInterval)
        if summaryFile?.isEmpty == true { throw ValidationError("--summary-file needs a path") }
    }

    /// Stops start-up (exit 2, before any input is read) when a file named cannot be written.
    func checkFiles() {
        do {
            if let metricsFile = metricsOptions.metricsFile {
                try AtomicFile(path: metricsFile).checkWritable(option: "--metrics-file")
            }
            if let summaryFile { try AtomicFile(path: summaryFile).checkWritable(option: "--summary-file") }
        } catch {
            ConfigurationError(description: error.description).exit()
        }
    }

    /// The metrics of a run (nil without --metrics-file), the watcher's sources (timed when
    /// there are metrics), and the end of the run.
    struct Reports {
        var metrics: VerifyMetrics?
        var publisher: MetricsPublisher?
        var sources: [LiveStateWatcher.Source]
        var summaryFile: String?

        /// The services the run's ``ServiceGroup`` runs for the reports: the metrics writer
        /// (which writes a last time when the group stops it).
        var services: [any Service & Sendable] { publisher.map { [$0] } ?? [] }

        /// Writes the summary file (after the group stopped the metrics writer).
        func finish(_ outcome: VerifyPipeline.Outcome, files: LiveStateFiles, verifier: Verifier) {
            guard let summaryFile else { return }
            let run = SummaryFile.Run(
                summary: outcome.summary, linesRead: metrics?.counters.reading().linesRead ?? outcome.summary.answered,
                seconds: outcome.seconds, interrupted: outcome.interrupted, outputClosed: outcome.outputClosed)
            do {
                try AtomicFile(path: summaryFile).write(SummaryFile.json(run, files: files, verifier: verifier))
            } catch {
                printError("tokenverify: summary file not written: \(error)")
            }
        }
    }

    /// The metrics file's writer, when one is named (run by the command's ``ServiceGroup``).
    func start(
        verifier: Verifier, sources: [LiveStateWatcher.Source], startupSeconds: Double,
        startupGroupSeconds: [String: Double]
    ) -> Reports {
        guard let metricsFile = metricsOptions.metricsFile else {
            return Reports(sources: sources, summaryFile: summaryFile)
        }
        let metrics = VerifyMetrics(
            verifier: verifier, parts: sources.map { VerifyMetrics.part(of: $0.name) }, startupSeconds: startupSeconds,
            startupGroupSeconds: startupGroupSeconds)
        let publisher = MetricsPublisher(
            file: AtomicFile(path: metricsFile),
            interval: metricsOptions.metricsInterval ?? MetricsOptionRules.defaultInterval,
            render: { metrics.render() }, log: { printError($0) })
        return Reports(
            metrics: metrics, publisher: publisher, sources: metrics.observing(sources), summaryFile: summaryFile)
    }
}

/// `--metrics-file` and `--metrics-interval`, as `verify` and `fetch --watch` take them (spec §6b).
struct MetricsFileOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write metrics in the Prometheus text format (0.0.4) to this file, replaced whole every --metrics-interval seconds and at exit (for node_exporter's textfile collector: a *.prom file in its folder; fetch: with --watch).",
            valueName: "path"))
    var metricsFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds between writes of --metrics-file (default 15).", valueName: "seconds"))
    var metricsInterval: Double?
}

/// The rules `verify` and `fetch --watch` share for `--metrics-file` and `--metrics-interval`.
enum MetricsOptionRules {
    static let defaultInterval = 15.0

    static func validate(file: String?, interval: Double?) throws {
        if file?.isEmpty == true { throw ValidationError("--metrics-file needs a path") }
        if let interval {
            try TimeOptionRules.validate(duration: interval, "--metrics-interval", positive: true)
            if file == nil { throw ValidationError("--metrics-interval needs --metrics-file") }
        }
    }
}
