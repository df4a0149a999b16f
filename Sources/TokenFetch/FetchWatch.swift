import Foundation
import TokenConcurrency

/// `fetch --watch`: fetches every target, then each again when its schedule says, until stopped
/// (SIGINT or SIGTERM, as the ``ServiceGroup`` that runs it in the foreground passes on; a
/// download in flight is aborted through ``ProcessSignals`` and its temporary file removed).
/// SIGHUP makes every target due at once.
package struct FetchWatch: Service {
    /// Fetches and writes.
    package let fetcher: Fetcher
    /// Every URL watched.
    package let targets: [FetchTarget]
    /// When each is due again.
    package let schedule: WatchSchedule
    /// Called with each URL's outcome.
    package let report: (FetchReport) -> Void
    /// Called after ``report`` with when (seconds since 1970) that URL is fetched next.
    package let scheduled: (FetchTarget, Double) -> Void

    package init(
        fetcher: Fetcher, targets: [FetchTarget], schedule: WatchSchedule, report: @escaping (FetchReport) -> Void,
        scheduled: @escaping (FetchTarget, Double) -> Void = { _, _ in }
    ) {
        self.fetcher = fetcher
        self.targets = targets
        self.schedule = schedule
        self.report = report
        self.scheduled = scheduled
    }

    /// Fetches until `stop`.
    package func run(until stop: StopSignal) {
        var due = Dictionary(uniqueKeysWithValues: targets.map { ($0, 0.0) })
        var failures: [FetchTarget: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        while !stop.isTriggered {
            if ProcessSignals.takeReloadRequest() {
                for target in targets { due[target] = 0 }
            }
            let now = Date().timeIntervalSince1970
            let ready = targets.filter { due[$0]! <= now }
            if !ready.isEmpty {
                for result in fetcher.fetch(ready) {
                    if result.outcome == .stopped { return }
                    report(result)
                    if result.outcome.isFailure {
                        failures[result.target, default: 0] += 1
                    } else {
                        failures[result.target] = nil
                    }
                    let after = Date().timeIntervalSince1970
                    due[result.target] =
                        after
                        + schedule.delay(
                            after: result, failures: failures[result.target] ?? 0, now: after,
                            random: { Double.random(in: 0..<1, using: &generator) })
                    scheduled(result.target, due[result.target]!)
                }
                continue
            }
            let wait = (due.values.min() ?? now + 1) - now
            stop.wait(seconds: min(0.2, max(0.001, wait)))  // a signal ends it early
        }
    }
}

extension FetchReport.Outcome {
    /// Failed or refused: the file was not written, the run exits 1 and `--watch` retries with backoff.
    package var isFailure: Bool {
        switch self {
        case .failed, .refused: true
        case .updated, .unchanged, .stopped: false
        }
    }
}
