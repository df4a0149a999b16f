import Foundation

/// A bounded FIFO queue for a few long-lived threads: `push` waits while the queue is full,
/// `pop` waits while it is empty, and `close` wakes everyone (pop then drains, then returns nil).
/// Used per chunk of lines, never per token.
final class BlockingQueue<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Element] = []
    private var head = 0
    private let capacity: Int
    private var closed = false

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends `item`, waiting for room. Returns false when the queue is closed.
    @discardableResult
    func push(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count - head >= capacity && !closed { condition.wait() }
        if closed { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The oldest item, waiting for one; nil once the queue is closed and empty.
    func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.count == head && !closed { condition.wait() }
        if items.count == head { return nil }
        let item = items[head]
        head += 1
        if head > 1024 && head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        condition.broadcast()
        return item
    }

    /// Whether nothing is waiting in the queue right now.
    var isEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return items.count == head
    }

    /// No more pushes; pops drain what is left.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
