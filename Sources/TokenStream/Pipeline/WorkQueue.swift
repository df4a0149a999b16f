import Atomics
import Dispatch

/// The reader's hand-off to the workers: a ``WorkRing`` plus a semaphore that counts what is in
/// it, so an idle worker sleeps and a push wakes one. No lock is taken: the ring is lock-free and
/// the semaphore is an atomic counter that enters the kernel only to sleep or to wake a sleeper.
///
/// The producer must never have more items outstanding than the ring holds (the pipeline bounds
/// its chunks in flight below the capacity), so a push never finds the ring full.
final class WorkQueue<Element>: @unchecked Sendable {
    private let ring: WorkRing<Element>
    private let available = DispatchSemaphore(value: 0)
    private let closed = ManagedAtomic<Bool>(false)
    private let consumers: Int

    /// A queue for `consumers` consumers, holding at least `capacity` items.
    init(capacity: Int, consumers: Int) {
        ring = WorkRing(capacity: capacity)
        self.consumers = consumers
    }

    /// Appends `element` and wakes a sleeping consumer.
    func push(_ element: Element) {
        guard ring.tryPush(element) else {
            preconditionFailure("WorkQueue overflow: more items outstanding than its capacity of \(ring.capacity)")
        }
        available.signal()
    }

    /// The oldest element, sleeping while there is none; nil once the queue is closed and empty.
    func pop() -> Element? {
        while true {
            available.wait()
            if let element = ring.tryPop() { return element }
            if closed.load(ordering: .acquiring) { return nil }
        }
    }

    /// No more pushes: every consumer gets nil once the queue is empty.
    func close() {
        closed.store(true, ordering: .releasing)
        for _ in 0..<consumers { available.signal() }
    }
}
