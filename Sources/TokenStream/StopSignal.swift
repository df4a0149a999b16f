import Atomics
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP as flags that the pipeline polls. The handlers only store to
/// atomics (async-signal-safe) and are installed without SA_RESTART, so a blocked read(2)
/// returns with EINTR and the reader sees the flag at once.
public enum ProcessSignals {
    static let stop = UnsafeAtomic<Bool>.create(false)
    static let reload = UnsafeAtomic<Bool>.create(false)

    /// Installs the handlers and ignores SIGPIPE (a closed stdout is seen as EPIPE instead).
    public static func install() {
        signal(SIGPIPE, SIG_IGN)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if number == SIGHUP {
                ProcessSignals.reload.store(true, ordering: .relaxed)
            } else {
                ProcessSignals.stop.store(true, ordering: .relaxed)
            }
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        sigaction(SIGHUP, &action, nil)
        // A parent may have left these blocked (the mask is inherited): unblock them here.
        var handled = sigset_t()
        sigemptyset(&handled)
        sigaddset(&handled, SIGINT)
        sigaddset(&handled, SIGTERM)
        sigaddset(&handled, SIGHUP)
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (a worker's), so that they are
    /// delivered to the reading thread, whose blocked read(2) they interrupt.
    public static func blockInCurrentThread() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGINT)
        sigaddset(&blocked, SIGTERM)
        sigaddset(&blocked, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }

    /// Whether SIGINT or SIGTERM arrived.
    public static var stopRequested: Bool { stop.load(ordering: .relaxed) }

    /// Whether SIGHUP arrived since the last call (and clears it).
    public static func takeReloadRequest() -> Bool { reload.exchange(false, ordering: .relaxed) }
}
