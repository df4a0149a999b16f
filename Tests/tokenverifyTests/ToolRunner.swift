import Foundation
import TestSupport
import Testing
import TokenConcurrency
import TokenTools
import TokenVerifier

/// Runs the built `tokenverify` binary (or the one `TOKENVERIFY_BINARY` names: to run a suite
/// against another build, such as one without a fix, and see its tests fail).
enum Tool {
    static let binary: URL = {
        if let chosen = ProcessInfo.processInfo.environment["TOKENVERIFY_BINARY"] {
            return URL(fileURLWithPath: chosen)
        }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "tokenverify"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
                .appendingPathComponent(".build/debug/tokenverify"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Output {
        var stdout: String
        var stderr: String
        var status: Int32
        /// The highest VmHWM sampled while the tool ran (0 when it ended before a sample).
        var peakResidentBytes = 0
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var answers: [[String: Any]] {
            lines.map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        }
    }

    /// Runs the tool to completion with `input` on stdin (a tool that exits before reading it
    /// all, as one refusing its arguments does, leaves the rest unwritten).
    static func run(_ arguments: [String], input: Data = Data()) throws -> Output {
        try run(arguments) { handle in try? handle.write(contentsOf: input) }
    }

    /// Runs the tool with `prefix`, `count` copies of `chunk` and `suffix` on stdin, written as
    /// they go (so the test never holds the whole input).
    static func run(
        _ arguments: [String], inputChunks count: Int, of chunk: Data, prefix: Data, suffix: Data
    ) throws -> Output {
        try run(arguments) { handle in
            do {
                try handle.write(contentsOf: prefix)
                for _ in 0..<count { try handle.write(contentsOf: chunk) }
                try handle.write(contentsOf: suffix)
            } catch {
                return  // the tool stopped reading: the test judges what it answered
            }
        }
    }

    /// Runs the tool to completion; `feed` writes its stdin from another thread. Also samples
    /// the tool's peak resident memory (VmHWM) while it runs.
    static func run(_ arguments: [String], feed: @escaping @Sendable (FileHandle) -> Void) throws -> Output {
        signal(SIGPIPE, SIG_IGN)  // a tool that stops reading must not kill the tests
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread {
            feed(stdin.fileHandleForWriting)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = LockedValue<Data?>(nil)
        let errorReader = Thread {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        errorReader.start()
        let peak = LockedValue<Data?>(nil)
        let pid = process.processIdentifier
        let sampler = Thread {
            var highest = 0
            while let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
            {
                highest = max(highest, (Int(line.split(separator: " ")[1]) ?? 0) * 1024)
                peak.withLock { $0 = Data(String(highest).utf8) }
                Thread.sleep(forTimeInterval: 0.01)
            }
        }
        sampler.start()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorData.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.01) }
        let errors = errorData.withLock { $0 }!
        return Output(
            stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: errors, as: UTF8.self),
            status: process.terminationStatus,
            peakResidentBytes: peak.withLock { $0 }.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0)
    }

    static func run(_ arguments: [String], input: String) throws -> Output {
        try run(arguments, input: Data(input.utf8))
    }
}

/// A running `tokenverify verify` fed line by line, for interactive, reload and signal tests.
/// Its stdout and stderr are drained by background threads, so it never blocks on a full pipe.
final class LiveTool: @unchecked Sendable {
    let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let condition = NSCondition()
    private var buffer = Data()
    private var outputEnded = false
    private var errors = Data()
    private var errorsEnded = false
    /// The complete lines of stderr so far.
    private var errorLines: [String] = []

    init(_ arguments: [String]) throws {
        signal(SIGPIPE, SIG_IGN)  // writing to a tool that has stopped reading must not kill the tests
        process.executableURL = Tool.binary
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        Thread { [self] in
            while true {
                let data = stdout.fileHandleForReading.availableData
                condition.lock()
                if data.isEmpty { outputEnded = true } else { buffer.append(data) }
                condition.broadcast()
                condition.unlock()
                if data.isEmpty { return }
            }
        }.start()
        Thread { [self] in
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
        }.start()
    }

    /// Writes to the tool's stdin; false once the tool no longer reads.
    @discardableResult
    func send(_ text: String) -> Bool {
        (try? stdin.fileHandleForWriting.write(contentsOf: Data(text.utf8))) != nil
    }

    func closeInput() {
        try? stdin.fileHandleForWriting.close()
    }

    /// The next output line, or nil after `timeout` seconds or at the end of output.
    func readLine(timeout: Double = 10) -> String? {
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

    /// Sends `line` every 0.1 s until its answer contains `text` (true), or 5 s pass (false).
    func ask(_ line: String, until text: String) -> Bool {
        for _ in 0..<50 {
            Thread.sleep(forTimeInterval: 0.1)
            send(line + "\n")
            if readLine()?.contains(text) == true { return true }
        }
        return false
    }

    /// The complete lines the tool has written to stderr so far, from line `start` (0-based) on.
    func errorLines(from start: Int) -> ArraySlice<String> {
        condition.lock()
        defer { condition.unlock() }
        return errorLines[min(start, errorLines.count)...]
    }

    /// Waits until the tool has written a complete stderr line containing `text`: that line, or nil
    /// after `timeout` seconds or at the end of stderr.
    func waitForErrorLine(containing text: String, timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let line = errorLines.first(where: { $0.contains(text) }) { return line }
            if errorsEnded || !condition.wait(until: deadline) { return nil }
        }
    }

