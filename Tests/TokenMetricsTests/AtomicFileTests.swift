import Foundation
import Testing

@testable import TokenMetrics

/// ``AtomicFile``: a file replaced whole through a temporary file beside it.
@Suite struct AtomicFileTests {
    let folder: String

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    func contents(_ path: String) -> String? { try? String(contentsOfFile: path, encoding: .utf8) }
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

    @Test func aWriteReplacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let file = AtomicFile(path: folder + "/m.prom")
        try file.write(Array("first\n".utf8))
        #expect(contents(file.path) == "first\n")
        try file.write(Array("second, longer\n".utf8))
        #expect(contents(file.path) == "second, longer\n")
        try file.write([])
        #expect(contents(file.path) == "")
        #expect(names() == ["m.prom"])
    }

    @Test func theTemporaryFileIsADotfileBesideTheTarget() {
        let file = AtomicFile(path: "/var/lib/node/m.prom")
        #expect(file.folder == "/var/lib/node")
        #expect(file.temporaryPath.hasPrefix("/var/lib/node/.m.prom."))
        #expect(file.temporaryPath.hasSuffix(".tmp"))
        #expect(AtomicFile(path: "m.prom").folder == ".")
        #expect(AtomicFile(path: "/m.prom").folder == "/")
    }

    @Test func aWriteThatFailsKeepsThePreviousFileAndSaysWhy() throws {
        let file = AtomicFile(path: folder + "/m.prom")
        try file.write(Array("kept\n".utf8))
        // A folder where the temporary file would go makes its creation fail.
        try FileManager.default.createDirectory(atPath: file.temporaryPath, withIntermediateDirectories: false)
        let error = #expect(throws: AtomicFileError.self) { try file.write(Array("new\n".utf8)) }
        #expect(error?.description.hasPrefix(file.path + ": cannot create") == true, "\(String(describing: error))")
        #expect(contents(file.path) == "kept\n")
    }

    @Test func aFileInAMissingFolderIsRefusedBeforeTheRun() {
        let file = AtomicFile(path: folder + "/absent/m.prom")
        let error = #expect(throws: AtomicFileError.self) { try file.checkWritable(option: "--metrics-file") }
        #expect(error?.description.contains("--metrics-file \(file.path): cannot write in \(folder)/absent") == true)
        let write = #expect(throws: AtomicFileError.self) { try file.write([1]) }
        #expect(write?.description.contains("No such file or directory") == true, "\(String(describing: write))")
    }

    @Test func aDirectoryIsNotAFile() throws {
        let error = #expect(throws: AtomicFileError.self) {
            try AtomicFile(path: folder).checkWritable(option: "--summary-file")
        }
        #expect(error?.description == "--summary-file \(folder): a directory, not a file")
        #expect(throws: AtomicFileError.self) { try AtomicFile(path: "").checkWritable(option: "--summary-file") }
        try AtomicFile(path: folder + "/s.json").checkWritable(option: "--summary-file")
        #expect(names() == [], "the probe file is removed")
    }
}
