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

/// One run of a ``VerifyPipeline``: its workers, the reader's state, and how it ends. The reader
/// (the thread that calls ``readInputs(_:stopRequested:)``) owns every `var` here; the workers touch
/// only the work queue and the sink.
final class PipelineRun {
    private let verifier: Verifier
    private let configuration: VerifyPipeline.Configuration
    private let output: Int32
    private let start = DispatchTime.now().uptimeNanoseconds
    /// Chunks between the reader and the written output, bounded so that memory stays flat
    /// even while one slow chunk holds back the ordered output. The ring and the reorder ring
    /// hold at least that many, so neither can overflow.
    private let inFlight: DispatchSemaphore
    private let work: WorkQueue<LineChunk>
    private let sink: AnswerSink
    private let finished = DispatchGroup()
    private let inlineAnswerer: LineAnswerer
    @exclusivity(unchecked) private var chunker: LineChunker
    @exclusivity(unchecked) private var sequence = 0
    @exclusivity(unchecked) private var inlineSummary = RunSummary()
    /// The reader answers inline only while input does not pile up behind it: once a read
    /// brings more than ``VerifyPipeline/inlineLines`` lines, they go to the workers.
    @exclusivity(unchecked) private var answeredInline = false
    @exclusivity(unchecked) private var readError: String? = nil
    @exclusivity(unchecked) private var interrupted = false
    /// When the last read returned (only while metrics are counted).
    @exclusivity(unchecked) private var readAt: UInt64 = 0
    private static let bufferSize = 1 << 20

    /// Sets up the run and writes the format's stream start to `output`.
    init(verifier: Verifier, configuration: VerifyPipeline.Configuration, output: Int32) {
        self.verifier = verifier
        self.configuration = configuration
        self.output = output
        let maxInFlight = configuration.threads * 16
        inFlight = DispatchSemaphore(value: maxInFlight)
        work = WorkQueue<LineChunk>(capacity: maxInFlight, consumers: configuration.threads)
        sink = AnswerSink(
            output: output, unordered: configuration.unordered, capacity: maxInFlight, inFlight: inFlight,
            progress: configuration.progress, start: start, counters: configuration.counters)
        chunker = LineChunker(maxLineBytes: configuration.maxLineBytes)
        inlineAnswerer = LineAnswerer(
            verifier: verifier, maxLineBytes: configuration.maxLineBytes, format: configuration.format)
        if !OutputChannel.writeAll(configuration.format.streamStart(audit: verifier.options.audit), to: output) {
            sink.closed.store(true, ordering: .relaxed)
        }
    }

    /// Starts the workers: each a work item on its own Dispatch queue, answering chunks until
    /// the work queue closes.
    func startWorkers() {
        for index in 0..<configuration.threads {
            let queue = DispatchQueue(label: "tokenverify.worker.\(index)", qos: .userInitiated)
            let (verifier, configuration, work, sink) = (verifier, configuration, work, sink)
            queue.async(group: finished) {
                // Signals are for the reader, whose blocked read(2) they interrupt.
                ProcessSignals.blockInCurrentThread()
                let answerer = LineAnswerer(
                    verifier: verifier, maxLineBytes: configuration.maxLineBytes, format: configuration.format)
                while let chunk = work.pop() {
                    sink.deliver(VerifyPipeline.answer(chunk, with: answerer))
                }
            }
        }
    }

    /// Reads every input to its end (or until a stop signal, a closed output or a read error),
    /// handing out the lines as they come.
    func readInputs(_ inputs: [Int32], stopRequested: () -> Bool) {
        reading: for input in inputs {
            while true {
                if stopRequested() {
                    interrupted = true
                    break reading
                }
                if sink.closed.load(ordering: .relaxed) { break reading }
                if answeredInline {
                    answeredInline = false
                    VerifyPipeline.pollBriefly(input)
                }
                // A signal that came before the read would block wakes the wait instead of being lost.
                guard ProcessSignals.waitReadable(input) else { continue }
                var readErrno: Int32 = 0
                let count = chunker.read(maxBytes: Self.bufferSize) { room in
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
                if configuration.counters != nil { readAt = DispatchTime.now().uptimeNanoseconds }
                dispatchPending()
            }
            chunker.finish()
            dispatchPending()
        }
    }

    /// Answers every line already read (a last line without its newline included), waits for the
    /// workers, ends the stream, and says how the run went.
    func finish() -> VerifyPipeline.Outcome {
        chunker.finish()
        dispatchPending()
        work.close()
        finished.wait()
        if !sink.closed.load(ordering: .relaxed), !OutputChannel.writeAll(configuration.format.streamEnd, to: output) {
            sink.closed.store(true, ordering: .relaxed)
        }
        var summary = sink.summary
        summary.add(inlineSummary)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return VerifyPipeline.Outcome(
            summary: summary, seconds: seconds, outputClosed: sink.closed.load(ordering: .relaxed),
            readError: readError, interrupted: interrupted, answeredByReader: inlineSummary.answered)
    }

    /// Hands out the lines read so far: answered here when they are few and nothing is in flight,
    /// else in chunks to the workers.
    private func dispatchPending() {
        let lines = chunker.takePending()
        guard !lines.isEmpty else { return }
        configuration.counters?.addLinesRead(lines.count)
        if lines.count <= VerifyPipeline.inlineLines,
            sink.flushed.load(ordering: .acquiring) == sequence, !sink.closed.load(ordering: .relaxed)
        {
            answerInline(lines)
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
            while end < lines.count, end - index < size, bytes < VerifyPipeline.maxChunkBytes {
                bytes += lines.entries[end].range?.count ?? 0
                end += 1
            }
            inFlight.wait()
            // The snapshot is taken here, after any wait, in line order.
            work.push(
                LineChunk(
                    sequence: sequence, block: lines, lines: index..<end, snapshot: verifier.snapshot, readAt: readAt))
            sequence += 1
            index = end
        }
    }

    /// Nothing in flight and everything before written: the reader answers `lines` itself, in order.
    private func answerInline(_ lines: LineBlock) {
        let chunk = LineChunk(
            sequence: -1, block: lines, lines: 0..<lines.count, snapshot: verifier.snapshot, readAt: readAt)
        let answer = VerifyPipeline.answer(chunk, with: inlineAnswerer)
        inlineSummary.add(answer.summary)
        if !OutputChannel.writeAll(answer.bytes, to: output) { sink.closed.store(true, ordering: .relaxed) }
        configuration.counters?.addWritten(answer.summary, nanoseconds: DispatchTime.now().uptimeNanoseconds &- readAt)
        answeredInline = true
    }
}
