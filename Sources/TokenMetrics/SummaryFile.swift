import Foundation
import LiveState
import TokenStream
import TokenVerifier

/// `verify --summary-file` (spec §6b): the end-of-run summary as one JSON object, for batch jobs
/// and CI: counts by reason, lines, seconds, CPU seconds, and the state in force (its files, the
/// key count, the status lists with `iat` and `exp`). Written whole (``AtomicFile``).
package enum SummaryFile {
    /// The run's figures and how it ended.
    package struct Run {
        package var summary: RunSummary
        package var linesRead: Int
        package var seconds: Double
        package var interrupted: Bool
        package var outputClosed: Bool

        package init(summary: RunSummary, linesRead: Int, seconds: Double, interrupted: Bool, outputClosed: Bool) {
            self.summary = summary
            self.linesRead = linesRead
            self.seconds = seconds
            self.interrupted = interrupted
            self.outputClosed = outputClosed
        }
    }

    /// The JSON object's bytes (members sorted by name).
    package static func json(_ run: Run, files: LiveStateFiles, verifier: Verifier) -> [UInt8] {
        var byReason: [String: Int] = [:]
        for (reason, count) in run.summary.byReason { byReason[reason.rawValue] = count }
        var state: [String: Any] = [
            "key_files": files.keys, "keys": verifier.keys.keys.count,
            "revocation_files": files.revocations, "device_steps_files": files.deviceSteps,
        ]
        if let policy = files.stepPolicy { state["step_policy_file"] = policy }
        if let lists = files.statusLists {
            state["status_list_files"] = lists
            state["status_lists"] = (verifier.statusLists?.lists ?? []).map { list -> [String: Any] in
                var entry: [String: Any] = ["uri": list.uri, "iat": list.issuedAt, "source": list.source]
                if let exp = list.expiresAt { entry["exp"] = exp }
                return entry
            }
        }
        let object: [String: Any] = [
            "answered": run.summary.answered, "valid": run.summary.valid, "invalid": run.summary.invalid,
            "by_reason": byReason, "lines": run.linesRead, "seconds": run.seconds, "cpu_seconds": cpuSeconds(),
            "status_unchecked": run.summary.statusUnchecked, "interrupted": run.interrupted,
            "output_closed": run.outputClosed, "state": state,
        ]
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// User and system CPU seconds of this process so far.
    package static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
