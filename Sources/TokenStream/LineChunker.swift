#if canImport(Glibc)
import Glibc
#endif
import TokenVerifier

/// A run of input lines, the unit of work handed to a worker.
struct LineChunk {
    var sequence: Int
    /// Each line's number and trimmed bytes; nil bytes for a line longer than the limit.
    var lines: [(number: Int, bytes: [UInt8]?)]
}

/// Cuts a byte stream into lines (LF or CRLF; the last line needs no newline), trims spaces and
/// tabs, skips blank lines (counting them), and never holds more than `maxLineBytes` of one line:
/// a longer line is reported as oversized and the rest of it is discarded as it streams past.
/// The limit counts every byte of the line, surrounding spaces and tabs included, but not its
/// line break (LF or CR LF), as SPEC §6 states it. A line of blanks only is blank at any length.
struct LineChunker {
    let maxLineBytes: Int
    private(set) var lineNumber = 0
    private var partial: [UInt8] = []
    private var partialOversized = false
    /// Every byte of the current line so far, leading blanks (not kept) included.
    private var lineLength = 0
    /// Whether the discarded part of an oversized line held more than blanks.
    private var oversizedNonBlank = false
    /// Complete lines not yet taken.
    private(set) var pending: [(number: Int, bytes: [UInt8]?)] = []

    init(maxLineBytes: Int) {
        self.maxLineBytes = maxLineBytes
    }

    /// Feeds bytes just read.
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>) {
        var start = 0
        let count = buffer.count
        while start < count {
            // Find the end of the line within this buffer.
            guard let found = memchr(buffer.baseAddress! + start, 0x0A, count - start) else {
                appendPartial(UnsafeBufferPointer(rebasing: buffer[start...]))
                return
            }
            let newline = start + UnsafeRawPointer(found).distance(to: UnsafeRawPointer(buffer.baseAddress! + start)) * -1
            if lineLength == 0 && !partialOversized {
                // The whole line is in this buffer: taken from it in one copy, by the same rules.
                let line = UnsafeBufferPointer(rebasing: buffer[start..<newline])
                let length = line.count - (line.last == 0x0D ? 1 : 0)
                partialOversized = length > maxLineBytes && !Self.droppingLeadingBlanks(line).isEmpty
                endLine(line)
                partialOversized = false
            } else {
                appendPartial(UnsafeBufferPointer(rebasing: buffer[start..<newline]))
                endPartialLine()
            }
            start = newline + 1
        }
    }

    /// Ends the input: a last line without a newline counts as a line.
    mutating func finish() {
        if lineLength > 0 { endPartialLine() }
    }

    /// Ends the line collected in `partial` and starts a new one.
    private mutating func endPartialLine() {
        if !partialOversized && lineLength > maxLineBytes && partial.last != 0x0D {
            // One byte over the limit is within it only when that byte is the CR of a CR LF.
            partialOversized = true
            oversizedNonBlank = !partial.isEmpty
        }
        if partialOversized && !oversizedNonBlank {
            lineNumber += 1   // blanks only: a blank line, however long
        } else {
            let line = partial
            line.withUnsafeBufferPointer { endLine($0) }
        }
        partial.removeAll(keepingCapacity: partial.capacity <= 1 << 16)
        partialOversized = false
        oversizedNonBlank = false
        lineLength = 0
    }

    /// Takes the complete lines collected so far.
    mutating func takePending() -> [(number: Int, bytes: [UInt8]?)] {
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
    }


    private mutating func appendPartial(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.isEmpty { return }
        lineLength += bytes.count
        if partialOversized {
            if !oversizedNonBlank { oversizedNonBlank = !Self.droppingLeadingBlanks(bytes).isEmpty }
            return
        }
        var bytes = bytes
        if partial.isEmpty {
            // Leading white space counts but is dropped at once, so it never accumulates.
            bytes = Self.droppingLeadingBlanks(bytes)
        }
        if lineLength > maxLineBytes + 1 {
            // Over the limit even if its last byte turns out to be the CR of a CR LF.
            partialOversized = true
            oversizedNonBlank = !partial.isEmpty || !bytes.isEmpty
            partial = []
            return
        }
        partial.append(contentsOf: bytes)
    }

    /// Ends a line whose bytes (untrimmed, unless the line was cut short as oversized) are
    /// `bytes`; the caller then resets the partial line.
    private mutating func endLine(_ bytes: UnsafeBufferPointer<UInt8>) {
        lineNumber += 1
        if partialOversized {
            pending.append((lineNumber, nil))
            return
        }
        var line = RequestLine.trimmed(bytes)
        if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) {
            // A UTF-8 byte order mark at the very start of the input is not part of the line.
            line = RequestLine.trimmed(UnsafeBufferPointer(rebasing: line[3...]))
        }
        if !line.isEmpty { pending.append((lineNumber, Array(line))) }
    }

    /// `bytes` without the spaces, tabs and carriage returns it starts with.
    private static func droppingLeadingBlanks(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        while start < bytes.count, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0D { start += 1 }
        return UnsafeBufferPointer(rebasing: bytes[start...])
    }
}
