import Atomics
import Dispatch

/// Serial Dispatch queues, each owning one worker: the library's batch and async calls run on
/// them. A worker is only ever used on its own queue, so it needs no lock, and a caller's thread
/// (an event loop, a Swift concurrency executor) is never blocked by the async API.
final class VerificationLanes: Sendable {
    /// One queue and the worker that only runs on it.
    final class Lane: @unchecked Sendable {
        let queue: DispatchQueue
        /// Touched only on ``queue``.
        let worker: VerificationWorker

        init(index: Int, core: VerifierCore) {
            queue = DispatchQueue(label: "tokenverify.lane.\(index)", qos: .userInitiated)
            worker = VerificationWorker(core: core)
        }
    }

    let lanes: [Lane]
    private let nextLane = ManagedAtomic<Int>(0)

    init(count: Int, core: VerifierCore) {
        lanes = (0..<max(1, count)).map { Lane(index: $0, core: core) }
    }

    /// The next lane, round robin.
    func next() -> Lane {
        lanes[nextLane.loadThenWrappingIncrement(ordering: .relaxed) % lanes.count]
    }

    /// Verifies the requests of `batch` on up to `threads` lanes, chunk by chunk (taken from one
    /// atomic counter; each chunk one run of the worker's batch engine, signatures back to back),
    /// each result into its own slot; calls `done` on the last lane to finish.
    /// `isCancelled` is polled between chunks; a cancelled run leaves the remaining slots as they were.
    func run(_ batch: Batch, threads: Int, chunkSize: Int, isCancelled: @escaping @Sendable () -> Bool,
             done: @escaping @Sendable () -> Void) {
        let count = batch.requests.count
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
                    let chunk = RequestChunk(requests: batch.requests[start..<min(start + chunkSize, count)])
                    lane.worker.verify(batch: chunk) { offset, result in
                        if let result { batch.results[start + offset] = result }
                    }
                }
                if running.wrappingDecrementThenLoad(ordering: .acquiringAndReleasing) == 0 { done() }
            }
        }
    }

    /// The requests of one batch call and a slot for each result (written by the lanes, each
    /// slot by one lane; read once every lane is done).
    final class Batch: @unchecked Sendable {
        let requests: [VerificationRequest]
        let results: UnsafeMutableBufferPointer<VerificationResult>

        init(_ requests: [VerificationRequest]) {
            self.requests = requests
            results = .allocate(capacity: requests.count)
            results.initialize(repeating: VerificationResult(failures: []))
        }

        deinit {
            results.deinitialize()
            results.deallocate()
        }

        /// The results, in request order.
        var resultArray: [VerificationResult] { Array(results) }
    }
}
