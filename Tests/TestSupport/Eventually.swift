import Foundation

/// What ``eventually(within:observe:until:)`` saw: whether the condition held before the
/// deadline, the last value it observed (for the failure message) and how long it waited.
package struct Observation<Value> {
    /// The condition held on `last`.
    package var met: Bool
    /// The last value observed: the one that met the condition, or the one seen at the deadline.
    package var last: Value
    /// Seconds from the first observation to the last.
    package var waited: Double
}

/// The one wait of the tests: observes `observe()` until `holds` is true of what it returns,
/// or `timeout` seconds pass. It asks at once, then again after 1 ms, the pause doubling up to
/// 50 ms, so that a fast event costs about a millisecond and a slow one about 50 ms of polling.
/// A test waits on something the code under test does (an answer, a stderr line, a file, a
/// count), never on the clock alone; the deadline only bounds a test whose event never comes.
package func eventually<Value>(
    within timeout: Double = 10, observe: () throws -> Value, until holds: (Value) throws -> Bool
) rethrows -> Observation<Value> {
    let start = DispatchTime.now().uptimeNanoseconds
    var pause = 0.001
    while true {
        let value = try observe()
        let waited = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if try holds(value) { return Observation(met: true, last: value, waited: waited) }
        if waited >= timeout { return Observation(met: false, last: value, waited: waited) }
        var interval = timespec(tv_sec: 0, tv_nsec: Int(min(pause, timeout - waited) * 1e9))
        nanosleep(&interval, nil)
        pause = min(pause * 2, 0.05)
    }
}

/// ``eventually(within:observe:until:)`` for a condition with nothing to report: true once
/// `condition` holds, false when `timeout` seconds pass first.
@discardableResult
package func eventually(within timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    try eventually(within: timeout, observe: condition, until: { $0 }).met
}

/// A value shared between a test's threads under a lock; ``wait(within:until:)`` sleeps until a
/// change makes the condition true (no polling).
package final class LockedBox<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func get() -> Value {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    package func set(_ newValue: Value) { update { $0 = newValue } }

    /// Changes the value under the lock and wakes the waiters.
    @discardableResult
    package func update<Result>(_ change: (inout Value) throws -> Result) rethrows -> Result {
        condition.lock()
        defer {
            condition.broadcast()
            condition.unlock()
        }
        return try change(&value)
    }

    /// Waits until `holds` is true of the value (checked at once and after each change) or
    /// `timeout` seconds pass; the last value seen either way.
    package func wait(within timeout: Double = 10, until holds: (Value) -> Bool) -> Observation<Value> {
        let start = Date()
        let deadline = start.addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while !holds(value) {
            if !condition.wait(until: deadline) {
                return Observation(met: holds(value), last: value, waited: Date().timeIntervalSince(start))
            }
        }
        return Observation(met: true, last: value, waited: Date().timeIntervalSince(start))
    }
}
