import TokenConcurrency

/// The async API, for servers: the work runs on the verifier's own Dispatch queues and resumes
/// the caller's continuation, so an event loop or a Swift concurrency thread is never blocked.
extension Verifier {
    /// Verifies one request without blocking the caller's executor.
    /// - Throws: `CancellationError` when the calling task is cancelled before the request runs.
    public func verify(_ request: VerificationRequest) async throws(CancellationError) -> VerificationResult {
        if Task.isCancelled { throw CancellationError() }
        let lane = lanes.next()
        return await withCheckedContinuation { continuation in
            lane.queue.async { continuation.resume(returning: lane.worker.verify(request)) }
        }
    }

    /// Verifies `requests` on the verifier's queues and returns the results in the same order,
    /// without blocking the caller's executor.
    /// - Throws: `CancellationError` when the calling task is cancelled (checked between chunks
    ///   of `chunkSize` requests; the work stops soon after).
    public func verify(
        _ requests: [VerificationRequest], threads: Int? = nil,
        chunkSize: Int = 256
    ) async throws(CancellationError) -> [VerificationResult] {
        if Task.isCancelled { throw CancellationError() }
        guard !requests.isEmpty else { return [] }
        let batch = VerificationBatch(requests)
        let cancelled = OnceFlag()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lanes.run(
                    batch, threads: threads ?? lanes.lanes.count, chunkSize: chunkSize,
                    isCancelled: { cancelled.isSet }
                ) { continuation.resume() }
            }
        } onCancel: {
            cancelled.set()
        }
        if cancelled.isSet { throw CancellationError() }
        return batch.resultArray
    }
}
