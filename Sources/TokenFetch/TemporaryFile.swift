import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A download's temporary file: `.fetching-NAME.XXXXXX` in the folder of the file it may replace
/// (a dotfile, which `verify` skips when it reads the folder), renamed over that file only once
/// its contents are synced and checked.
final class TemporaryFile {
    /// The prefix of every temporary file `fetch` makes.
    static let prefix = ".fetching-"

    let path: String
    private(set) var fd: Int32
    private var done = false

    /// Creates the file (mode 0666 less the umask, like a file a back office writes; `mkstemp`
    /// creates it exclusively, so never through a symbolic link).
    init(in folder: String, for name: String) throws(FetchError) {
        var template = Array("\(folder)/\(TemporaryFile.prefix)\(name).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw FetchError("cannot create a temporary file in \(folder): \(errnoText())") }
        fchmod(fd, creationMode)
        self.fd = fd
        self.path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { discard() }

    /// The file's first `count` bytes.
    func contents(count: Int) throws(FetchError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(done)) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { throw FetchError("cannot read back the temporary file \(path): \(errnoText())") }
            done += read
        }
        return bytes
    }

    /// Syncs the file, renames it to `destination` (in the same folder) and syncs the folder.
    func commit(as destination: String) throws(FetchError) {
        guard fsync(fd) == 0 else { throw FetchError("cannot sync \(path): \(errnoText())") }
        guard rename(path, destination) == 0 else {
            throw FetchError("cannot rename \(path) to \(destination): \(errnoText())")
        }
        done = true
        close(fd)
        fd = -1
        let folder = open((destination as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY)
        if folder >= 0 {
            fsync(folder)
            close(folder)
        }
    }

    /// Closes and removes the file, unless it was committed.
    func discard() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        if !done {
            unlink(path)
            done = true
        }
    }

    /// Removes temporary files a killed run left in `folder`.
    static func removeLeftovers(in folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name.hasPrefix(prefix) { unlink("\(folder)/\(name)") }
    }
}

/// The text of the current `errno`.
func errnoText() -> String { String(cString: strerror(errno)) }

/// Why one URL could not be fetched, or a file not written: one sentence.
public struct FetchError: Error, CustomStringConvertible, Sendable {
    public var description: String
    /// Why a download that passed verify's checks may still not replace the file in place
    /// (spec §7); nil for a failure.
    public var refusal: RefusalReason?
    /// A download that passed verify's checks but may not replace the file in place.
    public var isRefusal: Bool { refusal != nil }

    public init(_ description: String) {
        self.description = description
        refusal = nil
    }

    /// A refusal by one of spec §7's rules.
    public init(refused description: String, reason: RefusalReason) {
        self.description = description
        refusal = reason
    }
}

/// Why `fetch` kept a file rather than write a download (the `reason` label of the metrics'
/// refusal counter).
public enum RefusalReason: String, Sendable, CaseIterable {
    /// The download fails the checks `verify` makes (a bad key set, signature, `typ`, `sub`).
    case invalid
    /// A status list older than the URL's floor, or as old with other entries.
    case rollback
    /// A status list whose `exp` has passed.
    case expired
    /// A status list issued more than `--leeway` in the future.
    case future
    /// A status list of another issuer than the URL's lists.
    case otherIssuer = "other_issuer"
    /// A key set that brings back a `kid` the URL's key sets dropped.
    case retiredKey = "retired_key"
}

/// The mode of a file `fetch` creates: 0666 less the process's umask, read once.
let creationMode: mode_t = {
    let mask = umask(0o022)
    umask(mask)
    return 0o666 & ~mask
}()
