import Atomics
import Dispatch
import LineProtocol
import TokenConcurrency
import TokenVerifier

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The streaming engine behind `tokenverify verify`: one reader (the calling thread) and a few
/// long-lived workers, each a work item on its own Dispatch queue, that write their answers
/// themselves (through ``AnswerSink``). The hand-offs are lock-free: chunks go to the workers
/// through a ``WorkQueue`` (a bounded ring; an idle worker sleeps on a semaphore), and answers
/// come back in order through the sink's ``ReorderRing``.
///
/// The reader takes whatever `read(2)` returns (up to 1 MiB, read straight into the block its
/// lines are handed out in: ``LineChunker``), cuts it into lines and hands them out in chunks:
/// large chunks when input is plentiful, single lines when little is waiting, so an answer never
/// waits for a batch to fill. When one or two lines arrive with nothing in
/// flight, the reader answers them itself, and an interactive producer's round trip wakes no
/// other thread. Output keeps input order (unless `unordered`) and is written in large buffers,
/// flushed whenever nothing more is in flight.
///
/// Snapshots are taken in line order (spec §4): the reader loads the live state's snapshot as it
/// cuts each chunk (one atomic load a chunk), and the chunk carries it to its worker; lines it
/// answers inline are checked against one it loads the same way. So once a line is answered
/// against a new snapshot, no later line is answered against an older one, whichever worker
/// takes which chunk first.
public final class VerifyPipeline: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Verifier threads.
        public var threads: Int
        /// Longest line accepted; a longer one is answered `malformed_request` without being held.
        public var maxLineBytes: Int
        /// Answer lines as soon as they are ready instead of in input order.
        public var unordered: Bool
        /// Most lines in one chunk of work (the format's `chunkLines` unless given).
        public var maxChunkLines: Int
        /// Called about once a second with the running totals (a progress line).
        public var progress: (@Sendable (RunSummary, Double) -> Void)?
        /// JSON lines, or an Arrow IPC stream (a record batch a chunk).
        public var format: AnswerFormat
        /// Where the metrics are counted (spec §6b), per chunk; nil: nothing is counted or timed.
        public var counters: StreamCounters?

        public init(
            threads: Int = activeProcessorCount(), maxLineBytes: Int = 64 * 1024, unordered: Bool = false,
            maxChunkLines: Int? = nil, progress: (@Sendable (RunSummary, Double) -> Void)? = nil,
            format: AnswerFormat = .json
        ) {
            self.threads = max(1, threads)
            self.maxLineBytes = max(1, maxLineBytes)
            self.unordered = unordered
            self.maxChunkLines = max(1, maxChunkLines ?? format.chunkLines)
            self.progress = progress
            self.format = format
        }
    }

    /// How a run ended.
    public struct Outcome: Sendable {
        public var summary: RunSummary
        public var seconds: Double
        /// The output was closed by its reader (the run stopped early, quietly).
        public var outputClosed: Bool
        /// A read error, if input could not be read to its end.
        public var readError: String?
        /// The run was stopped by SIGINT or SIGTERM.
        public var interrupted: Bool
        /// Lines the reader answered itself (light load) rather than handing them to a worker.
        public var answeredByReader: Int
    }

    /// Most input bytes in one chunk of work.
    static let maxChunkBytes = 1 << 20
    /// At most this many lines read at once, with nothing else in flight, are answered by the
    /// reader itself: an interactive or lightly loaded stream then skips two thread hand-offs.
    static let inlineLines = 2
    /// After answering inline, the reader polls its input this long before it blocks in
    /// `read(2)`: an interactive producer's next line is then picked up without the cost of
    /// waking a sleeping thread (tens of microseconds on a virtual machine).
    static let inlineSpinNanoseconds: UInt64 = 150_000

    private let verifier: TokenVerifier
    private let configuration: Configuration

    public init(verifier: TokenVerifier, configuration: Configuration) {
        self.verifier = verifier
        self.configuration = configuration
    }

    /// Reads every input descriptor to its end (in order, line numbers running on across them),
    /// and writes one answer per non-blank line to `output` (in the Arrow format: the schema
    /// first, then a record batch for each chunk, and the end-of-stream marker once every line
    /// is answered).
    public func run(
        inputs: [Int32], output: Int32, stopRequested: @escaping @Sendable () -> Bool = { ProcessSignals.stopRequested }
    ) -> Outcome {
        let start = DispatchTime.now().uptimeNanoseconds
        // Chunks between the reader and the written output, bounded so that memory stays flat
        // even while one slow chunk holds back the ordered output. The ring and the reorder ring
        // hold at least that many, so neither can overflow.
        let maxInFlight = configuration.threads * 16
        let inFlight = DispatchSemaphore(value: maxInFlight)
        let work = WorkQueue<LineChunk>(capacity: maxInFlight, consumers: configuration.threads)
        let sink = AnswerSink(
            output: output, unordered: configuration.unordered, capacity: maxInFlight, inFlight: inFlight,
            progress: configuration.progress, start: start, counters: configuration.counters)
        let finished = DispatchGroup()
        let format = configuration.format
        if !OutputChannel.writeAll(format.streamStart(audit: verifier.options.audit), to: output) {
            sink.closed.store(true, ordering: .relaxed)
        }

        for index in 0..<configuration.threads {
            let queue = DispatchQueue(label: "tokenverify.worker.\(index)", qos: .userInitiated)
            queue.async(group: finished) { [self] in
                // Signals are for the reader, whose blocked read(2) they interrupt.
                ProcessSignals.blockInCurrentThread()
                let answerer = LineAnswerer(
                    verifier: verifier, maxLineBytes: configuration.maxLineBytes, format: format)
                while let chunk = work.pop() {
                    sink.deliver(Self.answer(chunk, with: answerer))
                }
            }
        }

        var chunker = LineChunker(maxLineBytes: configuration.maxLineBytes)
        var sequence = 0
        let inlineAnswerer = LineAnswerer(
            verifier: verifier, maxLineBytes: configuration.maxLineBytes, format: format)
        var inlineSummary = RunSummary()
        // The reader answers inline only while input does not pile up behind it: once a read
        // brings more than ``inlineLines`` lines, they go to the workers.
        var answeredInline = false
        var readError: String? = nil
        var interrupted = false
        let bufferSize = 1 << 20
        let counters = configuration.counters
        var readAt: UInt64 = 0

        func dispatchPending() {
            let lines = chunker.takePending()
            guard !lines.isEmpty else { return }
            counters?.addLinesRead(lines.count)
            if lines.count <= Self.inlineLines,
                sink.flushed.load(ordering: .acquiring) == sequence, !sink.closed.load(ordering: .relaxed)
            {
                // Nothing in flight and everything before written: answer here, in order.
                let chunk = LineChunk(
                    sequence: -1, block: lines, lines: 0..<lines.count, snapshot: verifier.snapshot, readAt: readAt)
                let answer = Self.answer(chunk, with: inlineAnswerer)
                inlineSummary.add(answer.summary)
                if !OutputChannel.writeAll(answer.bytes, to: output) { sink.closed.store(true, ordering: .relaxed) }
                counters?.addWritten(answer.summary, nanoseconds: DispatchTime.now().uptimeNanoseconds &- readAt)
                answeredInline = true
                return
            }
            // Chunks shrink when little input is waiting (one line each for an interactive
            // producer) and are capped in lines and bytes, so memory stays bounded.
            let perThread = (lines.count + configuration.threads - 1) / configuration.threads
            let size = min(configuration.maxChunkLines, max(1, perThread))
            var index = 0
            while index < lines.count {
                var end = index
                var bytes = 0
                while end < lines.count, end - index < size, bytes < Self.maxChunkBytes {
                    bytes += lines.entries[end].range?.count ?? 0
                    end += 1
                }
                inFlight.wait()
                // The snapshot is taken here, after any wait, in line order.
                work.push(
                    LineChunk(
                        sequence: sequence, block: lines, lines: index..<end, snapshot: verifier.snapshot,
                        readAt: readAt))
                sequence += 1
                index = end
            }
        }

        reading: for input in inputs {
            while true {
                if stopRequested() {
                    interrupted = true
                    break reading
                }
                if sink.closed.load(ordering: .relaxed) { break reading }
                if answeredInline {
                    answeredInline = false
                    Self.pollBriefly(input)
                }
                // A signal that came before the read would block wakes the wait instead of being lost.
                guard ProcessSignals.waitReadable(input) else { continue }
                var readErrno: Int32 = 0
                let count = chunker.read(maxBytes: bufferSize) { room in
                    let count = read(input, room.baseAddress, room.count)
                    if count < 0 { readErrno = errno }
                    return count
                }
                if count < 0 {
                    if readErrno == EINTR { continue }
                    readError = String(cString: strerror(readErrno))
                    break reading
                }
                if count == 0 { break }
                if counters != nil { readAt = DispatchTime.now().uptimeNanoseconds }
                dispatchPending()
            }
            chunker.finish()
            dispatchPending()
        }
        // Every line already read is answered, including a last line without its newline.
        chunker.finish()
        dispatchPending()
        work.close()
        finished.wait()
        if !sink.closed.load(ordering: .relaxed), !OutputChannel.writeAll(format.streamEnd, to: output) {
            sink.closed.store(true, ordering: .relaxed)
        }
        var summary = sink.summary
        summary.add(inlineSummary)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Outcome(
            summary: summary, seconds: seconds, outputClosed: sink.closed.load(ordering: .relaxed),
            readError: readError, interrupted: interrupted, answeredByReader: inlineSummary.answered)
    }

    /// Waits, without sleeping, up to ``inlineSpinNanoseconds`` for `descriptor` to be readable.
    private static func pollBriefly(_ descriptor: Int32) {
        let deadline = DispatchTime.now().uptimeNanoseconds + inlineSpinNanoseconds
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        repeat {
            if poll(&entry, 1, 0) != 0 { return }
        } while DispatchTime.now().uptimeNanoseconds < deadline
    }

    private static func answer(_ chunk: LineChunk, with answerer: LineAnswerer) -> AnswerSink.Answer {
        var bytes: [UInt8] = []
        let reasons = answerer.answer(chunk.block, lines: chunk.lines, against: chunk.snapshot, to: &bytes)
        var summary = RunSummary()
        summary.statusUnchecked = answerer.takeStatusUncheckedCount()
        (summary.signatureCacheHits, summary.signatureCacheMisses) = answerer.takeSignatureCacheCounts()
        for reason in reasons {
            summary.answered += 1
            if let reason { summary.byReason[reason, default: 0] += 1 } else { summary.valid += 1 }
        }
        return AnswerSink.Answer(sequence: chunk.sequence, bytes: bytes, summary: summary, readAt: chunk.readAt)
    }
}
