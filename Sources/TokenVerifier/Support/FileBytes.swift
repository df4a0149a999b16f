import TokenConcurrency
import TokenFormats

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Why a file could not be read.
package struct FileReadError: Error, CustomStringConvertible, Sendable {
    package var path: String
    package var reason: String
    package var description: String { "\(path): \(reason)" }
}

/// The most bytes each kind of file is read to (spec §3, §3b, §4, §4b, §7): a file option's
/// file that is larger is refused, naming the limit, before it costs memory.
package enum FileLimit {
    /// A key set (JWKS), as `verify --keys`, `keys list` and `fetch` read it: 16 MiB.
    package static let keySet = 16 << 20
    /// A PEM file of trust anchors (`--trust-anchors`): 16 MiB.
    package static let trustAnchors = 16 << 20
    /// A step policy (`--step-policy`): 16 MiB.
    package static let stepPolicy = 16 << 20
    /// A key or certificate file of the tools (`sign --key`, `--chain`, `keys import`,
    /// `certificate --key`, `--issuer-cert`, `fetch --ca-file`): 16 MiB.
    package static let keyFile = 16 << 20
    /// A file of JSON lines streamed through a buffer (`--revocations`, `--device-steps`): 16 GiB.
    package static let lineFile = 16 << 30
    /// One line of such a file: 1 MiB.
    package static let line = 1 << 20
}

/// Opens `path` for reading (without blocking, were it a FIFO without a writer) and checks the
/// open file with `fstat`: a regular file of at most `limit` bytes, else an error naming what it
/// is (a directory, a FIFO, a character or block device, a socket) or its size. Returns the
/// descriptor, which the caller closes, and the size.
func openRegularFile(_ path: String, limit: Int) throws(FileReadError) -> (descriptor: Int32, size: Int) {
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
        let reason = errnoText()
        // Opening a socket fails (ENXIO): say what it is rather than "No such device".
        var status = stat()
        if stat(path, &status) == 0, let kind = notRegularKind(status.st_mode) {
            throw FileReadError(path: path, reason: "is \(kind), not a regular file")
        }
        throw FileReadError(path: path, reason: reason)
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
        let reason = errnoText()
        close(descriptor)
        throw FileReadError(path: path, reason: reason)
    }
    if let kind = notRegularKind(status.st_mode) {
        close(descriptor)
        throw FileReadError(path: path, reason: "is \(kind), not a regular file")
    }
    let size = Int(status.st_size)
    guard size <= limit else {
        close(descriptor)
        throw FileReadError(path: path, reason: tooLarge(size, limit: limit))
    }
    return (descriptor, size)
}

/// What a file of mode `mode` is when it is not a regular file (`a FIFO (named pipe)`); nil for
/// a regular file.
package func notRegularKind(_ mode: mode_t) -> String? {
    switch mode & S_IFMT {
    case S_IFREG: nil
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO (named pipe)"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    default: "not a file"
    }
}

/// The reason for a file over its limit.
func tooLarge(_ size: Int?, limit: Int) -> String {
    let limitText = limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(limit) bytes"
    guard let size else { return "is larger than the limit of \(limitText) for this file" }
    return "is \(size) bytes, larger than the limit of \(limitText) for this file"
}

/// Reads a whole regular file of at most `limit` bytes into memory with `read(2)`, without
/// Foundation (`openRegularFile(_:limit:)` says what is refused). A file that grows past the
/// limit while it is read is refused too: at most `limit` + 1 bytes are ever read.
package func readFileBytes(_ path: String, limit: Int) throws(FileReadError) -> [UInt8] {
    let (descriptor, size) = try openRegularFile(path, limit: limit)
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size + 1)
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let wanted = min(chunk.count, limit - bytes.count + 1)
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
        if count < 0 {
            if errno == EINTR { continue }
            throw FileReadError(path: path, reason: errnoText())
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        if bytes.count > limit { throw FileReadError(path: path, reason: tooLarge(nil, limit: limit)) }
    }
    return bytes
}

/// `readFileBytes(_:limit:)` without a limit of its own, for a caller that checked the size
/// (status lists: `--max-status-list-bytes`); what is not a regular file is still refused.
func readFileBytes(_ path: String) throws(FileReadError) -> [UInt8] {
    try readFileBytes(path, limit: Int.max - 1)
}

/// Calls `body` with each line of a file (its bytes without the line break, and its 1-based
/// number), streaming the file through a 1 MiB buffer so that a large file is never held whole
/// in memory. The file must be regular and at most `limit` bytes, each line at most
/// `lineLimit` bytes. `readError` turns a failed open or read, or a file or line over its limit
/// (a reason in words), into the caller's error.
func forEachLine<E: Error>(
    ofFile path: String, limit: Int = FileLimit.lineFile, lineLimit: Int = FileLimit.line,
    readError: (String) -> E,
    _ body: (UnsafeBufferPointer<UInt8>, Int) throws(E) -> Void
) throws(E) {
    let descriptor: Int32
    do {
        descriptor = try openRegularFile(path, limit: limit).descriptor
    } catch {
        throw readError(error.reason)
    }
    defer { close(descriptor) }
    let capacity = 1 << 20
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
    defer { buffer.deallocate() }
    var splitter = LineSplitter(maxLineBytes: lineLimit)
    let each = { (number: Int, line: UnsafeBufferPointer<UInt8>?) throws(E) -> Void in
        guard let line else { throw readError("line \(number) is longer than \(lineLimit) bytes") }
        try body(line, number)
    }
    var total = 0
    while true {
        let count = read(descriptor, buffer.baseAddress, capacity)
        if count < 0 {
            if errno == EINTR { continue }
            throw readError(errnoText())
        }
        if count == 0 { break }
        total += count
        if total > limit { throw readError(tooLarge(nil, limit: limit)) }
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
