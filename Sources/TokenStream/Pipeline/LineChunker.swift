import LineProtocol
import TokenVerifier

/// A run of input lines, the unit of work handed to a worker, with the snapshot of the live
/// state they are checked against (taken by the reader when it cut the chunk, in line order).
struct LineChunk: Sendable {
    var sequence: Int
    /// The block read, shared by every chunk cut from it, and this chunk's lines of it.
    var block: LineBlock
    var lines: Range<Int>
    var snapshot: VerifierSnapshot
}

/// Cuts the input stream into the line protocol's lines (through ``LineSplitter``: LF or CR LF,
/// the last line needs no newline, a line over `maxLineBytes` never held), trims the spaces and
/// tabs around each, and skips blank lines (counting them). A UTF-8 byte order mark at the very
/// start of the input is not part of the first line.
struct LineChunker {
    private var splitter: LineSplitter
    /// Complete lines not yet taken, back to back in one block.
    private(set) var pending = LineBlock()

    init(maxLineBytes: Int) {
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
    }

    /// Feeds bytes just read.
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>) {
        var lines = LineBlock()
        swap(&lines, &pending)
        // Room for every line this read completes (the part of a line carried from the reads
        // before is held by the splitter, and at most one such line is completed).
        lines.reserveCapacity(forMoreBytes: buffer.count + splitter.carriedCount)
        splitter.feed(buffer) { number, line in Self.collect(number, line, into: &lines) }
        swap(&lines, &pending)
    }

    /// Ends the input: a last line without a newline counts as a line.
    mutating func finish() {
        var lines = LineBlock()
        swap(&lines, &pending)
        splitter.feed(nil) { number, line in Self.collect(number, line, into: &lines) }
        swap(&lines, &pending)
    }

    /// Takes the complete lines collected so far.
    mutating func takePending() -> LineBlock {
        defer { pending = LineBlock() }
        return pending
    }

    private static func collect(_ number: Int, _ line: UnsafeBufferPointer<UInt8>?, into lines: inout LineBlock) {
        guard let line else {
            lines.append(number: number, bytes: nil)
            return
        }
        var trimmed = trimmingBlanks(line)
        if number == 1, trimmed.starts(with: [0xEF, 0xBB, 0xBF]) {
            trimmed = trimmingBlanks(UnsafeBufferPointer(rebasing: trimmed[3...]))
        }
        if !trimmed.isEmpty { lines.append(number: number, bytes: trimmed) }
    }
}
