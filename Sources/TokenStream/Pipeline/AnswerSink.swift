import Atomics
import Dispatch
import TokenConcurrency

/// Where workers hand their answered chunks: it restores input order (unless unordered) through a
/// ``ReorderRing`` and writes to the output itself, so an answer reaches the output without
/// waking another thread. Lock-free: the worker that finds the next chunk ready takes the writer
/// role with one compare-and-exchange and writes every chunk now in order; a worker that finds
/// the role taken leaves its chunk for the writer, which looks again before it lets go of the role.
final class AnswerSink: @unchecked Sendable {
    /// One answered chunk.
    final class Answer: AtomicReference, @unchecked Sendable {
        var sequence: Int
        let bytes: [UInt8]
        let summary: RunSummary
        /// When its lines were read (``DispatchTime``'s nanoseconds; 0 when not timed).
        let readAt: UInt64

        init(sequence: Int, bytes: [UInt8], summary: RunSummary, readAt: UInt64 = 0) {
            self.sequence = sequence
            self.bytes = bytes
            self.summary = summary
            self.readAt = readAt
        }
    }

    private let ring: ReorderRing<Answer>
    private let writing = ManagedAtomic<Bool>(false)
    private let completed = ManagedAtomic<Int>(0)
    private let unordered: Bool
    private let inFlight: DispatchSemaphore
    private let progress: (@Sendable (RunSummary, Double) -> Void)?
    private let start: UInt64

    // Owned by the writer role (taken and released with acquire/release ordering).
    private let channel: OutputChannel
    private var next = 0
    private var written = 0
    private var totals = RunSummary()
    private var lastProgress: UInt64
    /// The chunks written since the last flush, for ``counters`` (nil without them).
    private let counters: StreamCounters?
    private var unflushed: [Answer] = []

    /// Chunks written and flushed: equal to the number handed out when nothing is in flight and
    /// the output is up to date.
    let flushed = ManagedAtomic<Int>(0)
    /// The output's reader went away (EPIPE) or it could not be written.
    let closed = ManagedAtomic<Bool>(false)

    /// A sink for at most `capacity` chunks between hand-out and output (`inFlight` counts them).
    init(
        output: Int32, unordered: Bool, capacity: Int, inFlight: DispatchSemaphore,
        progress: (@Sendable (RunSummary, Double) -> Void)?, start: UInt64, counters: StreamCounters? = nil
    ) {
        self.counters = counters
        channel = OutputChannel(descriptor: output)
        ring = ReorderRing(capacity: capacity)
        self.unordered = unordered
        self.inFlight = inFlight
        self.progress = progress
        self.start = start
        lastProgress = start
    }

    /// Takes one answered chunk; writes whatever is now in order, unless another thread is writing.
    func deliver(_ answer: Answer) {
        if unordered { answer.sequence = completed.loadThenWrappingIncrement(ordering: .relaxed) }
        ring.store(answer, at: answer.sequence)
        drain()
    }

    /// Writes the chunks that are in order, while no other thread holds the writer role.
    private func drain() {
        while writing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {
            var wrote = false
            while let answer = ring.take(next) {
                channel.append(answer.bytes)
                totals.add(answer.summary)
                if counters != nil { unflushed.append(answer) }
                next += 1
                written += 1
                wrote = true
                inFlight.signal()
            }
            if wrote { flushAndReport() }
            // `next` belongs to the role: read it before letting go.
            let waitingFor = next
            writing.store(false, ordering: .releasing)
            // A chunk stored after the last take, by a worker that found the role taken, is ours.
            if !ring.isReady(waitingFor) { return }
        }
    }

    private func flushAndReport() {
        channel.flush()
        flushed.store(written, ordering: .releasing)
        if let counters, !unflushed.isEmpty {
            // One clock read for the chunks this flush wrote.
            let now = DispatchTime.now().uptimeNanoseconds
            for answer in unflushed { counters.addWritten(answer.summary, nanoseconds: now &- answer.readAt) }
            unflushed.removeAll(keepingCapacity: true)
        }
        if channel.isClosed { closed.store(true, ordering: .relaxed) }
        guard let progress else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastProgress > 1_000_000_000 else { return }
        lastProgress = now
        progress(totals, Double(now - start) / 1e9)
    }

    /// The counts of every chunk written; read once the workers are done.
    var summary: RunSummary {
        while !writing.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged {}
        defer { writing.store(false, ordering: .releasing) }
        return totals
    }
}
