import Foundation
import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// `fetch --watch`: fetches every target, then each again when its schedule says, until SIGINT
/// or SIGTERM (polled through ``ProcessSignals``; a download in flight is aborted and its
/// temporary file removed). SIGHUP makes every target due at once.
public struct FetchWatch {
    /// Fetches and writes.
    public let fetcher: Fetcher
    /// Every URL watched.
    public let targets: [FetchTarget]
    /// When each is due again.
    public let schedule: WatchSchedule

    public init(fetcher: Fetcher, targets: [FetchTarget], schedule: WatchSchedule) {
        self.fetcher = fetcher
        self.targets = targets
        self.schedule = schedule
    }

    /// Runs until a stop signal; `report` is called with each URL's outcome, then `scheduled`
    /// with when (seconds since 1970) that URL is fetched next.
    public func run(report: (FetchReport) -> Void, scheduled: (FetchTarget, Double) -> Void = { _, _ in }) {
        var due = Dictionary(uniqueKeysWithValues: targets.map { ($0, 0.0) })
        var failures: [FetchTarget: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        while !ProcessSignals.stopRequested {
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
            var pause = timespec(tv_sec: 0, tv_nsec: Int(min(0.2, max(0.001, wait)) * 1e9))
            nanosleep(&pause, nil)  // a signal ends it early
        }
    }
}

extension FetchReport.Outcome {
    /// Failed or refused: the file was not written, the run exits 1 and `--watch` retries with backoff.
    public var isFailure: Bool {
        switch self {
        case .failed, .refused: true
        case .updated, .unchanged, .stopped: false
        }
    }
}
