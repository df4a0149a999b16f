import Atomics

/// A bounded lock-free ring (Vyukov's bounded MPMC queue: one sequence number per slot), the
/// hand-off of chunks of work from the reader to the workers. `tryPush` and `tryPop` never wait
/// and never lock; ``WorkQueue`` adds the sleeping.
package final class WorkRing<Element>: @unchecked Sendable {
    private let mask: Int
    private let sequences: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    private let elements: UnsafeMutablePointer<Element?>
    private let enqueuePosition = ManagedAtomic<Int>(0)
    private let dequeuePosition = ManagedAtomic<Int>(0)

    /// A ring of at least `capacity` slots (rounded up to a power of two).
    package init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        mask = size - 1
        sequences = .allocate(capacity: size)
        elements = .allocate(capacity: size)
        for index in 0..<size {
            (sequences + index).initialize(to: UnsafeAtomic<Int>.Storage(index))
        }
        elements.initialize(repeating: nil, count: size)
    }

    deinit {
        elements.deinitialize(count: mask + 1)
        elements.deallocate()
        sequences.deinitialize(count: mask + 1)
        sequences.deallocate()
    }

    /// The number of slots.
    package var capacity: Int { mask + 1 }

    @inline(__always)
    private func sequence(_ slot: Int) -> UnsafeAtomic<Int> {
        UnsafeAtomic(at: sequences + slot)
    }

    /// Appends `element`; false when the ring is full.
    package func tryPush(_ element: Element) -> Bool {
        var position = enqueuePosition.load(ordering: .relaxed)
        while true {
            let slot = position & mask
            let difference = sequence(slot).load(ordering: .acquiring) &- position
            if difference == 0 {
                let (exchanged, found) = enqueuePosition.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if exchanged {
                    elements[slot] = element
                    sequence(slot).store(position &+ 1, ordering: .releasing)
                    return true
                }
                position = found
            } else if difference < 0 {
                return false
            } else {
                position = enqueuePosition.load(ordering: .relaxed)
            }
        }
    }

    /// The oldest element; nil when the ring is empty.
    package func tryPop() -> Element? {
        var position = dequeuePosition.load(ordering: .relaxed)
        while true {
            let slot = position & mask
            let difference = sequence(slot).load(ordering: .acquiring) &- (position &+ 1)
            if difference == 0 {
                let (exchanged, found) = dequeuePosition.weakCompareExchange(
                    expected: position, desired: position &+ 1, ordering: .relaxed)
                if exchanged {
                    let element = elements[slot].take()
                    sequence(slot).store(position &+ mask &+ 1, ordering: .releasing)
                    return element
                }
                position = found
            } else if difference < 0 {
                return nil
            } else {
                position = dequeuePosition.load(ordering: .relaxed)
            }
        }
    }
}
