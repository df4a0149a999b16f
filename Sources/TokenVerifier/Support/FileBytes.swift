#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file could not be read.
public struct FileReadError: Error, CustomStringConvertible, Sendable {
    public var path: String
    public var reason: String
    public var description: String { "\(path): \(reason)" }
}

/// Reads a whole file into memory with `read(2)`, without Foundation.
func readFileBytes(_ path: String) throws(FileReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileReadError(path: path, reason: String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
        throw FileReadError(path: path, reason: "is a directory")
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(max(Int(status.st_size), 0) + 1)
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileReadError(path: path, reason: String(cString: strerror(errno)))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}
