import TokenFormats
import TokenVerifier

/// One input line as the line protocol receives it: its 1-based number and its bytes without the
/// line break, or nil when it was longer than the limit (it is then answered `malformed_request`
/// without ever having been held).
public struct InputLine: Sendable {
    public var number: Int
    public var bytes: [UInt8]?

    public init(number: Int, bytes: [UInt8]?) {
        self.number = number
        self.bytes = bytes
    }
}

/// Answers input lines of the line protocol (spec §6) for one thread: request lines in, answer
/// lines out. Make one per thread; it holds a ``VerificationWorker``.
public final class LineAnswerer {
    private let verifier: Verifier
    private let worker: VerificationWorker
    private let audit: Bool
    private let format: AnswerFormat
    private let skipsStatusLists: Bool
    private let oversizeDetail: String
    /// Where the Arrow format's rows are written: its columns are emptied after each record
    /// batch and kept for their memory.
    @exclusivity(unchecked) private var arrowRows: ArrowAnswerRows
    /// Tokens answered that name a status list entry left unchecked (`--skip-status-lists`), since
    /// this count was last taken.
    @exclusivity(unchecked) private var statusUnchecked = 0

    /// An answerer verifying with `verifier` (its options decide audit mode) and answering in
    /// `format`; lines longer than `maxLineBytes` are expected to arrive as nil bytes.
    public init(verifier: Verifier, maxLineBytes: Int, format: AnswerFormat = .json) {
        self.verifier = verifier
        worker = verifier.makeWorker()
        audit = verifier.options.audit
        self.format = format
        arrowRows = ArrowAnswerRows(columns: AnswerColumns(audit: audit))
        skipsStatusLists = verifier.options.skipStatusLists
        oversizeDetail = "the line is longer than the limit of \(maxLineBytes) bytes"
    }

    /// Answers `lines` (each trimmed or not; a blank line must not be given) and appends one
    /// answer line per input line to `output`, in order (in the Arrow format: a record batch of
    /// one row per line). Returns each line's reason (nil: valid).
    ///
    /// The request lines are parsed here; the worker's batch engine verifies them against one
    /// snapshot of the live state (the one in force), with the signatures back to back, and each
    /// answer is written here from its verdict's texts.
    public func answer(_ lines: [InputLine], to output: inout [UInt8]) -> [Reason?] {
        answer(LineBlock(lines), to: &output)
    }

    /// Answers the lines of `block` as ``answer(_:to:)-([InputLine],_)`` answers lines.
    public func answer(_ block: LineBlock, to output: inout [UInt8]) -> [Reason?] {
        answer(block, lines: 0..<block.count, against: verifier.snapshot, to: &output)
    }

    /// Answers `lines` as ``answer(_:to:)-([InputLine],_)`` does, against `snapshot` (one taken
    /// from this answerer's verifier, ``Verifier/snapshot``): a stream that takes its
    /// snapshots in line order answers in line order (spec §4), whichever thread answers which lines.
    package func answer(
        _ lines: [InputLine], against snapshot: VerifierSnapshot,
        to output: inout [UInt8]
    ) -> [Reason?] {
        let block = LineBlock(lines)
        return answer(block, lines: 0..<block.count, against: snapshot, to: &output)
    }

    /// Answers lines `range` of `block` against `snapshot` (see
    /// ``answer(_:against:to:)-([InputLine],_,_)``): a stream hands each worker its part of one
    /// block of lines read, without copying them.
    package func answer(
        _ block: LineBlock, lines range: Range<Int>, against snapshot: VerifierSnapshot,
        to output: inout [UInt8]
    ) -> [Reason?] {
        switch format {
        case .json:
            var rows = JSONAnswerRows(audit: audit)
            swap(&rows.writer.bytes, &output)
            defer { swap(&rows.writer.bytes, &output) }
            rows.writer.bytes.reserveCapacity(rows.writer.bytes.count + range.count * 200)
            return answer(block, lines: range, against: snapshot, into: &rows)
        case .arrow:
            swap(&arrowRows.output, &output)
            defer { swap(&arrowRows.output, &output) }
            let reasons = answer(block, lines: range, against: snapshot, into: &arrowRows)
            arrowRows.finish()
            return reasons
        }
    }

