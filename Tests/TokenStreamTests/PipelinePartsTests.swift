import Atomics
import Dispatch
import Testing
@testable import TokenStream
import TokenVerifier
#if canImport(Glibc)
import Glibc
#endif

/// The lock-free pieces of the pipeline on their own: the work ring, the work queue, the reorder
/// ring and the answer sink.
@Suite struct PipelinePartsTests {
    @Test func theRingIsFIFOAndBounded() {
        let ring = WorkRing<Int>(capacity: 5)
        #expect(ring.capacity == 8)
        for value in 0..<8 { #expect(ring.tryPush(value)) }
        #expect(!ring.tryPush(8), "full")
        #expect(ring.tryPop() == 0)
        #expect(ring.tryPush(8))
        var popped: [Int] = []
        while let value = ring.tryPop() { popped.append(value) }
        #expect(popped == Array(1...8))
        #expect(ring.tryPop() == nil, "empty")
    }

    @Test func manyConsumersTakeEveryItemExactlyOnce() {
        // One producer (the reader) and four sleeping consumers; every item reaches exactly one.
        // Consumers return room out of order (like unordered output), so a consumer preempted
        // while it holds a slot makes the producer wait for it (this once crashed the queue).
        let consumers = 4
        let count = 100_000
        let queue = WorkQueue<Int>(capacity: 64, consumers: consumers)
        let room = DispatchSemaphore(value: 64)
        let seen = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        seen.initialize(repeating: 0)
        defer { seen.deallocate() }
        let slots = UncheckedBuffer(seen)
        let group = DispatchGroup()
        for index in 0..<consumers {
            DispatchQueue(label: "consumer.\(index)").async(group: group) {
                while let item = queue.pop() {
                    slots.buffer[item] &+= 1
                    room.signal()
                }
            }
        }
        for item in 0..<count {
            room.wait()
            queue.push(item)
        }
        queue.close()
        group.wait()
        #expect(seen.allSatisfy { $0 == 1 })
    }

    @Test func closingWakesIdleConsumers() {
        let queue = WorkQueue<Int>(capacity: 4, consumers: 3)
        let finished = ManagedAtomic<Int>(0)
        let group = DispatchGroup()
        for index in 0..<3 {
            DispatchQueue(label: "idle.\(index)").async(group: group) {
                #expect(queue.pop() == nil)
                finished.wrappingIncrement(ordering: .relaxed)
            }
        }
        usleep(20_000)
        #expect(finished.load(ordering: .relaxed) == 0, "they sleep while there is nothing to do")
        queue.close()
        #expect(group.wait(timeout: .now() + 5) == .success)
        #expect(finished.load(ordering: .relaxed) == 3)
    }

    @Test func theReorderRingHandsBackBySequence() {
        let ring = ReorderRing(capacity: 4)
        let later = AnswerSink.Answer(sequence: 5, bytes: [5], summary: RunSummary())
        ring.store(later, at: 5)
        #expect(!ring.isReady(4) && ring.isReady(5))
        #expect(ring.take(4) == nil)
        #expect(ring.take(5) === later)
        #expect(ring.take(5) == nil, "taken once")
    }

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
        let sink = AnswerSink(output: pipe[1], unordered: unordered, capacity: 64, inFlight: inFlight, progress: nil, start: 0)
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
        // and finished by four threads with random delays.
        for worker in 0..<4 {
            DispatchQueue(label: "worker.\(worker)").async(group: group) {
                while true {
                    inFlight.wait()
                    let sequence = next.loadThenWrappingIncrement(ordering: .relaxed)
                    if sequence >= chunks { inFlight.signal(); break }
                    if sequence % 7 == worker { usleep(UInt32.random(in: 0...200)) }
                    var summary = RunSummary()
                    summary.answered = 1
                    sink.deliver(AnswerSink.Answer(sequence: sequence, bytes: Array("\(sequence)\n".utf8), summary: summary))
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

/// A buffer written by several threads at disjoint (or atomic-enough for the test) places.
private struct UncheckedBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<UInt8>
    init(_ buffer: UnsafeMutableBufferPointer<UInt8>) { self.buffer = buffer }
}

private final class UncheckedBox<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
