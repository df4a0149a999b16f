import Dispatch

/// Makes the elements `0..<count` on several threads of its own and hands them over in order on
/// the caller's thread, with at most `window` elements made but not yet handed over, so memory
/// stays flat however many there are (`gen`'s chunks of a token set).
///
/// The workers are threads of their own (``BackgroundThread``), not Dispatch work items: they
/// wait on semaphores, and Dispatch on Linux grows its pool slowly. The one lock (a ``LockedValue``) guards the claim
/// counter and the finished elements, a few times per element, never per token.
package enum OrderedProduction {
    /// Calls `consume` with the elements in order, each made by a producer from `makeProducer`
    /// (called once on each worker thread, so a producer may keep state that is not shared).
    /// `consume` returns false to stop early (then no further element is made); an error it
    /// throws stops the run and is rethrown. Returns whether every element was consumed. Every
    /// worker has ended when it returns.
    package static func run<Element: Sendable, Failure: Error>(
        count: Int, threads: Int, window: Int,
        makeProducer: @escaping @Sendable () -> (Int) -> Element,
        consume: (Element) throws(Failure) -> Bool
    ) throws(Failure) -> Bool {
        guard count > 0 else { return true }
        let run = Run<Element>(count: count, window: max(1, window))
        let workers = max(1, min(threads, count))
        let threads = (0..<workers).map { _ in
            BackgroundThread(stackSize: 1 << 20) { run.work(makeProducer()) }
        }
        defer { run.stop(joining: threads) }
        for index in 0..<count {
            if try !consume(run.take(index)) { return false }
        }
        return true
    }

    /// One run's shared state.
    private final class Run<Element: Sendable>: Sendable {
        struct Claims {
            var next = 0
            var stopped = false
            var finished: [Int: Element] = [:]
        }

        let count: Int
        let window: Int
        let claims = LockedValue(Claims())
        /// Free places in the window: a worker takes one before it claims an element.
        let freePlaces = DispatchSemaphore(value: 0)
        /// One per place in the window: signalled when that place's element is finished.
        let finishedSignals: [DispatchSemaphore]

        init(count: Int, window: Int) {
            self.count = count
            self.window = window
            finishedSignals = (0..<window).map { _ in DispatchSemaphore(value: 0) }
            // Created at 0 and raised: libdispatch refuses to free a semaphore below its initial value.
            for _ in 0..<window { freePlaces.signal() }
        }

        func work(_ produce: (Int) -> Element) {
            while true {
                freePlaces.wait()
                let index: Int? = claims.withLock { claims in
                    guard !claims.stopped, claims.next < count else { return nil }
                    claims.next += 1
                    return claims.next - 1
                }
                guard let index else {
                    freePlaces.signal()  // passed on: the next waiting worker sees the end too
                    break
                }
                let element = produce(index)
                claims.withLock { $0.finished[index] = element }
                finishedSignals[index % window].signal()
            }
        }

        func take(_ index: Int) -> Element {
            finishedSignals[index % window].wait()
            let element = claims.withLock { $0.finished.removeValue(forKey: index)! }
            freePlaces.signal()
            return element
        }

        func stop(joining threads: [BackgroundThread]) {
            claims.withLock { $0.stopped = true }
            freePlaces.signal()
            for thread in threads { thread.join() }
            claims.withLock { $0.finished.removeAll() }
        }
    }
}