    /// Makes `change` while a witness runs: a second `verify` with `arguments`, polling its files at
    /// the default interval, that has answered `probe` before the change. True once the witness has
    /// logged a line containing `reloaded`: a tool that polled would have seen the change by then,
    /// so a tool that must not poll can be asked next.
    static func changeSeenByAPollingWitness(
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
    func waitUntilReadingStandardInput(timeout: Double = 10) -> Bool {
        // The syscall's number, then its first argument: read(2) of fd 0, or poll(2)/ppoll(2), in
        // which the reader waits for its input and the signals' wake pipe together.
        #if arch(arm64)
        let waits = ["63 0x0 ", "73 "]
        #else
        let waits = ["0 0x0 ", "7 ", "271 "]
        #endif
        let tasks = "/proc/\(process.processIdentifier)/task"
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
                guard let file = FileHandle(forReadingAtPath: "\(tasks)/\(thread)/syscall") else { continue }
                let line = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
                try? file.close()
                if waits.contains(where: { line.hasPrefix($0) }) { return true }
            }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }

    /// Everything left on stdout and stderr after the process ends.
    func finish() -> (stdout: String, stderr: String, status: Int32) {
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

/// A temporary directory with key files and tokens made by the library's signer.
struct Workspace {
    let directory: URL
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
    let es = SigningKey.generate(algorithm: .es256, keyID: "es-1")
    let prod = SigningKey.generate(algorithm: .ed25519, keyID: "prod-1", environment: .production, issuer: "operator-a")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tokenverify-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try write("keys.jwks", "{\"keys\":[\(ed.publicJWK),\(es.publicJWK),\(prod.publicJWK)]}")
        try write("revocations.jsonl", "")
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        return path(name)
    }

    /// Replaces a file the way a back office should: write a new file, rename it into place.
    func replace(_ name: String, _ text: String) throws {
        let temporary = directory.appendingPathComponent(name + ".new")
        try Data(text.utf8).write(to: temporary)
        guard rename(temporary.path, path(name)) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    static let checkTime = "1800000000"

    static func claims(_ overrides: [String: String?] = [:]) -> String {
        var members: [(String, String)] = [
            ("iss", "\"operator-a\""), ("sub", "\"phone-1\""), ("aud", "\"car-1\""), ("jti", "\"t-1\""),
            ("iat", "1799990000"), ("exp", "1800003600"), ("ch", "[\"ble\",\"nfc\"]"), ("cmd", "[\"unlock\",\"lock\"]"),
        ]
        for (name, value) in overrides.sorted(by: { $0.key < $1.key }) {
            members.removeAll { $0.0 == name }
            if let value { members.append((name, value)) }
        }
        return "{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    func token(_ key: SigningKey? = nil, claims: String = Workspace.claims(), header: String? = nil) -> String {
        let key = key ?? ed
        if let header { return key.sign(header: Array(header.utf8), claims: Array(claims.utf8)) }
        return key.sign(claims: Array(claims.utf8))
    }

    var verifyArguments: [String] {
        ["verify", "--keys", path("keys.jwks"), "--revocations", path("revocations.jsonl"), "--at", Self.checkTime]
    }
}

func b64(_ text: String) -> String { Base64URL.encodeString(Array(text.utf8)) }

/// The rule for tests that need something from outside the package (a minter such as PyJWT or
/// jose, a test-vector file): where it is missing, the test is skipped with the reason, never
/// passed; where the environment variable CI is set (CI=true), a skip fails instead, so that CI
/// cannot go green without running it.
enum External {
    /// Returns when `available`; otherwise skips the running test with `reason` (in CI: fails it).
    static func require(
        _ available: Bool, _ reason: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        try ExternalRequirement.require(available, reason(), sourceLocation: sourceLocation)
    }

    /// Runs a program to completion: exit status, stdout and stderr.
    @discardableResult
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], input: Data = Data()
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errorData = LockedValue<Data?>(nil)
        let reader = Thread {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        reader.start()
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorData.withLock({ $0 }) == nil { Thread.sleep(forTimeInterval: 0.01) }
        return (
            process.terminationStatus, String(decoding: out, as: UTF8.self),
            String(decoding: errorData.withLock { $0 }!, as: UTF8.self)
        )
    }

    /// The interop Python (the venv scripts/install-dependencies makes), when it exists.
    static let python: String = Tool.repository.appendingPathComponent(".venv-interop/bin/python").path

    /// Why `python` cannot import `module`, or nil when it can.
    static func pythonProblem(_ module: String) -> String? {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            return "no interop Python at .venv-interop (run scripts/install-dependencies)"
        }
        guard let result = try? run(python, ["-c", "import \(module)"]) else { return "cannot start \(python)" }
        return result.status == 0
            ? nil
            : "the Python package \(module) cannot be imported: \(result.stderr.split(separator: "\n").last ?? "")"
    }
}
