#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Cuts a byte stream into lines: the one line splitter of the project (the `verify` input, the
/// revocation and step files). A line ends at LF; a CR right before the LF belongs to the line
/// break. The last line needs no newline.
///
/// A line is at most `maxLineBytes` long, counting every byte but its line break (spec §6): a
/// longer line is reported as oversized and the rest of it is discarded as it streams past, so a
/// line is never held beyond the limit (plus one byte, a possible CR). A line of nothing but
/// spaces, tabs and CRs is blank at any length: it is reported empty, not oversized.
package struct LineSplitter {
    let maxLineBytes: Int
    /// Lines ended so far.
    private(set) var lineNumber = 0
    private var partial: [UInt8] = []
    private var partialOversized = false
    /// The oversized line being discarded held a byte other than a blank.
    private var oversizedHasContent = false

    package init(maxLineBytes: Int = .max) {
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds bytes just read, or nil at the end of the input (then a last line without a newline
    /// counts as a line); calls `body` for each line completed, with the line's 1-based number and
    /// its bytes (without the line break), or nil when it is longer than the limit.
    package mutating func feed<E: Error>(
        _ buffer: UnsafeBufferPointer<UInt8>?,
        _ body: (Int, UnsafeBufferPointer<UInt8>?) throws(E) -> Void
    ) throws(E) {
        guard let buffer else {
            if !partial.isEmpty || partialOversized { try endPartial(body) }
            return
        }
        var start = 0
        while start < buffer.count {
            guard let newline = Self.newline(in: buffer, from: start) else {
                appendPartial(UnsafeBufferPointer(rebasing: buffer[start...]))
                return
            }
            if partial.isEmpty && !partialOversized {
                // The whole line is in this buffer: no copy.
                try end(UnsafeBufferPointer(rebasing: buffer[start..<newline]), body)
            } else {
                appendPartial(UnsafeBufferPointer(rebasing: buffer[start..<newline]))
                try endPartial(body)
            }
            start = newline + 1
        }
    }

    /// Feeds bytes as ``feed(_:_:)`` does, except that an unfinished last line is not held here:
    /// returns where it starts (`buffer.count` when there is none), and the caller presents those
    /// bytes again at the front of the next ones, so that every line it gets lies in the caller's
    /// own buffer. An unfinished line already over the limit is taken and discarded as it
    /// streams, as `feed` does, so what the caller carries is never more than the limit and one
    /// byte. Its first `newlineFree` bytes are known to hold no line break (the bytes carried).
    ///
    /// A splitter is fed one way or the other, never both; ``finishCarrying(_:_:)`` ends it.
    package mutating func feedCarrying<E: Error>(
        _ buffer: UnsafeBufferPointer<UInt8>, newlineFree: Int = 0,
        _ body: (Int, UnsafeBufferPointer<UInt8>?) throws(E) -> Void
    ) throws(E) -> Int {
        precondition(partial.isEmpty, "a splitter fed both ways")
        var start = 0
        var searchFrom = min(newlineFree, buffer.count)
        while start < buffer.count {
            guard let newline = Self.newline(in: buffer, from: searchFrom) else {
                let rest = UnsafeBufferPointer(rebasing: buffer[start...])
                // One byte over the limit may stay: it may be the CR of a CR LF line break.
                if !partialOversized && rest.count - 1 <= maxLineBytes { return start }
                appendPartial(rest)
                return buffer.count
            }
            if partialOversized {
                appendPartial(UnsafeBufferPointer(rebasing: buffer[start..<newline]))
                try endPartial(body)
            } else {
                try end(UnsafeBufferPointer(rebasing: buffer[start..<newline]), body)
            }
            start = newline + 1
            searchFrom = start
        }
        return buffer.count
    }

    /// Ends input fed through ``feedCarrying(_:newlineFree:_:)``: `carried`, the unfinished
    /// line it left, counts as a last line without a newline.
    package mutating func finishCarrying<E: Error>(
        _ carried: UnsafeBufferPointer<UInt8>,
        _ body: (Int, UnsafeBufferPointer<UInt8>?) throws(E) -> Void
    ) throws(E) {
        if partialOversized {
            try endPartial(body)
        } else if !carried.isEmpty {
            try end(carried, body)
        }
    }

    private mutating func appendPartial(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.isEmpty { return }
        if partialOversized {
            if !oversizedHasContent { oversizedHasContent = !Self.isBlank(bytes) }
            return
        }
        // One byte over the limit is kept: it may be the CR of a CR LF line break.
        if partial.count + bytes.count - 1 > maxLineBytes {
            partialOversized = true
            oversizedHasContent = !partial.withUnsafeBufferPointer(Self.isBlank) || !Self.isBlank(bytes)
            partial = []
            return
        }
        partial.append(contentsOf: bytes)
    }

    private mutating func endPartial<E: Error>(_ body: (Int, UnsafeBufferPointer<UInt8>?) throws(E) -> Void) throws(E) {
        let line = partial
        partial.removeAll(keepingCapacity: partial.capacity <= 1 << 16)
        let oversized = partialOversized
        partialOversized = false
        if oversized {
            lineNumber += 1
            let blank = !oversizedHasContent
            oversizedHasContent = false
            try body(lineNumber, blank ? UnsafeBufferPointer(start: nil, count: 0) : nil)
        } else {
            try line.withUnsafeBufferPointer { (buffer) throws(E) in try end(buffer, body) }
        }
    }

    /// Ends a line whose bytes, line break excepted (a CR before the LF still included), are `bytes`.
    private mutating func end<E: Error>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        _ body: (Int, UnsafeBufferPointer<UInt8>?) throws(E) -> Void
    ) throws(E) {
        lineNumber += 1
        var count = bytes.count
        if count > 0, bytes[count - 1] == 0x0D { count -= 1 }
        if count > maxLineBytes {
            try body(lineNumber, Self.isBlank(bytes) ? UnsafeBufferPointer(start: nil, count: 0) : nil)
        } else {
            try body(lineNumber, UnsafeBufferPointer(rebasing: bytes[..<count]))
        }
    }

    /// The index of the first LF in `buffer` at or after `start` (memchr: vectorised).
    @inline(__always)
    private static func newline(in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard start < buffer.count, let base = buffer.baseAddress,
            let found = memchr(base + start, 0x0A, buffer.count - start)
        else { return nil }
        return UnsafeRawPointer(found) - UnsafeRawPointer(base)
    }

    private static func isBlank(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy(isLineBlank)
    }
}
