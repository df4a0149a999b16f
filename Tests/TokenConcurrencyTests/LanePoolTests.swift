import Atomics
import Dispatch
import Testing
import TokenConcurrency

/// The lane pool: every index of a run once, on the lanes' own workers, and cancellation.
@Suite struct LanePoolTests {
    /// A lane's worker: counts what it did, touched only on its lane's queue.
    final class Counter {
        let lane: Int
        var chunks = 0
        init(lane: Int) { self.lane = lane }
    }

    @Test(arguments: [1, 3, 64])
    func everyIndexIsCoveredOnce(chunkSize: Int) {
        let pool = LanePool<Counter>(count: 4, label: "test.lane") { Counter(lane: $0) }
        let count = 1_000
        let seen = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: count)
        seen.initialize(repeating: 0)
        defer { seen.deallocate() }
        let slots = UncheckedBuffer(seen)
        let done = DispatchSemaphore(value: 0)
        pool.run(
            count: count, threads: 4, chunkSize: chunkSize, isCancelled: { false },
            body: { worker, range in
                worker.chunks += 1
                for index in range { slots.buffer[index] &+= 1 }
            }, done: { done.signal() })
        done.wait()
        #expect(seen.allSatisfy { $0 == 1 })
        let chunks = pool.lanes.map { lane in lane.queue.sync { lane.worker.chunks } }.reduce(0, +)
        #expect(chunks == (count + chunkSize - 1) / chunkSize)
        #expect(pool.lanes.enumerated().allSatisfy { $0.element.worker.lane == $0.offset })
    }

    @Test func aCancelledRunStopsBetweenChunks() {
        let pool = LanePool<Counter>(count: 2, label: "test.cancel") { Counter(lane: $0) }
        let flag = OnceFlag()
        let covered = ManagedAtomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        pool.run(
            count: 10_000, threads: 2, chunkSize: 10, isCancelled: { flag.isSet },
            body: { _, range in
                if covered.wrappingIncrementThenLoad(by: range.count, ordering: .relaxed) >= 100 { flag.set() }
            }, done: { done.signal() })
        done.wait()
        #expect(flag.isSet)
        #expect(covered.load(ordering: .relaxed) < 10_000)
    }

    @Test func singleCallsTakeTheLanesInTurn() {
        let pool = LanePool<Counter>(count: 3, label: "test.turn") { Counter(lane: $0) }
        let lanes = (0..<6).map { _ in pool.next().worker.lane }
        #expect(Set(lanes) == [0, 1, 2])
    }
}
