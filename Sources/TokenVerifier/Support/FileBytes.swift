import TokenEncoding

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

/// Calls `body` with each line of a file (its bytes without the line break, and its 1-based
/// number), streaming the file through a 1 MiB buffer so that a large file is never held whole
/// in memory. `readError` turns a failed open or read (its `strerror` text) into the caller's error.
func forEachLine<E: Error>(
    ofFile path: String, readError: (String) -> E,
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(E) -> Void
) throws(E) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw readError(String(cString: strerror(errno))) }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR { throw readError("is a directory") }
    let capacity = 1 << 20
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var splitter = LineSplitter()
    let each = { (number: Int, line: UnsafeBufferPointer<UInt8>?) throws(E) -> Void in try body(line!, number) }
    while true {
        let count = read(descriptor, buffer.baseAddress, capacity)
        if count < 0 {
            if errno == EINTR { continue }
            throw readError(String(cString: strerror(errno)))
        }
        if count == 0 { break }
        try splitter.feed(UnsafeBufferPointer(rebasing: buffer[0..<count]), each)
    }
    try splitter.feed(nil, each)
}

/// Calls `body` with each line of `bytes` held in memory, as ``forEachLine(ofFile:readError:_:)`` does.
func forEachLine<E: Error>(
    in bytes: UnsafeBufferPointer<UInt8>,
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(E) -> Void
) throws(E) {
    var splitter = LineSplitter()
    let each = { (number: Int, line: UnsafeBufferPointer<UInt8>?) throws(E) -> Void in try body(line!, number) }
    try splitter.feed(bytes, each)
    try splitter.feed(nil, each)
}
