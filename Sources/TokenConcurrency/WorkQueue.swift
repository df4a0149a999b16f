import Atomics
import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The reader's hand-off to the workers: a ``WorkRing`` plus a semaphore that counts what is in
/// it, so an idle worker sleeps and a push wakes one. No lock is taken: the ring is lock-free and
/// the semaphore is an atomic counter that enters the kernel only to sleep or to wake a sleeper.
///
/// The producer keeps at most `capacity` items outstanding (the pipeline bounds its chunks in
/// flight), and the ring has one more slot per consumer. A consumer that has claimed a slot but
/// not yet released it (preempted between the two steps, a few instructions apart) still holds
/// that slot while later ones are freed, so the producer may find the ring full after all: it
/// then yields until that consumer has run its next instructions.
package final class WorkQueue<Element>: @unchecked Sendable {
    private let ring: WorkRing<Element>
    private let available = DispatchSemaphore(value: 0)
    private let closed = ManagedAtomic<Bool>(false)
    private let consumers: Int

    /// A queue for `consumers` consumers, holding at least `capacity` items.
    package init(capacity: Int, consumers: Int) {
        ring = WorkRing(capacity: capacity + consumers)
        self.consumers = consumers
    }

    /// Appends `element` and wakes a sleeping consumer.
    package func push(_ element: Element) {
        while !ring.tryPush(element) { sched_yield() }
        available.signal()
    }

    /// The oldest element, sleeping while there is none; nil once the queue is closed and empty.
    package func pop() -> Element? {
        while true {
            available.wait()
            if let element = ring.tryPop() { return element }
            if closed.load(ordering: .acquiring) { return nil }
        }
    }

    /// No more pushes: every consumer gets nil once the queue is empty.
    package func close() {
        closed.store(true, ordering: .releasing)
        for _ in 0..<consumers { available.signal() }
    }
}
