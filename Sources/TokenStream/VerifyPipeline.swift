import Atomics
import Foundation
import TokenVerifier

/// The streaming engine behind `tokenverify verify`: one reader (the calling thread), a few
/// long-lived verifier threads, and one writer thread.
///
/// The reader takes whatever `read(2)` returns (up to 1 MiB), cuts it into lines and hands them
/// out in chunks: large chunks when input is plentiful, single lines when an interactive producer
/// writes one line and waits, so an answer never waits for a batch to fill. The writer restores
/// input order (unless `unordered`) and writes in large buffers, flushing whenever it has nothing
/// more to do.
public final class VerifyPipeline: @unchecked Sendable {
    public struct Configuration: Sendable {
        /// Verifier threads.
        public var threads: Int
        /// Longest line accepted; a longer one is answered `malformed_request` without being held.
        public var maxLineBytes: Int
        /// Answer lines as soon as they are ready instead of in input order.
        public var unordered: Bool
        /// Report every failure (`reasons`, `details`).
        public var audit: Bool
        /// Most lines in one chunk of work.
        public var maxChunkLines: Int
        /// Called about once a second by the writer with the running totals (a progress line).
        public var progress: (@Sendable (RunSummary, Double) -> Void)?

        public init(threads: Int = activeProcessorCount(), maxLineBytes: Int = 64 * 1024, unordered: Bool = false,
                    audit: Bool = false, maxChunkLines: Int = 256, progress: (@Sendable (RunSummary, Double) -> Void)? = nil) {
            self.threads = max(1, threads)
            self.maxLineBytes = max(1, maxLineBytes)
            self.unordered = unordered
            self.audit = audit
            self.maxChunkLines = max(1, maxChunkLines)
            self.progress = progress
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
    }

    /// Most input bytes in one chunk of work.
    static let maxChunkBytes = 1 << 20

    private let verifier: TokenVerifier
    private let configuration: Configuration
    private let outputClosed = ManagedAtomic<Bool>(false)

    public init(verifier: TokenVerifier, configuration: Configuration) {
        self.verifier = verifier
        self.configuration = configuration
    }

    private struct Answer {
        var sequence: Int
        var bytes: [UInt8]
        var summary: RunSummary
    }

    /// Reads every input descriptor to its end (in order, line numbers running on across them),
    /// and writes one answer per non-blank line to `output`.
    public func run(inputs: [Int32], output: Int32, stopRequested: @escaping @Sendable () -> Bool = { ProcessSignals.stopRequested }) -> Outcome {
        let start = DispatchTime.now().uptimeNanoseconds
        let work = BlockingQueue<LineChunk>(capacity: configuration.threads * 4)
        let answers = BlockingQueue<Answer>(capacity: configuration.threads * 8)
        let channel = OutputChannel(descriptor: output)
        // Chunks between the reader and the written output, bounded so that memory stays flat
        // even while one slow chunk holds back the ordered output.
        let inFlight = DispatchSemaphore(value: configuration.threads * 16)
        let finished = DispatchGroup()

        for _ in 0..<configuration.threads {
            finished.enter()
            let thread = Thread { [self] in
                let worker = verifier.makeWorker()
                while let chunk = work.pop() {
                    answers.push(answer(for: chunk, worker: worker))
                }
                finished.leave()
            }
            thread.stackSize = 1 << 22
            ProcessSignals.startWithSignalsBlocked(thread)
        }

        let writerDone = DispatchSemaphore(value: 0)
        let summaryBox = UncheckedBox(RunSummary())
        let writer = Thread { [self] in
            var pending: [Int: Answer] = [:]
            var next = 0
            var summary = RunSummary()
            var lastProgress = DispatchTime.now().uptimeNanoseconds
            while let answer = answers.pop() {
                if configuration.unordered {
                    channel.append(answer.bytes)
                    summary.add(answer.summary)
                    inFlight.signal()
                } else {
                    pending[answer.sequence] = answer
                    while let ready = pending.removeValue(forKey: next) {
                        channel.append(ready.bytes)
                        summary.add(ready.summary)
                        next += 1
                        inFlight.signal()
                    }
                }
                if answers.isEmpty { channel.flush() }
                if channel.isClosed { outputClosed.store(true, ordering: .relaxed) }
                if let progress = configuration.progress {
                    let now = DispatchTime.now().uptimeNanoseconds
                    if now - lastProgress > 1_000_000_000 {
                        lastProgress = now
                        progress(summary, Double(now - start) / 1e9)
                    }
                }
            }
            channel.flush()
            summaryBox.value = summary
            writerDone.signal()
        }
        ProcessSignals.startWithSignalsBlocked(writer)

        var chunker = LineChunker(maxLineBytes: configuration.maxLineBytes)
        var sequence = 0
        var readError: String? = nil
        var interrupted = false
        let bufferSize = 1 << 20
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bufferSize)
        defer { buffer.deallocate() }

        func dispatchPending() {
            let lines = chunker.takePending()
            guard !lines.isEmpty else { return }
            // Chunks shrink when little input is waiting (one line each for an interactive
            // producer) and are capped in lines and bytes, so memory stays bounded.
            let perThread = (lines.count + configuration.threads - 1) / configuration.threads
            let size = min(configuration.maxChunkLines, max(1, perThread))
            var index = 0
            while index < lines.count {
                var end = index
                var bytes = 0
                while end < lines.count, end - index < size, bytes < Self.maxChunkBytes {
                    bytes += lines[end].bytes?.count ?? 0
                    end += 1
                }
                inFlight.wait()
                work.push(LineChunk(sequence: sequence, lines: Array(lines[index..<end])))
                sequence += 1
                index = end
            }
        }

        reading: for input in inputs {
            while true {
                if stopRequested() { interrupted = true; break reading }
                if outputClosed.load(ordering: .relaxed) { break reading }
                let count = read(input, buffer.baseAddress, bufferSize)
                if count < 0 {
                    if errno == EINTR { continue }
                    readError = String(cString: strerror(errno))
                    break reading
                }
                if count == 0 { break }
                chunker.feed(UnsafeBufferPointer(rebasing: buffer[0..<count]))
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
        answers.close()
        writerDone.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Outcome(summary: summaryBox.value, seconds: seconds, outputClosed: outputClosed.load(ordering: .relaxed),
                       readError: readError, interrupted: interrupted)
    }

    private func answer(for chunk: LineChunk, worker: VerificationWorker) -> Answer {
        var writer = JSONWriter(reservingCapacity: chunk.lines.count * 200)
        var summary = RunSummary()
        let audit = configuration.audit
        for (number, bytes) in chunk.lines {
            let reason: Reason?
            if let bytes {
                reason = bytes.withUnsafeBufferPointer { worker.answer(line: $0, number: number, audit: audit, to: &writer) }
            } else {
                let result = VerificationResult(failures: [VerificationFailure(
                    .malformedRequest, "the line is longer than the limit of \(configuration.maxLineBytes) bytes")])
                ResponseLine.write(line: number, id: nil, result: result, audit: audit, to: &writer)
                reason = result.reason
            }
            summary.answered += 1
            if let reason { summary.byReason[reason, default: 0] += 1 } else { summary.valid += 1 }
        }
        return Answer(sequence: chunk.sequence, bytes: writer.bytes, summary: summary)
    }
}

/// A mutable box handed between threads that synchronise by other means.
final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
