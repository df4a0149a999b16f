import Foundation
import TokenVerifier

/// Runs the built `tokenverify` binary.
enum Tool {
    static let binary: URL = {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("tokenverify"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent(".build/debug/tokenverify"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }()

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Output {
        var stdout: String
        var stderr: String
        var status: Int32
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        var answers: [[String: Any]] {
            lines.map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        }
    }

    /// Runs the tool to completion with `input` on stdin.
    static func run(_ arguments: [String], input: Data = Data()) throws -> Output {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let errorData = UncheckedData()
        let errorReader = Thread { errorData.data = stderr.fileHandleForReading.readDataToEndOfFile() }
        errorReader.start()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errorData.data == nil { Thread.sleep(forTimeInterval: 0.01) }
        return Output(stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: errorData.data!, as: UTF8.self),
                      status: process.terminationStatus)
    }

    static func run(_ arguments: [String], input: String) throws -> Output {
        try run(arguments, input: Data(input.utf8))
    }
}

final class UncheckedData: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Data?
    var data: Data? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// A running `tokenverify verify` fed line by line, for interactive, reload and signal tests.
final class LiveTool {
    let process = Process()
    private let stdin = Pipe()
    private let stdout = Pipe()
    private let stderr = Pipe()
    private var buffer = Data()

    init(_ arguments: [String]) throws {
        process.executableURL = Tool.binary
        process.arguments = arguments
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
    }

    func send(_ text: String) {
        stdin.fileHandleForWriting.write(Data(text.utf8))
    }

    func closeInput() {
        try? stdin.fileHandleForWriting.close()
    }

    /// The next output line, or nil after `timeout` seconds.
    func readLine(timeout: Double = 10) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        let descriptor = stdout.fileHandleForReading.fileDescriptor
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                return String(decoding: line, as: UTF8.self)
            }
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return nil }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining * 1000)) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = read(descriptor, &chunk, chunk.count)
            if count <= 0 { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
    }

    /// Everything left on stdout and stderr after the process ends.
    func finish() -> (stdout: String, stderr: String, status: Int32) {
        let rest = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: buffer + rest, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus)
    }
}

/// A temporary directory with key files and tokens made by the library's signer.
struct Workspace {
    let directory: URL
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
    let es = SigningKey.generate(algorithm: .es256, keyID: "es-1")
    let prod = SigningKey.generate(algorithm: .ed25519, keyID: "prod-1", environment: .production, issuer: "operator-a")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tokenverify-e2e-\(UUID().uuidString)")
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
