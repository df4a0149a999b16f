import Atomics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A long-running part of a command, in the shape of swift-service-lifecycle's `Service` (without
/// async): ``run(until:)`` does the work until `stop` is triggered and returns once its last
/// work is done. The background parts (the live-state watcher, the metrics writer) and the
/// foreground loop of `fetch --watch` are services; a ``ServiceGroup`` runs them.
package protocol Service {
    /// Works until `stop` is triggered (or the work ends), then finishes (a metrics writer
    /// writes its last figures) and returns.
    func run(until stop: StopSignal)
}

/// Tells a ``Service`` to stop: triggered once, seen by ``isTriggered`` and ending any
/// ``wait(seconds:)`` at once. A pipe and an atomic, no lock: ``trigger()`` is
/// async-signal-safe. One that follows process signals (the foreground's in a ``ServiceGroup``)
/// also counts SIGINT and SIGTERM (``ProcessSignals/stopRequested``) as a trigger.
package final class StopSignal: Sendable {
    private let triggered = ManagedAtomic<Bool>(false)
    private let followsProcessSignals: Bool
    /// The pipe a trigger writes a byte to (never read: once triggered, every wait ends at once).
    private let ends: (read: Int32, write: Int32)

    /// A stop signal; with `followingProcessSignals`, SIGINT and SIGTERM trigger it too.
    package init(followingProcessSignals: Bool = false) {
        self.followsProcessSignals = followingProcessSignals
        guard let ends = makeWakePipe() else { preconditionFailure("pipe failed: \(errnoText())") }
        self.ends = ends
    }

    deinit {
        close(ends.read)
        close(ends.write)
    }

    /// Asks the service to stop.
    package func trigger() {
        guard !triggered.exchange(true, ordering: .sequentiallyConsistent) else { return }
        var byte: UInt8 = 1
        _ = write(ends.write, &byte, 1)
    }

    /// Whether a stop was asked for.
    package var isTriggered: Bool {
        triggered.load(ordering: .sequentiallyConsistent) || (followsProcessSignals && ProcessSignals.stopRequested)
    }

    /// Waits `seconds` or until a stop is asked for, whichever comes first, and returns
    /// ``isTriggered``. A process signal taken by the waiting thread ends the wait early too.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        if isTriggered { return true }
        var entry = pollfd(fd: ends.read, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(min(max(0, seconds), 86_400) * 1000))  // EINTR: a signal, checked next
        return isTriggered
    }
}

/// Runs services together, as swift-service-lifecycle's `ServiceGroup` does: each background
/// service on a thread of its own (stop signals blocked there, so they reach the thread that
/// reads input), the foreground work on the calling thread; when the foreground returns (its
/// work done, or stopped by SIGINT or SIGTERM), the background services are stopped in reverse
/// order, each after the one started after it has finished.
package struct ServiceGroup: Sendable {
    /// The background services, in the order they start.
    package let services: [any Service & Sendable]

    package init(_ services: [any Service & Sendable]) {
        self.services = services
    }

    /// Starts the services, runs `foreground` with a stop signal that SIGINT and SIGTERM trigger
    /// (``ProcessSignals``), stops the services and returns what `foreground` returned.
    package func run<Result>(_ foreground: (StopSignal) throws -> Result) rethrows -> Result {
        let running = services.map { service in
            let stop = StopSignal()
            return (stop, BackgroundThread { service.run(until: stop) })
        }
        defer {
            for (stop, thread) in running.reversed() {
                stop.trigger()
                thread.join()
            }
        }
        return try foreground(StopSignal(followingProcessSignals: true))
    }

    /// Runs `service` in the foreground (``run(_:)``): until its work ends or a stop signal.
    package func run(_ service: some Service) {
        run { stop in service.run(until: stop) }
    }
}

/// A pipe whose ends are non-blocking and closed on exec: a wake-up that a signal handler or
/// another thread writes one byte to (``ProcessSignals``, ``StopSignal``); nil when pipe(2) fails.
func makeWakePipe() -> (read: Int32, write: Int32)? {
    var ends: [Int32] = [-1, -1]
    guard pipe(&ends) == 0 else { return nil }
    for end in ends {
        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
    }
    return (ends[0], ends[1])
}
