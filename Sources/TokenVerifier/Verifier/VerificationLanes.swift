import TokenConcurrency

/// The verifier's lanes (a ``LanePool`` of workers, one per core): the library's batch and async
/// calls run on them, each lane's worker only ever on its own queue.
typealias VerificationLanes = LanePool<VerificationWorker>

extension LanePool where Worker == VerificationWorker {
    convenience init(count: Int, core: VerifierCore) {
        self.init(count: count, label: "tokenverify.lane") { _ in VerificationWorker(core: core) }
    }

    /// Verifies the requests of `batch` on up to `threads` lanes, chunk by chunk (each chunk one
    /// run of the worker's batch engine, signatures back to back), each result into its own slot;
    /// calls `done` on the last lane to finish. A cancelled run leaves the remaining slots as they were.
    func run(
        _ batch: VerificationBatch, threads: Int, chunkSize: Int, isCancelled: @escaping @Sendable () -> Bool,
        done: @escaping @Sendable () -> Void
    ) {
        run(
            count: batch.requests.count, threads: threads, chunkSize: chunkSize, isCancelled: isCancelled,
            body: { worker, range in
                worker.verify(batch: RequestChunk(requests: batch.requests[range])) { offset, result in
                    if let result { batch.results[range.lowerBound + offset] = result }
                }
            }, done: done)
    }
}

/// The requests of one batch call and a slot for each result (written by the lanes, each slot by
/// one lane; read once every lane is done).
final class VerificationBatch: @unchecked Sendable {
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
