#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's device and inode: two paths to the same file have the same identity.
struct FileIdentity: Hashable {
    var device: UInt64
    var inode: UInt64

    /// nil when the file cannot be examined (reading it says why).
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
