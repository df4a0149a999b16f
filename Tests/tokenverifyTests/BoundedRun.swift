import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A run of the built tool with a bound on its time and memory: a tool that hangs (on a FIFO
/// without a writer) or grows without bound (reading `/dev/zero`) is killed and the run says so,
/// so that such a test fails instead of hanging or exhausting the machine. Its stdout comes back
/// as bytes (an Arrow stream is not text).
struct BoundedRun {
    var stdout: Data
    var stderr: String
    var status: Int32
    /// Killed at the deadline or over the memory bound.
    var killed: String?

    /// The answers, one JSON object a line.
    var answers: [[String: Any]] {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? [:]
        }
    }

    /// Runs `tokenverify arguments` with `input` on stdin, killing it after `seconds` or once its
    /// resident memory passes `memoryBytes`.
    static func run(
        _ arguments: [String], input: Data = Data(), seconds: Double = 30, memoryBytes: Int = 512 << 20
    ) throws -> BoundedRun {
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = Tool.binary
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let pid = process.processIdentifier
        let killed = LockedBox<String?>(nil)
        let watchdog = Thread {
            let start = Date()
            while process.isRunning {
                if Date().timeIntervalSince(start) > seconds {
                    killed.set("still running after \(seconds) s")
                } else if residentBytes(pid) > memoryBytes {
                    killed.set("over \(memoryBytes >> 20) MiB resident")
                }
                if killed.get() != nil {
                    kill(pid, SIGKILL)
                    return
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        watchdog.start()
        let writer = Thread {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errors = LockedBox<Data?>(nil)
        let errorReader = Thread { errors.set(stderr.fileHandleForReading.readDataToEndOfFile()) }
        errorReader.start()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errors.get() == nil { Thread.sleep(forTimeInterval: 0.01) }
        return BoundedRun(
            stdout: out, stderr: String(decoding: errors.get()!, as: UTF8.self), status: process.terminationStatus,
            killed: killed.get())
    }

    /// The resident memory of process `pid` (VmRSS), 0 when it cannot be read.
    private static func residentBytes(_ pid: Int32) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return (Int(line.split(separator: " ")[1]) ?? 0) * 1024
    }
}

/// A value shared between the test's threads under a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
