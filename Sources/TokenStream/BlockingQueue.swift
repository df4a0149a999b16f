#if canImport(Glibc)
import Glibc
#endif

/// A bounded FIFO queue for a few long-lived threads: `push` waits while the queue is full,
/// `pop` waits while it is empty, and `close` wakes everyone (pop then drains, then returns nil).
/// Used per chunk of lines, never per token; a waiting thread is woken only when it has
/// something to do (one condition for "not empty", one for "not full").
final class BlockingQueue<Element>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let notEmpty = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let notFull = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var items: [Element?] = []
    private var head = 0
    private var count = 0
    private var waitingConsumers = 0
    private var waitingProducers = 0
    private var closed = false

    init(capacity: Int) {
        items = Array(repeating: nil, count: max(1, capacity))
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(notEmpty, nil)
        pthread_cond_init(notFull, nil)
    }

    deinit {
        pthread_cond_destroy(notFull)
        pthread_cond_destroy(notEmpty)
        pthread_mutex_destroy(mutex)
        notFull.deallocate()
        notEmpty.deallocate()
        mutex.deallocate()
    }

    /// Appends `item`, waiting for room. Returns false when the queue is closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == items.count && !closed {
            waitingProducers += 1
            pthread_cond_wait(notFull, mutex)
            waitingProducers -= 1
        }
        if closed { return false }
        items[(head + count) % items.count] = item
        count += 1
        if waitingConsumers > 0 { pthread_cond_signal(notEmpty) }
        return true
    }

    /// The oldest item, waiting for one; nil once the queue is closed and empty.
    func pop() -> Element? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 && !closed {
            waitingConsumers += 1
            pthread_cond_wait(notEmpty, mutex)
            waitingConsumers -= 1
        }
        if count == 0 { return nil }
        let item = items[head]
        items[head] = nil
        head = (head + 1) % items.count
        count -= 1
        if waitingProducers > 0 { pthread_cond_signal(notFull) }
        return item
    }

    /// Whether nothing is waiting in the queue right now.
    var isEmpty: Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return count == 0
    }

    /// No more pushes; pops drain what is left.
    func close() {
        pthread_mutex_lock(mutex)
        closed = true
        pthread_cond_broadcast(notEmpty)
        pthread_cond_broadcast(notFull)
        pthread_mutex_unlock(mutex)
    }
}
