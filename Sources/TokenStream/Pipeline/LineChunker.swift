import LineProtocol
import TokenFormats
import TokenVerifier

/// A run of input lines, the unit of work handed to a worker, with the snapshot of the live
/// state they are checked against (taken by the reader when it cut the chunk, in line order).
struct LineChunk: Sendable {
    var sequence: Int
    /// The block read, shared by every chunk cut from it, and this chunk's lines of it.
    var block: LineBlock
    var lines: Range<Int>
    var snapshot: VerifierSnapshot
    /// When its lines were read (``DispatchTime``'s nanoseconds), for the metrics; 0 without them.
    var readAt: UInt64 = 0
}

/// Cuts the input stream into the line protocol's lines (through ``LineSplitter``: LF or CR LF,
/// the last line needs no newline, a line over `maxLineBytes` never held), trims the spaces and
/// tabs around each, and skips blank lines (counting them). A UTF-8 byte order mark at the very
/// start of the input is not part of the first line.
///
/// Input is read straight into the block its lines are handed out in: a line is marked where it
/// lies, not copied. An unfinished last line is carried to the front of the next read's block
/// (at most the limit and one byte). A read is given room for a quarter more than the one before
/// it brought, or twice its room when it filled it (at least 16 KiB, at most what the caller
/// allows), so whatever reads bring (a megabyte from a file, 64 KiB through a pipe, a line from
/// a person) a block holds little more than its bytes, and blocks stay below the allocator's
/// 128 KiB `mmap` threshold where reads are small; a read that fills under a quarter of its room
/// all the same gets a block of its own size.
struct LineChunker {
    private var splitter: LineSplitter
    /// Complete lines not yet taken.
    private(set) var pending = LineBlock()
    /// The unfinished last line read so far: no line break in it, at most the limit and a byte.
    private var carried: [UInt8] = []
    /// Room for the next read (nil before the first read).
    private var nextRoom: Int?
    /// The least room a read is given.
    static let leastRoom = 16 * 1024

    init(maxLineBytes: Int) {
        splitter = LineSplitter(maxLineBytes: maxLineBytes)
    }

    /// The bytes of the unfinished line carried to the next read.
    var carriedCount: Int { carried.count }

    /// Reads through `fill` into a new block and collects the lines completed. `fill` gets room
    /// for up to `maxBytes` (less after short reads) and returns what it put there, 0 at the end
    /// of the input or a negative number on an error, as `read(2)` does; that is what this
    /// returns.
    mutating func read(maxBytes: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Int) -> Int {
        let carriedCount = carried.count
        let room = min(maxBytes, nextRoom ?? maxBytes)
        var result = 0
        var bytes = [UInt8](unsafeUninitializedCapacity: carriedCount + room) { buffer, initialized in
            _ = UnsafeMutableBufferPointer(rebasing: buffer[..<carriedCount]).initialize(fromContentsOf: carried)
            result = fill(UnsafeMutableBufferPointer(rebasing: buffer[carriedCount..<carriedCount + room]))
            initialized = carriedCount + max(0, min(result, room))
        }
        guard result > 0 else { return result }
        nextRoom = result == room ? 2 * room : max(Self.leastRoom, result + result / 4)
        if result < room / 4 {
            // A short read (an interactive producer's line): a block of its own size.
            bytes = [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, initialized in
                initialized = buffer.initialize(fromContentsOf: bytes)
            }
        }
        collect(bytes, newlineFree: carriedCount)
        return result
    }

    /// Ends the input: a last line without a newline counts as a line.
    mutating func finish() {
        var lines = LineBlock()
        swap(&lines, &pending)
        let last = carried
        carried = []
        last.withUnsafeBufferPointer { last in
            splitter.finishCarrying(last) { number, line in Self.copy(number, line, into: &lines) }
        }
        swap(&lines, &pending)
    }

    /// Takes the complete lines collected so far.
    mutating func takePending() -> LineBlock {
        defer { pending = LineBlock() }
        return pending
    }

    /// Marks the lines `bytes` completes in a block over them, and carries its unfinished end.
    private mutating func collect(_ bytes: [UInt8], newlineFree: Int) {
        var block = LineBlock(holding: bytes)
        let unfinished = bytes.withUnsafeBufferPointer { buffer in
            splitter.feedCarrying(buffer, newlineFree: newlineFree) { number, line in
                Self.mark(number, line, of: buffer, into: &block)
            }
        }
        carried.removeAll(keepingCapacity: true)
        carried.append(contentsOf: bytes[unfinished...])
        guard !pending.isEmpty else {
            pending = block
            return
        }
        // Lines not yet taken: the new ones join their block.
        bytes.withUnsafeBufferPointer { buffer in
            for entry in block.entries {
                pending.append(
                    number: entry.number, bytes: entry.range.map { UnsafeBufferPointer(rebasing: buffer[$0]) })
            }
        }
    }

    /// The range of `line` (a line of `buffer`, nil when oversized), trimmed, in `block`.
    private static func mark(
        _ number: Int, _ line: UnsafeBufferPointer<UInt8>?, of buffer: UnsafeBufferPointer<UInt8>,
        into block: inout LineBlock
    ) {
        guard let line else {
            block.appendLine(number: number, range: nil)
            return
        }
        let trimmed = trimmedLine(number, line)
        guard !trimmed.isEmpty else { return }
        let start = trimmed.baseAddress! - buffer.baseAddress!
        block.appendLine(number: number, range: start..<start + trimmed.count)
    }

    private static func copy(_ number: Int, _ line: UnsafeBufferPointer<UInt8>?, into lines: inout LineBlock) {
        guard let line else {
            lines.append(number: number, bytes: nil)
            return
        }
        let trimmed = trimmedLine(number, line)
        if !trimmed.isEmpty { lines.append(number: number, bytes: trimmed) }
    }

    /// `line` without the blanks around it, nor a byte order mark at the start of line 1.
    private static func trimmedLine(_ number: Int, _ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var trimmed = trimmingBlanks(line)
        if number == 1, trimmed.starts(with: [0xEF, 0xBB, 0xBF]) {
            trimmed = trimmingBlanks(UnsafeBufferPointer(rebasing: trimmed[3...]))
        }
        return trimmed
    }
}
