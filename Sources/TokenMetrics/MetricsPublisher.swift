import Dispatch
import TokenConcurrency

/// Writes a metrics file every `interval` seconds, on its own queue, and once more at the end
/// (``finish()``). A write that fails is said on stderr (through `log`: once when writes start
/// failing, and once when they work again) and never stops the run.
public final class MetricsPublisher: @unchecked Sendable {
    private let file: AtomicFile
    private let interval: Double
    private let render: @Sendable () -> [UInt8]
    private let log: @Sendable (String) -> Void
    private let queue = DispatchQueue(label: "tokenverify.metrics", qos: .utility)
    private let timer: DispatchSourceTimer
    // Touched only on `queue`.
    private var lastFailure: String?
    private var finished = false

    /// A publisher of what `render` returns to `file`.
    public init(
        file: AtomicFile, interval: Double, render: @escaping @Sendable () -> [UInt8],
        log: @escaping @Sendable (String) -> Void
    ) {
        self.file = file
        self.interval = interval
        self.render = render
        self.log = log
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    /// Writes the file at once, then every interval.
    public func start() {
        timer.schedule(deadline: .now(), repeating: interval, leeway: .milliseconds(100))
        timer.setEventHandler { [self] in
            // Stop signals are for the thread that reads input (whose blocked read(2) they
            // interrupt), not for the pool thread that runs this handler.
            ProcessSignals.blockInCurrentThread()
            publish()
        }
        timer.resume()
    }

    /// Stops the timer and writes the file a last time (the run's final figures).
    public func finish() {
        queue.sync {
            guard !finished else { return }
            finished = true
            timer.cancel()
            publish()
        }
    }

    /// Runs on `queue` (in ``finish()``, on the caller's thread, which `sync` lends it).
    private func publish() {
        do {
            try file.write(render())
            if lastFailure != nil {
                log("tokenverify: metrics file \(file.path) written again")
                lastFailure = nil
            }
        } catch {
            if lastFailure == nil {
                log("tokenverify: metrics file not written (the run goes on; retried every \(interval) s): \(error)")
            }
            lastFailure = error.description
        }
    }
}
