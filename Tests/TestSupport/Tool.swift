import Foundation

/// Runs the built `tokenverify` binary (or the one `TOKENVERIFY_BINARY` names: to run a suite
/// against another build, such as one without a fix, and see its tests fail).
package enum Tool {
    package static let binary: URL = {
        if let chosen = ProcessInfo.processInfo.environment["TOKENVERIFY_BINARY"] {
            return URL(fileURLWithPath: chosen)
        }
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "tokenverify"),
            Repository.root.appendingPathComponent(".build/debug/tokenverify"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[1]
    }()

    package static let repository = Repository.root

    package struct Output {
        package var stdout: String
        package var stderr: String
        package var status: Int32
        /// The highest VmHWM sampled while the tool ran (0 when it ended before a sample).
        package var peakResidentBytes = 0
        package var lines: [String] { stdout.split(separator: "\n").map(String.init) }
        package var answers: [[String: Any]] {
            lines.map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        }
    }

    /// Runs the tool to completion with `input` on stdin (a tool that exits before reading it
    /// all, as one refusing its arguments does, leaves the rest unwritten).
    package static func run(_ arguments: [String], input: Data = Data()) throws -> Output {
        try run(arguments) { handle in try? handle.write(contentsOf: input) }
    }

    package static func run(_ arguments: [String], input: String) throws -> Output {
        try run(arguments, input: Data(input.utf8))
    }

    /// Runs the tool with `prefix`, `count` copies of `chunk` and `suffix` on stdin, written as
    /// they go (so the test never holds the whole input).
    package static func run(
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
    package static func run(_ arguments: [String], feed: @escaping @Sendable (FileHandle) -> Void) throws -> Output {
        let result = try ProcessRunner.run(binary, arguments, feed: feed)
        return Output(
            stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: result.stderr, as: UTF8.self), status: result.status,
            peakResidentBytes: result.peakResidentBytes)
    }
}

/// A run of the built tool with a bound on its time and memory: a tool that hangs (on a FIFO
/// without a writer) or grows without bound (reading `/dev/zero`) is killed and the run says so,
/// so that such a test fails instead of hanging or exhausting the machine. Its stdout comes back
/// as bytes (an Arrow stream is not text).
package struct BoundedRun {
    package var stdout: Data
    package var stderr: String
    package var status: Int32
    /// Killed at the deadline or over the memory bound.
    package var killed: String?

    /// The answers, one JSON object a line.
    package var answers: [[String: Any]] {
        String(decoding: stdout, as: UTF8.self).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) ?? [:]
        }
    }

    /// Runs `tokenverify arguments` with `input` on stdin, killing it after `seconds` or once its
    /// resident memory passes `memoryBytes`.
    package static func run(
        _ arguments: [String], input: Data = Data(), seconds: Double = 30, memoryBytes: Int = 512 << 20
    ) throws -> BoundedRun {
        let result = try ProcessRunner.run(
            Tool.binary, arguments, limits: .init(seconds: seconds, memoryBytes: memoryBytes),
            feed: { try? $0.write(contentsOf: input) })
        return BoundedRun(
            stdout: result.stdout, stderr: String(decoding: result.stderr, as: UTF8.self), status: result.status,
            killed: result.killed)
    }
}
