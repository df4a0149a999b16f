import Atomics

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP as flags that long runs poll: the one stop-signal mechanism of
/// the project (`verify`'s pipeline and `gen`'s generator). The handlers only store to atomics
/// (async-signal-safe) and are installed without SA_RESTART, so a blocked read(2) returns with
/// EINTR and the reader sees the flag at once (writers retry on EINTR). No thread and no Dispatch
/// queue is involved, so a run whose threads are all busy still sees a signal.
public enum ProcessSignals {
    static let stop = UnsafeAtomic<Bool>.create(false)
    static let reload = UnsafeAtomic<Bool>.create(false)
    /// Whether SIGHUP asks for a reload (`verify`) rather than a stop (`gen`).
    static let hangUpReloads = UnsafeAtomic<Bool>.create(true)

    /// Installs the handlers and ignores SIGPIPE (a closed stdout is seen as EPIPE instead).
    /// SIGHUP asks for a reload when `reloadOnHangUp`, else it stops the run like SIGINT.
    public static func install(reloadOnHangUp: Bool = true) {
        hangUpReloads.store(reloadOnHangUp, ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if number == SIGHUP && ProcessSignals.hangUpReloads.load(ordering: .relaxed) {
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
        var handled = handledSignals()
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (a worker's), so that they are
    /// delivered to the reading thread, whose blocked read(2) they interrupt.
    public static func blockInCurrentThread() {
        var blocked = handledSignals()
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }

    /// SIGINT, SIGTERM and SIGHUP as a set.
    private static func handledSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for number in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&set, number) }
        return set
    }

    /// Whether SIGINT or SIGTERM (or SIGHUP, when it does not reload) arrived.
    public static var stopRequested: Bool { stop.load(ordering: .relaxed) }

    /// Whether SIGHUP arrived since the last call (and clears it).
    public static func takeReloadRequest() -> Bool { reload.exchange(false, ordering: .relaxed) }
}
