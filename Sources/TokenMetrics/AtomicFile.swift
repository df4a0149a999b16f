#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file replaced whole, never seen half-written: the bytes go to a temporary file beside it
/// (same folder, so the same file system), are synced, and the temporary file is renamed over
/// the path; the folder is synced after. A reader (node_exporter's textfile collector, a batch
/// job) opens either the previous file or the new one.
public struct AtomicFile: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The folder the file is in.
    var folder: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let folder = String(path[..<slash])
        return folder.isEmpty ? "/" : folder
    }

    /// The temporary file's path: a dotfile beside the target (node_exporter reads `*.prom` only).
    var temporaryPath: String {
        let name = path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
        let prefix = path.lastIndex(of: "/").map { String(path[...$0]) } ?? ""
        return "\(prefix).\(name).\(getpid()).tmp"
    }

    /// Checks, before a run starts, that the file can be written where it is named: the path is
    /// not a folder and its folder takes a new file (one is made there and removed). Throws a
    /// sentence naming the path and why.
    public func checkWritable(option: String) throws(AtomicFileError) {
        guard !path.isEmpty else { throw AtomicFileError("\(option) needs a path") }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw AtomicFileError("\(option) \(path): a directory, not a file")
        }
        let probe = temporaryPath
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else {
            throw AtomicFileError("\(option) \(path): cannot write in \(folder): \(Self.errnoText())")
        }
        close(descriptor)
        unlink(probe)
    }

    /// Replaces the file with `bytes`; throws a sentence naming the path and why (the previous
    /// file, if any, stays as it was, and no temporary file is left).
    public func write(_ bytes: [UInt8]) throws(AtomicFileError) {
        let temporary = temporaryPath
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw AtomicFileError("\(path): cannot create \(temporary): \(Self.errnoText())") }
        var failure: String?
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = "writing \(temporary): \(Self.errnoText())"
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "syncing \(temporary): \(Self.errnoText())" }
        if close(descriptor) != 0, failure == nil { failure = "closing \(temporary): \(Self.errnoText())" }
        if failure == nil, rename(temporary, path) != 0 { failure = "renaming into place: \(Self.errnoText())" }
        if let failure {
            unlink(temporary)
            throw AtomicFileError("\(path): \(failure)")
        }
        let folderDescriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderDescriptor >= 0 {
            _ = fsync(folderDescriptor)
            close(folderDescriptor)
        }
    }

    static func errnoText() -> String { String(cString: strerror(errno)) }
}

/// Why a file could not be written: one sentence.
public struct AtomicFileError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
