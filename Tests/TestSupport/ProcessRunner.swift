import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one place the tests start a program and collect what it wrote: stdin fed from one
/// thread, stdout and stderr drained by others (so no pipe fills and blocks the program), its
/// peak resident memory sampled, and optionally a bound on its time and memory past which it is
/// killed. ``Tool`` runs the built `tokenverify` through it; `External.run` other programs.
package enum ProcessRunner {
    /// A bound on a run: past `seconds`, or once resident memory passes `memoryBytes`, the
    /// program is killed (SIGKILL) and the result says why.
    package struct Limits: Sendable {
        package var seconds: Double
        package var memoryBytes: Int
        package init(seconds: Double = 30, memoryBytes: Int = 512 << 20) {
            self.seconds = seconds
            self.memoryBytes = memoryBytes
        }
    }

    /// What a finished program left.
    package struct Result: Sendable {
        package var stdout: Data
        package var stderr: Data
        package var status: Int32
        /// The highest VmHWM sampled while it ran (0 when it ended before a sample).
        package var peakResidentBytes: Int
        /// Why it was killed (over a limit), or nil.
        package var killed: String?
    }

    /// Runs `executable` (in `directory`, else the tests' own) to completion; `feed` writes its
    /// stdin from another thread (stdin is closed after it returns).
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, directory: URL? = nil,
        limits: Limits? = nil, feed: @escaping @Sendable (FileHandle) -> Void = { _ in }
    ) throws -> Result {
        signal(SIGPIPE, SIG_IGN)  // a program that stops reading must not kill the tests
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let monitor = Monitor(pid: process.processIdentifier, limits: limits)
        let done = DispatchGroup()
        let errors = LockedBox(Data())
        DispatchQueue.global().async(group: done) {
            feed(stdin.fileHandleForWriting)
            try? stdin.fileHandleForWriting.close()
        }
        DispatchQueue.global().async(group: done) {
            errors.set(stderr.fileHandleForReading.readDataToEndOfFile())
        }
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        monitor.stop()
        done.wait()
        return Result(
            stdout: out, stderr: errors.get(), status: process.terminationStatus,
            peakResidentBytes: monitor.peak.get(), killed: monitor.killed.get())
    }

    /// Samples a running process's /proc status every 10 ms (a sampler, not a wait: the run
    /// ends when the process does) and kills it past its limits.
    final class Monitor: @unchecked Sendable {
        let peak = LockedBox(0)
        let killed = LockedBox<String?>(nil)
        private let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "ProcessRunner.Monitor"))

        init(pid: Int32, limits: Limits?) {
            let start = DispatchTime.now().uptimeNanoseconds
            timer.setEventHandler { [peak, killed] in
                guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return }
                let high = Self.kibibytes("VmHWM:", in: status) * 1024
                peak.update { $0 = max($0, high) }
                guard let limits, killed.get() == nil else { return }
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                if elapsed > limits.seconds {
                    killed.set("still running after \(limits.seconds) s")
                } else if Self.kibibytes("VmRSS:", in: status) * 1024 > limits.memoryBytes {
                    killed.set("over \(limits.memoryBytes >> 20) MiB resident")
                }
                if killed.get() != nil { kill(pid, SIGKILL) }
            }
            timer.schedule(deadline: .now(), repeating: .milliseconds(10))
            timer.resume()
        }

        func stop() { timer.cancel() }

        static func kibibytes(_ field: String, in status: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field) }) else { return 0 }
            return Int(line.split(separator: " ")[1]) ?? 0
        }
    }
}