    private func answer<Rows: AnswerRows>(
        _ block: LineBlock, lines range: Range<Int>, against snapshot: VerifierSnapshot, into rows: inout Rows
    ) -> [Reason?] {
        var reasons = [Reason?](repeating: nil, count: range.count)
        guard !range.isEmpty else { return reasons }
        block.bytes.withUnsafeBufferPointer { bytes in
            withUnsafeTemporaryAllocation(of: RequestFields.self, capacity: range.count) { requests in
                withUnsafeTemporaryAllocation(of: RequestLine.Malformed?.self, capacity: range.count) { problems in
                    let batch = RequestBatch(
                        bytes, block.entries[range], requests: requests.baseAddress!,
                        problems: problems.baseAddress!, oversizeDetail: oversizeDetail)
                    defer { batch.deinitialize() }
                    worker.verify(batch: batch, against: snapshot) { index, result in
                        let number = batch.entries[range.lowerBound + index].number
                        // The verdict is read where it lies (`result!`): a `let` binding would copy it.
                        guard result != nil else {
                            rows.addMalformed(line: number, batch.problems[index]!)
                            reasons[index] = .malformedRequest
                            return
                        }
                        let line = batch.line(index)
                        let id = batch.requests[index].idRange.map { UnsafeBufferPointer(rebasing: line[$0]) }
                        rows.add(line: number, id: id, result: result!)
                        reasons[index] = result!.reason
                        if skipsStatusLists && result!.namesStatusListEntry { statusUnchecked += 1 }
                    }
                }
            }
        }
        return reasons
    }

    /// The number of tokens answered whose status list entry was left unchecked since the last
    /// call (`--skip-status-lists`), and starts counting again.
    public func takeStatusUncheckedCount() -> Int {
        defer { statusUnchecked = 0 }
        return statusUnchecked
    }

    /// The signature-cache hits and misses of the lines answered since the last call
    /// (``VerificationWorker/takeSignatureCacheCounts()``), and starts counting again.
    public func takeSignatureCacheCounts() -> (hits: Int, misses: Int) {
        worker.takeSignatureCacheCounts()
    }

    /// Answers one line (see ``answer(_:to:)``).
    public func answer(line: some Collection<UInt8>, number: Int, to output: inout [UInt8]) -> Reason? {
        answer([InputLine(number: number, bytes: Array(line))], to: &output)[0]
    }
}

/// Input lines with their requests parsed in place, as a batch for the verifier. The lines are
/// ranges of one block's bytes; each line's request and problem live in one slot of the caller's
/// temporary buffers.
private struct RequestBatch: BatchRequests {
    /// The block's bytes, lent for the length of the batch.
    let bytes: UnsafeBufferPointer<UInt8>
    /// The batch's lines (indexed from their place in the block).
    let entries: ArraySlice<LineBlock.Entry>
    /// Each line's request (an empty one where the line is not a request).
    let requests: UnsafeMutablePointer<RequestFields>
    /// Why a line is not a request (nil for a request).
    let problems: UnsafeMutablePointer<RequestLine.Malformed?>
    /// The requests' strings that were written with escapes, unescaped.
    let unescaped: [UInt8]

    /// Parses the lines of `entries` (ranges of `bytes`) into the buffers (room for one slot a
    /// line); a line longer than the limit (no range) is refused with `oversizeDetail`. (Never
    /// inlined: one call a batch, and profiles name it.)
    @inline(never)
    init(
        _ bytes: UnsafeBufferPointer<UInt8>, _ entries: ArraySlice<LineBlock.Entry>,
        requests: UnsafeMutablePointer<RequestFields>,
        problems: UnsafeMutablePointer<RequestLine.Malformed?>, oversizeDetail: String
    ) {
        self.bytes = bytes
        self.entries = entries
        self.requests = requests
        self.problems = problems
        var unescaped: [UInt8] = []
        for index in 0..<entries.count {
            (requests + index).initialize(to: RequestFields())
            guard let range = entries[entries.startIndex + index].range else {
                (problems + index).initialize(to: RequestLine.Malformed(id: nil, detail: oversizeDetail))
                continue
            }
            let line = trimmingBlanks(UnsafeBufferPointer(rebasing: bytes[range]))
            let problem = RequestFields.parse(line, into: &requests[index], unescapedInto: &unescaped)
            (problems + index).initialize(to: problem)
        }
        self.unescaped = unescaped
    }

    /// Ends the slots' lifetimes.
    func deinitialize() {
        requests.deinitialize(count: entries.count)
        problems.deinitialize(count: entries.count)
    }

    var count: Int { entries.count }

    /// Every token is a range of the block's bytes, lent for the whole batch, while no string of
    /// the batch was written with escapes (`unescaped`, whose bytes are lent a call at a time).
    var tokensStayPut: Bool { unescaped.isEmpty }

    /// Line `index`, trimmed (only asked of a line that was held).
    @inline(__always)
    func line(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        trimmingBlanks(UnsafeBufferPointer(rebasing: bytes[entries[entries.startIndex + index].range!]))
    }

    func withRequest(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> Void) -> Bool {
        guard problems[index] == nil else { return false }
        unescaped.withUnsafeBufferPointer { unescaped in
            requests[index].withRequest(in: line(index), unescaped: unescaped, body)
        }
        return true
    }

    func withToken(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        unescaped.withUnsafeBufferPointer { unescaped in
            requests[index].withToken(in: line(index), unescaped: unescaped, body)
        }
    }
}
