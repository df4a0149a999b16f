import Atomics
import CRawCrypto
import Foundation
import Histogram
import TokenStream
import TokenVerifier

/// Runs the streaming engine of `tokenverify verify` in process: over a file for throughput,
/// and over pipes, one request at a time or at a set rate, for latency.
enum StreamRunner {
    struct Throughput {
        var lines: Int
        var seconds: Double
        var rate: Double { Double(lines) / seconds }
    }

    /// Streams `input` through a pipeline into `output`; the time is the pipeline's own.
    static func throughput(verifier: Verifier, input: String, output: String, threads: Int) -> Throughput {
        let inputDescriptor = open(input, O_RDONLY)
        let outputDescriptor = open(output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(inputDescriptor >= 0 && outputDescriptor >= 0, "cannot open \(input) or \(output)")
        defer {
            close(inputDescriptor)
            close(outputDescriptor)
        }
        let pipeline = VerifyPipeline(verifier: verifier, configuration: .init(threads: threads))
        let outcome = pipeline.run(inputs: [inputDescriptor], output: outputDescriptor, stopRequested: { false })
        return Throughput(lines: outcome.summary.answered, seconds: outcome.seconds)
    }

    /// Latency through pipes: with `rate` nil, one request is written and its answer awaited
    /// before the next (closed loop); with a rate, requests are written on a fixed schedule
    /// whatever the answers do (open loop). Latency runs from the moment a request is written
    /// to the moment its answer is read; how late the sender's own timer woke it is reported
    /// apart (`senderLateness`), since on a small machine the load generator competes with the
    /// verifier for the same cores. Values are nanoseconds.
    static func latency(
        verifier: Verifier, lines: [[UInt8]], rate: Double?, threads: Int
    ) -> (latency: Histogram<UInt64>, senderLateness: Histogram<UInt64>?) {
        let inline = UncheckedCount()
        let result = latency(lines: lines, rate: rate) { requestRead, answerWrite in
            let pipeline = VerifyPipeline(verifier: verifier, configuration: .init(threads: threads))
            inline.count =
                pipeline.run(inputs: [requestRead], output: answerWrite, stopRequested: { false }).answeredByReader
        }
        if ProcessInfo.processInfo.environment["TOKENBENCH_DEBUG"] != nil {
            log("  answered by the reader: \(inline.count) of \(lines.count)")
        }
        return result
    }

    /// The same measurement against the ideal server for this machine: one thread that reads a
    /// line, does one raw signature verify (no parsing, no checks) and writes a fixed answer.
    /// Its latency is the floor that the scheduler and the pipes alone impose.
    static func floorLatency(
        lines: [[UInt8]], rate: Double?, algorithm: RawRate.Algorithm, messageLength: Int
    ) -> Histogram<UInt64> {
        latency(lines: lines, rate: rate) { requestRead, answerWrite in
            let message = [UInt8](repeating: 0x61, count: messageLength)
            let bench = message.withUnsafeBufferPointer {
                raw_bench_new(algorithm.code, $0.baseAddress, $0.count, 256)
            }
            defer { raw_bench_free(bench) }
            var reader = AnswerReader(descriptor: requestRead)
            let answer: [UInt8] = Array("{\"valid\":true}\n".utf8)
            while reader.nextLine() {
                precondition(raw_bench_run(bench, 1) == 1)
                writeAll(answerWrite, answer)
            }
        }.latency
    }

    /// Runs `serve(requestRead, answerWrite)` on its own thread and measures it.
    private static func latency(
        lines: [[UInt8]], rate: Double?,
        serve: @escaping @Sendable (Int32, Int32) -> Void
    ) -> (latency: Histogram<UInt64>, senderLateness: Histogram<UInt64>?) {
        var senderLateness: Histogram<UInt64>? = nil
        var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        var requestPipe: [Int32] = [0, 0]
        var answerPipe: [Int32] = [0, 0]
        precondition(pipe(&requestPipe) == 0 && pipe(&answerPipe) == 0, "cannot make pipes")
        let finished = DispatchSemaphore(value: 0)
        let (requestRead, requestWrite, answerRead, answerWrite) = (
            requestPipe[0], requestPipe[1], answerPipe[0], answerPipe[1]
        )
        Thread {
            serve(requestRead, answerWrite)
            close(answerWrite)
            finished.signal()
        }.start()

        var reader = AnswerReader(descriptor: answerRead)
        let framed = lines.map { $0 + [0x0A] }
        if let rate {
            // Send times, written by the sender before each write and read by the receiver
            // after the answer arrives (the pipe orders the two).
            let sent = UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>.allocate(capacity: framed.count)
            sent.initialize(repeating: .init(0), count: framed.count)
            defer { sent.deallocate() }
            let slots = UncheckedSendTimes(sent)
            let interval = 1e9 / rate
            let start = monotonicNanoseconds() + 1_000_000
            let sender = Thread {
                for (index, line) in framed.enumerated() {
                    sleep(until: start + UInt64(Double(index) * interval))
                    UnsafeAtomic<UInt64>(at: slots.pointer + index).store(monotonicNanoseconds(), ordering: .releasing)
                    writeAll(requestWrite, line)
                }
                close(requestWrite)
            }
            sender.start()
            var answered = 0
            var lateness = Histogram<UInt64>(
                highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .two)
            while reader.nextLine() {
                let now = monotonicNanoseconds()
                let sentAt = UnsafeAtomic<UInt64>(at: slots.pointer + answered).load(ordering: .acquiring)
                let scheduled = start + UInt64(Double(answered) * interval)
                _ = histogram.record(now > sentAt ? now - sentAt : 0)
                _ = lateness.record(sentAt > scheduled ? sentAt - scheduled : 0)
                answered += 1
            }
            precondition(answered == lines.count, "open loop: \(answered) answers for \(lines.count) requests")
            senderLateness = lateness
        } else {
            for line in framed {
                let sent = monotonicNanoseconds()
                writeAll(requestWrite, line)
                precondition(reader.nextLine(), "closed loop: the answer stream ended early")
                _ = histogram.record(monotonicNanoseconds() - sent)
            }
            close(requestWrite)
            while reader.nextLine() {}
        }
        finished.wait()
        close(requestRead)
        close(answerRead)
        return (histogram, senderLateness)
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    fatalError("write to the pipeline failed")
                }
                offset += written
            }
        }
    }

    private static func sleep(until deadline: UInt64) {
        var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
    }
}

/// Reads answer lines from a descriptor, one at a time.
struct AnswerReader {
    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    private var start = 0
    private var end = 0

    init(descriptor: Int32) { self.descriptor = descriptor }

    /// Consumes one line; false at end of input.
    mutating func nextLine() -> Bool {
        while true {
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                start = newline + 1
                return true
            }
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                end -= start
                start = 0
            }
            if end == buffer.count { buffer += [UInt8](repeating: 0, count: buffer.count) }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + end, $0.count - end) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return false }
            end += count
        }
    }
}

/// CLOCK_MONOTONIC in nanoseconds: the clock `clock_nanosleep` sleeps on, so schedules and
/// measurements use one clock.
func monotonicNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

struct UncheckedSendTimes: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    init(_ pointer: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>) { self.pointer = pointer }
}

/// A count written by one thread and read by another after they synchronise.
final class UncheckedCount: @unchecked Sendable { var count = 0 }
