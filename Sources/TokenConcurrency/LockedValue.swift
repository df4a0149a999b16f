/// A value shared between threads, read and changed under a ``Lock`` (a pthread mutex, whose
/// hand-offs ThreadSanitizer sees; on Linux it does not see the standard library's `Mutex`, and
/// reports races on its correct use). For the few places that lock, none of them on a token's path.
package final class LockedValue<Value> {
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` on the value under the lock and returns what it returns.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

extension LockedValue: @unchecked Sendable where Value: Sendable {}
