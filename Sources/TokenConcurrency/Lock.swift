#if canImport(Glibc)
@preconcurrency import Glibc
#elseif canImport(Musl)
@preconcurrency import Musl
#endif

/// A pthread mutex, in the style of swift-nio's `NIOLock`: an error-checking mutex in debug
/// builds (locking it twice on one thread, or unlocking it on a thread that does not hold it,
/// stops the process with the error), a plain one in release builds. ThreadSanitizer sees its
/// hand-offs (on Linux it does not see the standard library's `Mutex`). No Foundation.
package final class Lock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    package init() {
        var attributes = pthread_mutexattr_t()
        var error = pthread_mutexattr_init(&attributes)
        precondition(error == 0, "pthread_mutexattr_init failed: \(error)")
        assert(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)) == 0)
        error = pthread_mutex_init(mutex, &attributes)
        precondition(error == 0, "pthread_mutex_init failed: \(error)")
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        let error = pthread_mutex_destroy(mutex)
        precondition(error == 0, "pthread_mutex_destroy failed: \(error)")
        mutex.deallocate()
    }

    /// Takes the lock, waiting for it.
    package func lock() {
        let error = pthread_mutex_lock(mutex)
        precondition(error == 0, "pthread_mutex_lock failed: \(error)")
    }

    /// Releases the lock (held by the calling thread).
    package func unlock() {
        let error = pthread_mutex_unlock(mutex)
        precondition(error == 0, "pthread_mutex_unlock failed: \(error)")
    }

    /// Runs `body` holding the lock and returns what it returns (the lock is released however
    /// `body` ends).
    @inlinable
    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
