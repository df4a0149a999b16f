#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The files a live-state path stands for (spec §3, §4c): a file itself; a directory, its regular
/// files in name order, leaving out names that start with `.` (where a writer such as
/// `tokenverify fetch` keeps a download until it is checked and renamed into place).
package enum StatePaths {
    /// Every file `paths` stand for, in order; a path that is missing is kept (its reader says
    /// why it cannot be read).
    package static func expand(_ paths: [String]) -> [String] {
        paths.flatMap { path -> [String] in
            guard isDirectory(path) else { return [path] }
            return regularFiles(in: path)
        }
    }

    /// Whether `path` is a directory.
    package static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// The regular files of `directory` (symbolic links followed), not hidden, in name order.
    static func regularFiles(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name.hasPrefix(".") { continue }
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            var status = stat()
            if stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG { names.append(path) }
        }
        return names.sorted()
    }
}
