import Atomics

#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP as flags that long runs poll: the one place the project keeps signals
/// (`verify`'s pipeline, `gen`'s generator, `fetch`'s downloads; the foreground of a
/// ``ServiceGroup`` stops on them, its background threads block them). The handlers only store to
/// atomics and write a byte to a wake pipe (both async-signal-safe), and are installed without
/// SA_RESTART, so a blocked read(2) returns with EINTR (writers retry on EINTR). A reader that
/// waits with ``waitReadable(_:)`` also wakes for a signal that came just before it blocked, or
/// that another thread took. No thread and no Dispatch queue is involved, so a run whose threads
/// are all busy still sees a signal.
public enum ProcessSignals {
    static let stop = UnsafeAtomic<Bool>.create(false)
    static let reload = UnsafeAtomic<Bool>.create(false)
    /// Whether SIGHUP asks for a reload (`verify`) rather than a stop (`gen`).
    static let hangUpReloads = UnsafeAtomic<Bool>.create(true)
    /// The wake pipe's ends (−1 until ``install(reloadOnHangUp:)``), non-blocking.
    nonisolated(unsafe) static var wake: (read: Int32, write: Int32) = (-1, -1)

    /// Installs the handlers and ignores SIGPIPE (a closed stdout is seen as EPIPE instead).
    /// SIGHUP asks for a reload when `reloadOnHangUp`, else it stops the run like SIGINT.
    package static func install(reloadOnHangUp: Bool = true) {
        hangUpReloads.store(reloadOnHangUp, ordering: .relaxed)
        signal(SIGPIPE, SIG_IGN)
        if wake.read < 0, let ends = makeWakePipe() { wake = ends }
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { number in
            if number == SIGHUP && ProcessSignals.hangUpReloads.load(ordering: .relaxed) {
                ProcessSignals.reload.store(true, ordering: .relaxed)
            } else {
                ProcessSignals.stop.store(true, ordering: .relaxed)
            }
            let saved = errno
            var byte: UInt8 = 1
            _ = write(ProcessSignals.wake.write, &byte, 1)  // full pipe: a wake is pending already
            errno = saved
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
    package static func blockInCurrentThread() {
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

    /// Waits until `descriptor` is readable (true) or a handled signal arrives (false, the wake
    /// pipe drained: the caller checks the flags and waits again). Without installed handlers it
    /// returns true at once, and the caller's read(2) blocks as it would.
    package static func waitReadable(_ descriptor: Int32) -> Bool {
        guard wake.read >= 0 else { return true }
        var entries = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while poll(&entries, 2, -1) < 0 {
            guard errno == EINTR else { return true }  // let the read report the error
        }
        guard entries[1].revents != 0 else { return true }
        var drained = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &drained, drained.count) > 0 {}
        return entries[0].revents != 0
    }

    /// Whether SIGINT or SIGTERM (or SIGHUP, when it does not reload) arrived.
    public static var stopRequested: Bool { stop.load(ordering: .relaxed) }

    /// Whether SIGHUP arrived since the last call (and clears it).
    package static func takeReloadRequest() -> Bool { reload.exchange(false, ordering: .relaxed) }
}
