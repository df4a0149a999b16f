/// When `fetch --watch` fetches a URL again: key sets every `interval`; a status list after its
/// `ttl` bounded by `minInterval` and `maxInterval`, and before its `exp`; after a failure,
/// sooner, with exponential backoff and jitter, while the last good file stays.
package struct WatchSchedule: Sendable {
    /// Seconds between fetches of a key set.
    package var interval: Double
    /// The shortest wait before a status list is fetched again.
    package var minInterval: Double
    /// The longest wait before a status list is fetched again (also for one without `ttl`).
    package var maxInterval: Double
    /// The first retry after a failure comes after about this many seconds, then twice as long
    /// each time, up to the URL's ordinary delay.
    package var firstRetry: Double = 1

    package init(interval: Double, minInterval: Double, maxInterval: Double) {
        self.interval = interval
        self.minInterval = minInterval
        self.maxInterval = maxInterval
    }

    /// Seconds from `now` until the next fetch after `report`, the `failures`-th failure in a row
    /// when it failed (0 otherwise); `random` gives numbers in 0..<1 for the jitter.
    package func delay(after report: FetchReport, failures: Int, now: Double, random: () -> Double) -> Double {
        let ordinary = ordinaryDelay(report, now: now)
        guard failures > 0 else { return ordinary }
        let backoff = min(ordinary, firstRetry * Double(1 << min(failures - 1, 30)))
        return backoff * (0.5 + 0.5 * random())
    }

    /// The delay after a success (and the bound of the backoff after a failure).
    func ordinaryDelay(_ report: FetchReport, now: Double) -> Double {
        guard report.target.kind == .statusList else { return interval }
        guard let list = report.statusList else { return maxInterval }
        var delay = min(max(list.timeToLive ?? maxInterval, minInterval), maxInterval)
        if let expiresAt = list.expiresAt {
            let left = expiresAt - now
            let margin = min(60, max(1, left * 0.1))
            delay = min(delay, max(minInterval, left - margin))
        }
        return delay
    }
}
