import Atomics
import Dispatch
import TestSupport
import Testing
import TokenVerifier

@testable import TokenStream

#if canImport(Glibc)
import Glibc
#endif

/// The answer sink on its own (the rings and the work queue it builds on are tested in
/// TokenConcurrencyTests).
@Suite struct PipelinePartsTests {
    /// Chunks delivered from several threads in a shuffled order come out in sequence order,
    /// each exactly once, and the counts add up.
    @Test(arguments: [false, true])
    func theSinkWritesEveryChunkOnceInOrder(unordered: Bool) throws {
        var pipe: [Int32] = [0, 0]
        #expect(Glibc.pipe(&pipe) == 0)
        let readEnd = pipe[0]
        defer { close(readEnd) }
        let chunks = 2_000
        let inFlight = DispatchSemaphore(value: 64)
        let sink = AnswerSink(
            output: pipe[1], unordered: unordered, capacity: 64, inFlight: inFlight, progress: nil, start: 0)
        let reader = DispatchQueue(label: "drain")
        let collected = UncheckedBox<[UInt8]>([])
        let drained = DispatchSemaphore(value: 0)
        reader.async {
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                collected.value += buffer[0..<count]
            }
            drained.signal()
        }
        let next = ManagedAtomic<Int>(0)
        let group = DispatchGroup()
        // Sequences are handed out in order (as the reader does), at most 64 ahead of the output,
        // and finished by four threads with random amounts of work.
        for worker in 0..<4 {
            DispatchQueue(label: "worker.\(worker)").async(group: group) {
                while true {
                    inFlight.wait()
                    let sequence = next.loadThenWrappingIncrement(ordering: .relaxed)
                    if sequence >= chunks {
                        inFlight.signal()
                        break
                    }
                    if sequence % 7 == worker { simulatedWork(units: Int.random(in: 0...20_000)) }
                    var summary = RunSummary()
                    summary.answered = 1
                    sink.deliver(
                        AnswerSink.Answer(sequence: sequence, bytes: Array("\(sequence)\n".utf8), summary: summary))
                }
            }
        }
        group.wait()
        #expect(sink.summary.answered == chunks)
        #expect(sink.flushed.load(ordering: .relaxed) == chunks)
        close(pipe[1])
        drained.wait()
        let numbers = String(decoding: collected.value, as: UTF8.self).split(separator: "\n").map { Int($0)! }
        #expect(numbers.count == chunks)
        #expect(Set(numbers).count == chunks)
        if !unordered { #expect(numbers == Array(0..<chunks)) }
    }
}

private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
