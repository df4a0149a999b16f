#if canImport(Glibc)
import Glibc
#endif

/// Writes answer bytes to a file descriptor in large writes. A closed reader (EPIPE) is
/// remembered, not fatal: the run then ends quietly.
final class OutputChannel: @unchecked Sendable {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private let flushThreshold: Int
    private(set) var isClosed = false

    init(descriptor: Int32, flushThreshold: Int = 1 << 16) {
        self.descriptor = descriptor
        self.flushThreshold = flushThreshold
        buffer.reserveCapacity(flushThreshold * 2)
    }

    /// Appends bytes; writes once the buffer is large.
    func append(_ bytes: [UInt8]) {
        if isClosed { return }
        buffer.append(contentsOf: bytes)
        if buffer.count >= flushThreshold { flush() }
    }

    /// Writes everything buffered.
    func flush() {
        if isClosed {
            buffer.removeAll(keepingCapacity: true)
            return
        }
        if !Self.writeAll(buffer, to: descriptor) { isClosed = true }  // EPIPE or another write error: stop writing
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes all of `bytes` to `descriptor`; false on a write error (EPIPE included).
    static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
