#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A thread of its own (a pthread, no Foundation), joined by ``join()``: for the workers of
/// ``OrderedProduction`` and the services of a ``ServiceGroup``, which wait for long stretches
/// and so are no work for Dispatch's pool.
package final class BackgroundThread: @unchecked Sendable {
    private var thread: pthread_t
    private var joined = false

    /// Starts `body` on a new thread with a stack of `stackSize` bytes; with `blockingSignals`,
    /// SIGINT, SIGTERM and SIGHUP are blocked there (``ProcessSignals/blockInCurrentThread()``),
    /// so that they reach the thread that reads input.
    package init(stackSize: Int = 1 << 20, blockingSignals: Bool = true, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(
            ThreadBody {
                if blockingSignals { ProcessSignals.blockInCurrentThread() }
                body()
            })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setstacksize(&attributes, stackSize)
        defer { pthread_attr_destroy(&attributes) }
        var thread = pthread_t()
        let error = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, box.toOpaque())
        precondition(error == 0, "pthread_create failed: \(errnoText(error))")
        self.thread = thread
    }

    /// Waits for the thread's body to return (once; later calls return at once).
    package func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit {
        if !joined { pthread_detach(thread) }
    }
}

/// What a ``BackgroundThread`` runs, handed to `pthread_create` retained.
private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
