import Dispatch
import LiveState
import Prometheus
import TokenConcurrency
import TokenStream
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// `verify --metrics-file` (spec §6b): what the stream counted (``StreamCounters``), the reloads
/// of the live state by part and outcome, and the state in force (status lists' `iat` and `exp`,
/// keys by `env`), the signature path of each algorithm (``SignaturePath``), as the Prometheus
/// text format. ``render()`` runs on the metrics writer's queue.
package final class VerifyMetrics: @unchecked Sendable {
    /// Where the pipeline counts (``VerifyPipeline/Configuration/counters``).
    package let counters = StreamCounters()
    private let verifier: Verifier
    private let registry = PrometheusCollectorRegistry()
    private let reloads = LockedValue<[ReloadEvent]>([])

    private let linesRead: TotalCounter
    private let answers: [Reason?: TotalCounter]
    private let cacheHits: TotalCounter
    private let cacheMisses: TotalCounter
    private var reloadCounters: [String: TotalCounter] = [:]
    private var reloadTotals: [String: Int] = [:]
    private let parts: [String]
    private let listIssued: GaugeSet
    private let listExpires: GaugeSet
    private let keysByEnvironment: GaugeSet
    private let written: Gauge
    /// Whether the signature paths are in the registry (they are decided once; the first
    /// ``render()`` adds them, off the start-up path, as their self-tests may run then).
    private var signaturePathsPublished = false

    /// One load of one part of the live state, timed.
    struct ReloadEvent {
        var part: String
        var loaded: Bool
        var seconds: Double
        var at: Double
    }

    /// Metrics for a run of `verifier` whose live state has these parts (``part(of:)`` names),
    /// loaded at start-up in `startupSeconds`, each group of files in `startupGroupSeconds` (by
    /// its source name, as ``LiveStateFiles/makeVerifier(options:timing:)`` tells them).
    package init(
        verifier: Verifier, parts: [String], startupSeconds: Double, startupGroupSeconds: [String: Double] = [:]
    ) {
        self.verifier = verifier
        self.parts = parts
        let r = registry
        linesRead = TotalCounter(r.counter("tokenverify_lines_read_total", "Non-blank input lines read."))
        var answers: [Reason?: TotalCounter] = [
            nil: TotalCounter(
                r.counter(Self.answersName, Self.answersHelp, [("valid", "true"), ("reason", "")]))
        ]
        for reason in Reason.allCases {
            answers[reason] = TotalCounter(
                r.counter(Self.answersName, Self.answersHelp, [("valid", "false"), ("reason", reason.rawValue)]))
        }
        self.answers = answers
        cacheHits = TotalCounter(
            r.counter(
                "tokenverify_signature_cache_hits_total", "Signature checks answered by the signature cache."))
        cacheMisses = TotalCounter(
            r.counter(
                "tokenverify_signature_cache_misses_total",
                "Signature checks the cache could not answer (the signature was verified)."))
        listIssued = GaugeSet(
            r, "tokenverify_status_list_issued_at_timestamp_seconds",
            "The iat of the newest generation loaded of each status list, by its uri.", label: "uri")
        listExpires = GaugeSet(
            r, "tokenverify_status_list_expires_at_timestamp_seconds",
            "The exp of the newest generation loaded of each status list, by its uri (none without exp).",
            label: "uri")
        keysByEnvironment = GaugeSet(
            r, "tokenverify_keys", "Keys in force, by their env (none: a key without env).", label: "env")
        written = r.gauge("tokenverify_metrics_written_timestamp_seconds", "When this file was written.")
        r.gauge("tokenverify_startup_load_seconds", "Seconds the live state's files took to load at start-up.")
            .set(startupSeconds)
        var partSeconds: [String: Double] = [:]
        for (group, seconds) in startupGroupSeconds { partSeconds[Self.part(of: group), default: 0] += seconds }
        for (part, seconds) in partSeconds {
            r.gauge(Self.loadSecondsName, Self.loadSecondsHelp, [("part", part)]).set(seconds)
        }
        let now = Self.now()
        r.gauge("tokenverify_start_timestamp_seconds", "When the run started.").set(now)
        for part in parts {
            for outcome in ["loaded", "failed"] { reloadCounter(part, outcome) }
            r.gauge(Self.failingName, Self.failingHelp, [("part", part)]).set(to: 0)
            r.gauge(Self.loadedAtName, Self.loadedAtHelp, [("part", part)]).set(now)
        }
    }

    static let answersName = "tokenverify_answers_total"
    static let answersHelp = "Answers written, by valid and reason (reason empty when valid)."
    static let failingName = "tokenverify_reload_failing"
    static let failingHelp =
        "1 when the part's last reload failed and its previous state stays in force, else 0."
    static let loadedAtName = "tokenverify_state_loaded_timestamp_seconds"
    static let loadedAtHelp = "When the part in force was loaded (start-up or its last reload)."
    static let loadSecondsName = "tokenverify_state_load_seconds"
    static let loadSecondsHelp = "Seconds the part's files took to load at start-up or at its last reload."

    @discardableResult
    private func reloadCounter(_ part: String, _ outcome: String) -> TotalCounter {
        let key = "\(part)\u{0}\(outcome)"
        if let counter = reloadCounters[key] { return counter }
        let counter = TotalCounter(
            registry.counter(
                "tokenverify_reloads_total", "Reloads of the live state's files, by part and outcome.",
                [("part", part), ("outcome", outcome)]))
        reloadCounters[key] = counter
        return counter
    }

    /// The metrics' name for a live-state source (``LiveStateWatcher/Source/name``).
    package static func part(of sourceName: String) -> String {
        switch sourceName {
        case "step policy", "device steps": return "steps"
        default: return String(sourceName.map { $0 == " " || $0 == "-" ? "_" : $0 })
        }
    }

    /// `sources` whose loads are timed and counted here (the watcher reloads through them).
    package func observing(_ sources: [LiveStateWatcher.Source]) -> [LiveStateWatcher.Source] {
        sources.map { source in
            var observed = source
            let load = source.load
            let part = Self.part(of: source.name)
            observed.load = { [reloads] keys in
                let start = DispatchTime.now().uptimeNanoseconds
                func record(_ loaded: Bool) {
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                    let event = ReloadEvent(part: part, loaded: loaded, seconds: seconds, at: Self.now())
                    reloads.withLock { $0.append(event) }
                }
                do {
                    let result = try load(keys)
                    record(true)
                    return result
                } catch {
                    record(false)
                    throw error
                }
            }
            return observed
        }
    }

    /// The file's text now.
    package func render() -> [UInt8] {
        let reading = counters.reading()
        linesRead.set(reading.linesRead)
        answers[nil]!.set(reading.valid)
        for (reason, count) in reading.byReason { answers[reason]!.set(count) }
        cacheHits.set(reading.signatureCacheHits)
        cacheMisses.set(reading.signatureCacheMisses)
        applyReloads()
        publishState()
        publishSignaturePaths()
        written.set(Self.now())
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        Exposition.histogram(
            name: "tokenverify_answer_latency_seconds",
            help: "Seconds from reading a line to writing its answer.", bounds: StreamCounters.latencyBounds,
            cumulative: reading.latencyCumulative, sum: reading.latencySeconds, into: &buffer)
        return buffer
    }

    private func applyReloads() {
        let events = reloads.withLock { events in
            defer { events.removeAll() }
            return events
        }
        for event in events {
            let outcome = event.loaded ? "loaded" : "failed"
            let key = "\(event.part)\u{0}\(outcome)"
            reloadTotals[key, default: 0] += 1
            reloadCounter(event.part, outcome).set(reloadTotals[key]!)
            registry.gauge(Self.failingName, Self.failingHelp, [("part", event.part)]).set(to: event.loaded ? 0 : 1)
            registry.gauge(
                Self.loadSecondsName, Self.loadSecondsHelp, [("part", event.part)]
            ).set(event.seconds)
            if event.loaded {
                registry.gauge(Self.loadedAtName, Self.loadedAtHelp, [("part", event.part)]).set(event.at)
            }
        }
    }

    private func publishState() {
        var issued: [String: Double] = [:]
        var expires: [String: Double] = [:]
        for list in verifier.statusLists?.lists ?? [] where list.issuedAt >= issued[list.uri] ?? -.infinity {
            issued[list.uri] = list.issuedAt
            expires[list.uri] = list.expiresAt
        }
        listIssued.set(issued)
        listExpires.set(expires)
        var byEnvironment: [String: Double] = [:]
        for environment in Environment.allCases { byEnvironment[environment.rawValue] = 0 }
        byEnvironment["none"] = 0
        for key in verifier.keys.keys { byEnvironment[key.environment?.rawValue ?? "none", default: 0] += 1 }
        keysByEnvironment.set(byEnvironment)
    }

    static let signaturePathName = "tokenverify_signature_path"
    static let signaturePathHelp =
        "1 for the signature path each algorithm's keys take (tables or standard) and why (reason)."

    /// `tokenverify_signature_path{algorithm, path, reason} 1`, once per run.
    private func publishSignaturePaths() {
        guard !signaturePathsPublished else { return }
        signaturePathsPublished = true
        for path in SignaturePath.inUse(verifier.options) {
            registry.gauge(
                Self.signaturePathName, Self.signaturePathHelp,
                [("algorithm", path.algorithm), ("path", path.path.rawValue), ("reason", path.reason)]
            ).set(to: 1)
        }
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
