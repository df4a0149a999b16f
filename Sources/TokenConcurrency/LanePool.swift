import Atomics
import Dispatch

/// Serial Dispatch queues, each owning one worker that only ever runs on it (so a worker needs no
/// lock): long-lived lanes that a batch is spread over, chunk by chunk, and that single calls
/// take in turn. A caller's thread is never needed by the work (the async API does not block it).
package final class LanePool<Worker>: Sendable {
    /// One queue and the worker that only runs on it.
    package final class Lane: @unchecked Sendable {
        package let queue: DispatchQueue
        /// Touched only on ``queue``.
        package let worker: Worker

        init(queue: DispatchQueue, worker: Worker) {
            self.queue = queue
            self.worker = worker
        }
    }

    package let lanes: [Lane]
    private let nextLane = ManagedAtomic<Int>(0)

    /// `count` lanes (at least one) named `label.N`, with the workers `makeWorker` makes.
    package init(count: Int, label: String, makeWorker: (Int) -> Worker) {
        lanes = (0..<max(1, count)).map { index in
            Lane(queue: DispatchQueue(label: "\(label).\(index)", qos: .userInitiated), worker: makeWorker(index))
        }
    }

    /// The next lane, round robin.
    package func next() -> Lane {
        lanes[nextLane.loadThenWrappingIncrement(ordering: .relaxed) % lanes.count]
    }

    /// Runs `body` over `0..<count` in chunks of `chunkSize` on up to `threads` lanes (each lane
    /// takes the next chunk from one atomic counter, so every index is covered exactly once) and
    /// calls `done` on the last lane to finish. `isCancelled` is polled between chunks; a
    /// cancelled run leaves the remaining chunks undone.
    package func run(
        count: Int, threads: Int, chunkSize: Int, isCancelled: @escaping @Sendable () -> Bool,
        body: @escaping @Sendable (Worker, Range<Int>) -> Void, done: @escaping @Sendable () -> Void
    ) {
        let chunkSize = max(1, chunkSize)
        let laneCount = max(1, min(threads, lanes.count, (count + chunkSize - 1) / chunkSize))
        let nextIndex = ManagedAtomic<Int>(0)
        let running = ManagedAtomic<Int>(laneCount)
        let first = nextLane.loadThenWrappingIncrement(by: laneCount, ordering: .relaxed)
        for offset in 0..<laneCount {
            let lane = lanes[(first + offset) % lanes.count]
            lane.queue.async {
                while !isCancelled() {
                    let start = nextIndex.loadThenWrappingIncrement(by: chunkSize, ordering: .relaxed)
                    if start >= count { break }
                    body(lane.worker, start..<min(start + chunkSize, count))
                }
                if running.wrappingDecrementThenLoad(ordering: .acquiringAndReleasing) == 0 { done() }
            }
        }
    }
}

/// A flag set once, from any thread (a cancellation, a stop).
package final class OnceFlag: Sendable {
    private let flag = ManagedAtomic<Bool>(false)

    package init() {}

    /// Whether the flag was set.
    package var isSet: Bool { flag.load(ordering: .relaxed) }

    /// Sets the flag.
    package func set() { flag.store(true, ordering: .relaxed) }
}
