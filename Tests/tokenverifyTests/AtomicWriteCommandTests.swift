import Foundation
import TestSupport
import Testing

/// The files the tool writes for others to read (the metrics and summary files, `gen`'s set)
/// go through one atomic writer: created new with mode 0666 less the umask, never written
/// through a symbolic link, renamed into place whole.
@Suite struct AtomicWriteCommandTests {
    /// Runs the tool under `umask 002` (a group that shares files; through /bin/sh, so the test
    /// process keeps its own).
    static func runUnderUmask002(_ arguments: [String], input: String) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "umask 002; exec \"$0\" \"$@\"", Tool.binary.path] + arguments
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o777 : nil
    }

    /// A run under umask 002 leaves its metrics and summary files writable by the group too:
    /// mode 0666 less the umask, as any file a back office writes.
    @Test func metricsAndSummaryFilesHonourTheUmask() throws {
        let workspace = try Workspace()
        let metrics = workspace.path("verify.prom")
        let summary = workspace.path("summary.json")
        let status = try Self.runUnderUmask002(
            workspace.verifyArguments + ["--metrics-file", metrics, "--summary-file", summary],
            input: workspace.token() + "\n")
        #expect(status == 0)
        #expect(Self.mode(metrics) == 0o664, "metrics file mode \(String(Self.mode(metrics) ?? 0, radix: 8))")
        #expect(Self.mode(summary) == 0o664, "summary file mode \(String(Self.mode(summary) ?? 0, radix: 8))")
    }

    /// A symbolic link left at a temporary name of the set (`NAME.partial`) is replaced, never
    /// written through: the file it points to stays as it was, and the set's file is a file.
    @Test func genNeverWritesThroughALinkAtATemporaryName() throws {
        let workspace = try Workspace()
        let out = workspace.path("set")
        let victim = try workspace.write("victim.txt", "untouched\n")
        try FileManager.default.createDirectory(
            atPath: out + "/status-lists", withIntermediateDirectories: true)
        for name in ["anchors.pem", "status-lists/jws.statuslist.jwt"] {
            try FileManager.default.createSymbolicLink(
                atPath: out + "/" + name + ".partial", withDestinationPath: victim)
        }
        let result = try Tool.run([
            "gen", "--count", "200", "--seed", "3", "--status-share", "0.5", "--chain-share", "0.2", "--force",
            "--out", out,
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched\n")
        for name in ["anchors.pem", "status-lists/jws.statuslist.jwt"] {
            var info = stat()
            #expect(lstat(out + "/" + name, &info) == 0 && info.st_mode & S_IFMT == S_IFREG, "\(name)")
            #expect(!FileManager.default.fileExists(atPath: out + "/" + name + ".partial"), "\(name).partial left")
        }
    }
}
