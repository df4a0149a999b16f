import TokenConcurrency

#if canImport(Glibc)
import Glibc
#endif

/// A download's temporary file: an ``AtomicFileWriter`` named `.fetching-NAME.XXXXXX` in the
/// folder of the file it may replace (a dotfile, which `verify` skips when it reads the folder),
/// committed over that file only once its contents are synced and checked.
extension AtomicFileWriter {
    /// The prefix of every temporary file `fetch` makes.
    static let fetchPrefix = ".fetching-"

    /// The temporary file for `path`, its failure a ``FetchError``.
    static func fetching(_ path: String) throws(FetchError) -> AtomicFileWriter {
        do { return try AtomicFileWriter(replacing: path, temporary: .unique(prefix: fetchPrefix)) } catch {
            throw FetchError(error.description)
        }
    }

    /// The file's first `count` bytes.
    func contents(count: Int) throws(FetchError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let read = bytes.withUnsafeMutableBytes {
                pread(descriptor, $0.baseAddress! + done, count - done, off_t(done))
            }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else {
                throw FetchError("cannot read back the temporary file \(temporaryPath): \(errnoText())")
            }
            done += read
        }
        return bytes
    }

    /// ``commit()``, its failure a ``FetchError``.
    func commitFetched() throws(FetchError) {
        do { try commit() } catch { throw FetchError(error.description) }
    }
}
