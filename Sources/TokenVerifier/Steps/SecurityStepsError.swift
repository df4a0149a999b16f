#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A step policy or device-steps file that cannot be loaded (SPEC §4b).
public struct SecurityStepsError: Error, CustomStringConvertible, Sendable {
    public var file: String
    /// 1-based line number, when the problem is on a line.
    public var line: Int?
    public var message: String

    public var description: String {
        line.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
    }
}

/// The 1-based line of byte `offset` in `bytes`.
func lineNumber(ofOffset offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var line = 1
    for index in 0..<min(offset, bytes.count) where bytes[index] == 0x0A { line += 1 }
    return line
}

/// Calls `body` with each line of a file (without its newline) and its 1-based number, streaming
/// the file through a 1 MiB buffer so that a large file is never held whole in memory; a line
/// longer than the buffer is gathered in a separate array. (The same loop as the revocation
/// loader's `forEachLine`, with this module's error; `what` names the file's kind in errors.)
func forEachStepLine(ofFile path: String, what: String,
                     _ body: (UnsafeBufferPointer<UInt8>, Int) throws(SecurityStepsError) -> Void) throws(SecurityStepsError) {
    func failure() -> SecurityStepsError {
        SecurityStepsError(file: path, line: nil, message: "cannot read \(what): \(String(cString: strerror(errno)))")
    }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure() }
    defer { close(descriptor) }
    var status = stat()
    if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
        throw SecurityStepsError(file: path, line: nil, message: "cannot read \(what): is a directory")
    }
    let capacity = 1 << 20
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var carried: [UInt8] = []
    var lineNumber = 0
    while true {
        let count = read(descriptor, buffer.baseAddress, capacity)
        if count < 0 {
            if errno == EINTR { continue }
            throw failure()
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
                try carried.withUnsafeBufferPointer { (line) throws(SecurityStepsError) in try body(line, lineNumber) }
                carried.removeAll(keepingCapacity: false)
            }
            start = end + 1
        }
    }
    if !carried.isEmpty {
        lineNumber += 1
        try carried.withUnsafeBufferPointer { (line) throws(SecurityStepsError) in try body(line, lineNumber) }
    }
}

/// Calls `body` with each line of `bytes` (without its newline) and its 1-based number.
func forEachStepLine(in bytes: UnsafeBufferPointer<UInt8>,
                     _ body: (UnsafeBufferPointer<UInt8>, Int) throws(SecurityStepsError) -> Void) throws(SecurityStepsError) {
    var lineStart = 0
    var number = 0
    while lineStart < bytes.count {
        number += 1
        let lineEnd = firstIndex(of: 0x0A, in: bytes, from: lineStart) ?? bytes.count
        try body(UnsafeBufferPointer(rebasing: bytes[lineStart..<lineEnd]), number)
        lineStart = lineEnd + 1
    }
}
