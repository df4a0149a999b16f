import Atomics
import Foundation

/// Where workers hand their answered chunks: it restores input order (unless unordered) and
/// writes to the output itself, under a short lock, so an answer reaches the output without
/// waking another thread. Whatever a delivery puts in order is written at once: one write per
/// chunk, and chunks are large only when input is plentiful.
final class AnswerSink: @unchecked Sendable {
    struct Answer {
        var sequence: Int
        var bytes: [UInt8]
        var summary: RunSummary
    }

    private let lock = NSLock()
    private let channel: OutputChannel
    private let unordered: Bool
    private let inFlight: DispatchSemaphore
    private var pending: [Int: Answer] = [:]
    private var next = 0
    private var written = 0
    private var hasBuffered = false
    private(set) var summary = RunSummary()
    private let progress: (@Sendable (RunSummary, Double) -> Void)?
    private let start: UInt64
    private var lastProgress: UInt64

    /// Chunks written and flushed: equal to the number handed out when nothing is in flight and
    /// the output is up to date.
    let flushed = ManagedAtomic<Int>(0)
    /// The output's reader went away (EPIPE) or it could not be written.
    let closed = ManagedAtomic<Bool>(false)

    init(output: Int32, unordered: Bool, inFlight: DispatchSemaphore, progress: (@Sendable (RunSummary, Double) -> Void)?, start: UInt64) {
        channel = OutputChannel(descriptor: output)
        self.unordered = unordered
        self.inFlight = inFlight
        self.progress = progress
        self.start = start
        lastProgress = start
    }

    /// Takes one answered chunk; writes what is now in order.
    func deliver(_ answer: Answer) {
        lock.lock()
        defer { lock.unlock() }
        if unordered {
            append(answer)
        } else {
            pending[answer.sequence] = answer
            while let ready = pending.removeValue(forKey: next) {
                append(ready)
                next += 1
            }
        }
        if hasBuffered { flushLocked() }
        if let progress {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now - lastProgress > 1_000_000_000 else { return }
            lastProgress = now
            progress(summary, Double(now - start) / 1e9)
        }
    }

    /// Counts answers that the reader wrote itself (they never pass through the sink).
    func countAnsweredElsewhere(_ answered: RunSummary) {
        lock.lock()
        summary.add(answered)
        lock.unlock()
    }

    /// Writes everything buffered (at the end of a run).
    func flush() {
        lock.lock()
        flushLocked()
        lock.unlock()
    }

    private func append(_ answer: Answer) {
        hasBuffered = true
        channel.append(answer.bytes)
        summary.add(answer.summary)
        written += 1
        inFlight.signal()
    }

    private func flushLocked() {
        channel.flush()
        hasBuffered = false
        flushed.store(written, ordering: .releasing)
        if channel.isClosed { closed.store(true, ordering: .relaxed) }
    }
}
