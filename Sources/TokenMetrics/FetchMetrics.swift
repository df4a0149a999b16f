import Prometheus
import TokenConcurrency
import TokenFetch

/// `fetch --watch --metrics-file` (spec §6b): requests by URL and outcome, refusals by URL and
/// reason, each URL's last success and next fetch, and each status list's `iat` and `exp`, as the
/// Prometheus text format.
/// The watch loop records (``record(_:)``, ``scheduled(_:at:)``); ``render()`` runs on the
/// metrics writer's thread. Both take one ``Lock``, once per request: it guards this object's own
/// fields (a `LockedValue` of an empty tuple, which held no value, raced under ThreadSanitizer).
package final class FetchMetrics: @unchecked Sendable {
    /// What a request came to, as the `outcome` label says it.
    package static let outcomes = ["fetched", "not_modified", "refused", "failed"]
    private let registry = PrometheusCollectorRegistry()
    private let lock = Lock()
    private var requests: [String: Counter] = [:]
    private var refusals: [String: Counter] = [:]
    private var lastSuccess: [String: Gauge] = [:]
    private var next: [String: Gauge] = [:]
    private var failing: [String: Gauge] = [:]
    private let written: Gauge
    private let listIssued: GaugeSet
    private let listExpires: GaugeSet
    private var issued: [String: Double] = [:]
    private var expires: [String: Double] = [:]

    /// Metrics for these targets: every series starts at 0, so that rates and alerts see them
    /// before the first request ends.
    package init(targets: [FetchTarget]) {
        let r = registry
        written = r.gauge("tokenverify_fetch_metrics_written_timestamp_seconds", "When this file was written.")
        listIssued = GaugeSet(
            r, "tokenverify_fetch_status_list_issued_at_timestamp_seconds",
            "The iat of the status list in each URL's file.", label: "url")
        listExpires = GaugeSet(
            r, "tokenverify_fetch_status_list_expires_at_timestamp_seconds",
            "The exp of the status list in each URL's file (none without exp).", label: "url")
        for target in targets {
            let labels = [("url", target.url), ("kind", Self.kind(target))]
            for outcome in Self.outcomes {
                requests["\(target.url)\u{0}\(outcome)"] = r.counter(
                    "tokenverify_fetch_requests_total", "Requests, by URL and outcome.",
                    labels + [("outcome", outcome)])
            }
            for reason in Self.reasons(target.kind) {
                refusals["\(target.url)\u{0}\(reason.rawValue)"] = r.counter(
                    "tokenverify_fetch_refusals_total",
                    "Downloads refused (the file kept), by URL and reason: invalid (verify's checks), rollback, "
                        + "expired, future, other_issuer (status lists), retired_key (key sets).",
                    labels + [("reason", reason.rawValue)])
            }
            lastSuccess[target.url] = r.gauge(
                "tokenverify_fetch_last_success_timestamp_seconds",
                "When the URL was last fetched or found unchanged (0: not yet).", labels)
            next[target.url] = r.gauge(
                "tokenverify_fetch_next_timestamp_seconds", "When the URL is fetched next.", labels)
            failing[target.url] = r.gauge(
                "tokenverify_fetch_failing",
                "1 when the URL's last request failed or was refused (its file stays as it was), else 0.", labels)
        }
    }

    static func kind(_ target: FetchTarget) -> String { target.kind == .keys ? "keys" : "status_list" }

    /// The refusal reasons a URL of `kind` can give (the `reason` label's values).
    static func reasons(_ kind: FetchTarget.Kind) -> [RefusalReason] {
        kind == .keys ? [.invalid, .retiredKey] : [.invalid, .rollback, .expired, .future, .otherIssuer]
    }

    /// The `outcome` label of a report (nil: stopped by a signal, not counted).
    package static func outcome(of report: FetchReport) -> String? {
        switch report.outcome {
        case .updated: return "fetched"
        case .unchanged: return "not_modified"
        case .failed: return report.refused ? "refused" : "failed"
        case .refused: return "refused"
        case .stopped: return nil
        }
    }

    /// One request's outcome, at `now` (seconds since 1970).
    package func record(_ report: FetchReport, now: Double) {
        guard let outcome = Self.outcome(of: report) else { return }
        let url = report.target.url
        lock.withLock {
            requests["\(url)\u{0}\(outcome)"]?.increment()
            if let reason = report.refusalReason { refusals["\(url)\u{0}\(reason.rawValue)"]?.increment() }
            let succeeded = outcome == "fetched" || outcome == "not_modified"
            failing[url]?.set(to: succeeded ? 0 : 1)
            if succeeded { lastSuccess[url]?.set(now) }
            if let list = report.statusList {
                issued[url] = list.issuedAt
                expires[url] = list.expiresAt
            }
        }
    }

    /// When `target` is fetched next.
    package func scheduled(_ target: FetchTarget, at time: Double) {
        lock.withLock { next[target.url]?.set(time) }
    }

    /// The file's text now.
    package func render() -> [UInt8] {
        lock.withLock {
            listIssued.set(issued)
            listExpires.set(expires)
            written.set(VerifyMetrics.now())
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return buffer
        }
    }
}
