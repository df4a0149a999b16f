import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A running `tokenverify` (`verify` fed line by line, `fetch --watch`, …) for interactive,
/// reload and signal tests. Its stdout and stderr are drained by background threads, so it never
/// blocks on a full pipe; the tests wait on what it writes (an answer, a stderr line).
package final class LiveTool: @unchecked Sendable {
    package let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let condition = NSCondition()
    private var buffer = Data()
    private var outputEnded = false
    /// The complete lines written to stdout so far (read or not).
    private var outputLines = 0
    private var errors = Data()
    private var errorsEnded = false
    /// The complete lines of stderr so far.
    private var errorLines: [String] = []

    package init(_ arguments: [String]) throws {
        signal(SIGPIPE, SIG_IGN)  // writing to a tool that has stopped reading must not kill the tests
        process.executableURL = Tool.binary
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        Thread { [self] in drainOutput() }.start()
        Thread { [self] in drainErrors() }.start()
    }

    private func drainOutput() {
        while true {
            let data = stdout.fileHandleForReading.availableData
            condition.lock()
            if data.isEmpty { outputEnded = true } else { buffer.append(data) }
            outputLines += data.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
            condition.broadcast()
            condition.unlock()
            if data.isEmpty { return }
        }
    }

    private func drainErrors() {
        var partial = Data()
        while true {
            let data = stderr.fileHandleForReading.availableData
            partial.append(data)
            var complete: [String] = []
            while let newline = partial.firstIndex(of: 0x0A) {
                complete.append(String(decoding: partial[partial.startIndex..<newline], as: UTF8.self))
                partial.removeSubrange(partial.startIndex...newline)
            }
            condition.lock()
            errors.append(data)
            errorLines += complete
            if data.isEmpty { errorsEnded = true }
            condition.broadcast()
            condition.unlock()
            if data.isEmpty { return }
        }
    }

    /// Writes to the tool's stdin; false once the tool no longer reads.
    @discardableResult
    package func send(_ text: String) -> Bool {
        (try? stdin.fileHandleForWriting.write(contentsOf: Data(text.utf8))) != nil
    }

    package func closeInput() {
        try? stdin.fileHandleForWriting.close()
    }

    /// The next output line, or nil after `timeout` seconds or at the end of output.
    package func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            if outputEnded || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Waits until the tool has written `count` lines to stdout (read or not): the number written
    /// when it returns (fewer after `timeout` seconds or at the end of output).
    @discardableResult
    package func waitForOutputLines(_ count: Int, timeout: Double = 10) -> Int {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while outputLines < count && !outputEnded && condition.wait(until: deadline) {}
        return outputLines
    }

    /// One answer for `line` ("(no answer)" when none comes).
    package func answer(_ line: String) -> String {
        send(line + "\n")
        return readLine() ?? "(no answer)"
    }

    /// Asks `line` until its answer contains `text` (true), or `timeout` seconds pass (false):
    /// for a change the tool takes in on its own schedule (a reload, a fetch).
    package func ask(_ line: String, until text: String, timeout: Double = 5) -> Bool {
        eventually(within: timeout) { answer(line).contains(text) }
    }

    /// The number of complete lines the tool has written to stderr so far.
    package var errorLineCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return errorLines.count
    }

    /// The complete lines the tool has written to stderr so far, from line `start` (0-based) on.
    package func errorLines(from start: Int) -> ArraySlice<String> {
        condition.lock()
        defer { condition.unlock() }
        return errorLines[min(start, errorLines.count)...]
    }

    /// Waits until the tool has written a complete stderr line containing `text`, from line
    /// `start` (0-based) on: that line, or nil after `timeout` seconds or at the end of stderr.
    package func waitForErrorLine(containing text: String, from start: Int = 0, timeout: Double = 10) -> String? {
        waitForErrorLines(containing: text, count: 1, from: start, timeout: timeout).first
    }

    /// Waits until the tool has written `count` complete stderr lines containing `text`, from
    /// line `start` on: those seen when it returns (fewer after `timeout` seconds or at the end
    /// of stderr).
    package func waitForErrorLines(
        containing text: String, count: Int, from start: Int = 0, timeout: Double = 10
    ) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let found = errorLines[min(start, errorLines.count)...].filter { $0.contains(text) }
            if found.count >= count || errorsEnded || !condition.wait(until: deadline) { return found }
        }
    }

    /// Makes `change` while a witness runs: a second `verify` with `arguments`, polling its files at
    /// the default interval, that has answered `probe` before the change. True once the witness has
    /// logged a line containing `reloaded`: a tool that polled would have seen the change by then,
    /// so a tool that must not poll can be asked next.
    package static func changeSeenByAPollingWitness(
        _ arguments: [String], probe: String, reloaded: String, _ change: () throws -> Void
    ) throws -> Bool {
        let witness = try LiveTool(arguments)
        defer {
            witness.closeInput()
            _ = witness.finish()
        }
        witness.send(probe + "\n")
        guard witness.readLine() != nil else { return false }
        try change()
        return witness.waitForErrorLine(containing: reloaded) != nil
    }

    /// Waits until a thread of the tool is blocked waiting for its standard input (as
    /// /proc/PID/task/TID/syscall shows it): the tool is idle, waiting for a line. False after
    /// `timeout` seconds.
    package func waitUntilReadingStandardInput(timeout: Double = 10) -> Bool {
        // The syscall's number, then its first argument: read(2) of fd 0, or poll(2)/ppoll(2), in
        // which the reader waits for its input and the signals' wake pipe together.
        #if arch(arm64)
        let waits = ["63 0x0 ", "73 "]
        #else
        let waits = ["0 0x0 ", "7 ", "271 "]
        #endif
        let tasks = "/proc/\(process.processIdentifier)/task"
        return eventually(within: timeout) {
            ((try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? []).contains { thread in
                guard let file = FileHandle(forReadingAtPath: "\(tasks)/\(thread)/syscall") else { return false }
                defer { try? file.close() }
                let line = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
                return waits.contains { line.hasPrefix($0) }
            }
        }
    }

    /// Waits until the process has ended: false after `timeout` seconds.
    package func waitUntilExit(timeout: Double = 10) -> Bool {
        eventually(within: timeout) { !process.isRunning }
    }

    /// Everything left on stdout and stderr after the process ends.
    package func finish() -> (stdout: String, stderr: String, status: Int32) {
        process.waitUntilExit()
        condition.lock()
        while !outputEnded || !errorsEnded { condition.wait() }
        let result = (
            String(decoding: buffer, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus
        )
        condition.unlock()
        return result
    }
}
