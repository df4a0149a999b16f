#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file replaced whole, never seen half-written: the one way the project writes a file that
/// others read (the metrics and summary files, `fetch`'s downloads and state, `gen`'s sets).
/// The bytes go to a temporary file in the same folder (so the same file system), created
/// exclusively (`O_EXCL`: never through a symbolic link, never over another writer's file), with
/// mode 0666 less the process's umask (applied by the kernel); it is synced, renamed over the path, and the folder is
/// synced after. A reader opens either the previous file or the new one; a symbolic link at the
/// path is replaced, never written through. Measure: `strace -e trace=openat,fsync,rename`.
package final class AtomicFileWriter {
    /// How the temporary file is named.
    package enum Temporary: Sendable {
        /// `PREFIX` + the file's name + `.XXXXXX` (six random characters): a dotfile for a
        /// prefix starting with ".", which folder readers skip.
        case unique(prefix: String)
        /// The file's name + `suffix` (`gen`'s `NAME.partial`); a file left there is removed
        /// first (the name itself, never what a link there points to).
        case suffix(String)
    }

    /// The file replaced.
    package let path: String
    /// Where the bytes go until ``commit()``.
    package let temporaryPath: String
    /// The temporary file's descriptor (−1 once committed or discarded), for writers that write
    /// themselves (`fetch`'s downloads).
    package private(set) var descriptor: Int32
    private var committed = false

    /// Creates the temporary file for `path`; throws a sentence naming the folder and why.
    package init(replacing path: String, temporary: Temporary = .unique(prefix: ".")) throws(AtomicFileError) {
        self.path = path
        let folder = Self.folder(of: path)
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let stem = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        let created: (descriptor: Int32, path: String)
        switch temporary {
        case .unique(let prefix):
            created = Self.createUnique("\(stem)\(prefix)\(name).")
        case .suffix(let suffix):
            unlink(path + suffix)
            created = (open(path + suffix, Self.creationFlags, 0o666), path + suffix)
        }
        guard created.descriptor >= 0 else {
            let code = errno
            throw AtomicFileError("cannot create a temporary file in \(folder): \(errnoText(code))", code: code)
        }
        descriptor = created.descriptor
        temporaryPath = created.path
    }

    deinit { discard() }

    /// Appends `bytes` to the temporary file (retrying short writes and EINTR).
    package func write(_ bytes: [UInt8]) throws(AtomicFileError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                throw AtomicFileError("cannot write \(temporaryPath): \(errnoText())")
            }
            offset += written
        }
    }

    /// Syncs and closes the temporary file, renames it over ``path`` and syncs the folder. On a
    /// failure the temporary file is removed and the previous file stays as it was.
    package func commit() throws(AtomicFileError) {
        var failure: String?
        if fsync(descriptor) != 0 { failure = "cannot sync \(temporaryPath): \(errnoText())" }
        if Glibc.close(descriptor) != 0, failure == nil { failure = "cannot close \(temporaryPath): \(errnoText())" }
        descriptor = -1
        if failure == nil, rename(temporaryPath, path) != 0 {
            failure = "cannot rename \(temporaryPath) to \(path): \(errnoText())"
        }
        if let failure {
            discard()
            throw AtomicFileError(failure)
        }
        committed = true
        let folder = open(Self.folder(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            Glibc.close(folder)
        }
    }

    /// Closes and removes the temporary file, unless it was committed (after a stop or an error).
    package func discard() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
        if !committed {
            unlink(temporaryPath)
            committed = true
        }
    }

    /// Removes the temporary files named `.unique(prefix:)` that a killed run left in `folder`.
    package static func removeLeftovers(in folder: String, prefix: String) {
        guard !prefix.isEmpty, let directory = opendir(folder) else { return }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        for name in names { unlink("\(folder)/\(name)") }
    }

    /// The folder `path` is in.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// A new file only (never an existing one, never through a symbolic link), read back by
    /// `fetch` before it is committed.
    static let creationFlags = O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW

    /// Creates `stem` + six random letters or digits (as `mkstemp(3)` names, but with mode 0666
    /// less the umask, which the kernel applies: no umask read, no race with other threads).
    static func createUnique(_ stem: String) -> (descriptor: Int32, path: String) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        var generator = SystemRandomNumberGenerator()
        var path = stem
        for _ in 0..<100 {
            path = stem + String((0..<6).map { _ in letters.randomElement(using: &generator)! })
            let descriptor = open(path, creationFlags, 0o666)
            if descriptor >= 0 || errno != EEXIST { return (descriptor, path) }
        }
        return (-1, path)
    }
}

/// A file written whole in one call (``AtomicFileWriter`` for bytes at hand): the metrics and
/// summary files.
package struct AtomicFile: Sendable {
    package let path: String

    package init(path: String) {
        self.path = path
    }

    /// Checks, before a run starts, that the file can be written where it is named: the path is
    /// not a folder and its folder takes a new file (one is made there and removed). Throws a
    /// sentence naming the option, the path and why.
    package func checkWritable(option: String) throws(AtomicFileError) {
        guard !path.isEmpty else { throw AtomicFileError("\(option) needs a path") }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw AtomicFileError("\(option) \(path): a directory, not a file")
        }
        do {
            try AtomicFileWriter(replacing: path).discard()
        } catch {
            let folder = AtomicFileWriter.folder(of: path)
            throw AtomicFileError("\(option) \(path): cannot write in \(folder): \(errnoText(error.code))")
        }
    }

    /// Replaces the file with `bytes`; throws a sentence naming the path and why (the previous
    /// file, if any, stays as it was, and no temporary file is left).
    package func write(_ bytes: [UInt8]) throws(AtomicFileError) {
        do {
            let writer = try AtomicFileWriter(replacing: path)
            try writer.write(bytes)
            try writer.commit()
        } catch {
            throw AtomicFileError("\(path): \(error.description)", code: error.code)
        }
    }
}

/// Why a file could not be written: one sentence.
package struct AtomicFileError: Error, CustomStringConvertible, Sendable {
    package let description: String
    /// The `errno` of the call that failed (0: none).
    package let code: Int32

    package init(_ description: String, code: Int32 = 0) {
        self.description = description
        self.code = code
    }
}
