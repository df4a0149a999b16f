import Atomics

/// Slots indexed by sequence number, for answers that finish out of order: a worker stores its
/// answer at its chunk's sequence, and whoever holds the writer role takes them out in sequence.
/// Lock-free: stores and takes are atomic exchanges. The caller keeps fewer than `capacity`
/// sequences outstanding, so a slot only ever holds the one sequence it is waited for.
package final class ReorderRing<Element: AtomicReference & Sendable>: Sendable where Element._AtomicBase == Element {
    private let slots: [ManagedAtomic<Element?>]
    private let mask: Int

    /// A ring of at least `capacity` slots (rounded up to a power of two).
    package init(capacity: Int) {
        var size = 2
        while size < capacity { size <<= 1 }
        mask = size - 1
        slots = (0..<size).map { _ in ManagedAtomic<Element?>(nil) }
    }

    /// The number of slots.
    package var capacity: Int { mask + 1 }

    /// Stores the element for `sequence`.
    package func store(_ element: Element, at sequence: Int) {
        slots[sequence & mask].store(element, ordering: .releasing)
    }

    /// Takes the element for `sequence`, if it is there.
    package func take(_ sequence: Int) -> Element? {
        slots[sequence & mask].exchange(nil, ordering: .acquiring)
    }

    /// Whether the element for `sequence` is there.
    package func isReady(_ sequence: Int) -> Bool {
        slots[sequence & mask].load(ordering: .acquiring) != nil
    }
}
