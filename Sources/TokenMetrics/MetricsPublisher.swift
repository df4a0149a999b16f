import TokenConcurrency

/// Writes a metrics file at once, then every `interval` seconds, and once more when stopped (the
/// run's final figures): a ``Service`` that a ``ServiceGroup`` runs on a thread of its own. A
/// write that fails is said on stderr (through `log`: once when writes start failing, and once
/// when they work again) and never stops the run.
package final class MetricsPublisher: Service, @unchecked Sendable {
    private let file: AtomicFile
    private let interval: Double
    private let render: @Sendable () -> [UInt8]
    private let log: @Sendable (String) -> Void
    // Touched only by `run(until:)`'s thread.
    private var lastFailure: String?

    /// A publisher of what `render` returns to `file`.
    package init(
        file: AtomicFile, interval: Double, render: @escaping @Sendable () -> [UInt8],
        log: @escaping @Sendable (String) -> Void
    ) {
        self.file = file
        self.interval = interval
        self.render = render
        self.log = log
    }

    /// Writes the file now and every interval until `stop`, then a last time.
    package func run(until stop: StopSignal) {
        repeat { publish() } while !stop.wait(seconds: interval)
        publish()
    }

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
