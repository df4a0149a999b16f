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

    private let verifier: Verifier
    private let configuration: Configuration

    public init(verifier: Verifier, configuration: Configuration) {
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
        let run = PipelineRun(verifier: verifier, configuration: configuration, output: output)
        run.startWorkers()
        run.readInputs(inputs, stopRequested: stopRequested)
        return run.finish()
    }

    /// Waits, without sleeping, up to ``inlineSpinNanoseconds`` for `descriptor` to be readable.
    static func pollBriefly(_ descriptor: Int32) {
        let deadline = DispatchTime.now().uptimeNanoseconds + inlineSpinNanoseconds
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        repeat {
            if poll(&entry, 1, 0) != 0 { return }
        } while DispatchTime.now().uptimeNanoseconds < deadline
    }

    static func answer(_ chunk: LineChunk, with answerer: LineAnswerer) -> AnswerSink.Answer {
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
