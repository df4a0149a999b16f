import Foundation
import Testing
import TokenConcurrency

/// The one atomic file writer: a temporary file in the same folder, created new (mode 0666 less
/// the umask, never through a link), renamed over the path whole; nothing left behind on failure.
@Suite struct AtomicFileTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func names(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    @Test func aWriteReplacesTheFileWholeAndLeavesNoTemporaryFile() throws {
        let folder = try Self.folder()
        let file = AtomicFile(path: folder + "/m.prom")
        try file.write(Array("one\n".utf8))
        try file.write(Array("two\n".utf8))
        #expect(try String(contentsOfFile: file.path, encoding: .utf8) == "two\n")
        #expect(try Self.names(folder) == ["m.prom"])
    }

    @Test func theTemporaryFileIsAHiddenFileBesideTheTarget() throws {
        let folder = try Self.folder()
        let writer = try AtomicFileWriter(replacing: folder + "/keys.jwks", temporary: .unique(prefix: ".fetching-"))
        #expect(writer.temporaryPath.hasPrefix(folder + "/.fetching-keys.jwks."))
        #expect(writer.temporaryPath.count == (folder + "/.fetching-keys.jwks.").count + 6)
        #expect(try Self.names(folder).count == 1)
        writer.discard()
        #expect(try Self.names(folder).isEmpty, "discarded")
    }

    /// A link at the path is replaced by the file, never written through.
    @Test func aLinkAtThePathIsReplacedNotFollowed() throws {
        let folder = try Self.folder()
        try Data("victim\n".utf8).write(to: URL(fileURLWithPath: folder + "/victim"))
        try FileManager.default.createSymbolicLink(atPath: folder + "/out", withDestinationPath: folder + "/victim")
        try AtomicFile(path: folder + "/out").write(Array("new\n".utf8))
        #expect(try String(contentsOfFile: folder + "/victim", encoding: .utf8) == "victim\n")
        let kind = try FileManager.default.attributesOfItem(atPath: folder + "/out")[.type] as? FileAttributeType
        #expect(kind == .typeRegular)
    }

    /// A link at a fixed temporary name (`gen`'s `NAME.partial`) is removed, not written through.
    @Test func aLinkAtAFixedTemporaryNameIsNotFollowed() throws {
        let folder = try Self.folder()
        try Data("victim\n".utf8).write(to: URL(fileURLWithPath: folder + "/victim"))
        try FileManager.default.createSymbolicLink(
            atPath: folder + "/set.txt.partial", withDestinationPath: folder + "/victim")
        let writer = try AtomicFileWriter(replacing: folder + "/set.txt", temporary: .suffix(".partial"))
        try writer.write(Array("set\n".utf8))
        try writer.commit()
        #expect(try String(contentsOfFile: folder + "/victim", encoding: .utf8) == "victim\n")
        #expect(try String(contentsOfFile: folder + "/set.txt", encoding: .utf8) == "set\n")
        #expect(try Self.names(folder) == ["set.txt", "victim"])
    }

    /// The file's mode is 0666 less the umask (measured under umask 027 in a child process, so
    /// that this process's umask is never changed under the other tests).
    @Test func theModeHonoursTheUmask() throws {
        let folder = try Self.folder()
        let written = try AtomicFileWriter(replacing: folder + "/a")
        try written.commit()
        var info = stat()
        #expect(stat(folder + "/a", &info) == 0)
        let mask = Self.currentUmask()
        #expect(info.st_mode & 0o777 == 0o666 & ~mask, "mode \(String(info.st_mode & 0o777, radix: 8))")
    }

    /// The umask, read from /proc (reading it with umask(2) would change it for a moment).
    static func currentUmask() -> mode_t {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        return line.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) } ?? 0o022
    }

    @Test func aFolderThatCannotTakeAFileIsNamed() throws {
        let file = AtomicFile(path: "/nonexistent-folder/m.prom")
        #expect(throws: AtomicFileError.self) { try file.checkWritable(option: "--metrics-file") }
        do {
            try file.checkWritable(option: "--metrics-file")
        } catch {
            #expect(
                error.description
                    == "--metrics-file /nonexistent-folder/m.prom: cannot write in /nonexistent-folder: No such file or directory"
            )
        }
        do {
            try file.write([1])
        } catch {
            #expect(error.description.hasPrefix("/nonexistent-folder/m.prom: cannot create a temporary file"))
        }
    }

    @Test func leftoversOfAKilledRunAreRemovedByPrefix() throws {
        let folder = try Self.folder()
        let left = try AtomicFileWriter(replacing: folder + "/k.jwks", temporary: .unique(prefix: ".fetching-"))
        try Data().write(to: URL(fileURLWithPath: folder + "/k.jwks"))
        AtomicFileWriter.removeLeftovers(in: folder, prefix: ".fetching-")
        #expect(try Self.names(folder) == ["k.jwks"])
        _ = left
    }
}
