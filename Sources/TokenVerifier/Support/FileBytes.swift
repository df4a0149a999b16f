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

/// Calls `body` with each line of a file (without its newline), streaming it through a 1 MiB
/// buffer so that a large file is never held whole in memory. A line longer than the buffer is
/// gathered in a separate array.
func forEachLine(ofFile path: String, _ body: (UnsafeBufferPointer<UInt8>, Int) throws(RevocationListError) -> Void) throws(RevocationListError) {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
        throw RevocationListError(file: path, line: nil, message: "cannot read revocation file: \(String(cString: strerror(errno)))")
    }
    defer { close(descriptor) }
    let capacity = 1 << 20
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var carried: [UInt8] = []
    var lineNumber = 0
    while true {
        let count = read(descriptor, buffer.baseAddress, capacity)
        if count < 0 {
            if errno == EINTR { continue }
            throw RevocationListError(file: path, line: nil, message: "cannot read revocation file: \(String(cString: strerror(errno)))")
        }
        if count == 0 { break }
        var start = 0
        while start < count {
            guard let found = memchr(buffer.baseAddress! + start, 0x0A, count - start) else {
                carried.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<count]))
                break
            }
            let end = UnsafeMutableRawPointer(found).assumingMemoryBound(to: UInt8.self) - buffer.baseAddress!
            lineNumber += 1
            if carried.isEmpty {
                try body(UnsafeBufferPointer(rebasing: buffer[start..<end]), lineNumber)
            } else {
                carried.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<end]))
                try carried.withUnsafeBufferPointer { (line) throws(RevocationListError) in try body(line, lineNumber) }
                carried.removeAll(keepingCapacity: false)
            }
            start = end + 1
        }
    }
    if !carried.isEmpty {
        lineNumber += 1
        try carried.withUnsafeBufferPointer { (line) throws(RevocationListError) in try body(line, lineNumber) }
    }
}
