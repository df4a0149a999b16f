import TokenFormats
import TokenVerifier

/// How `tokenverify verify` writes its answers.
public enum AnswerFormat: String, Sendable, CaseIterable {
    /// One JSON object a line (spec §6).
    case json
    /// An Arrow IPC stream: the schema, one record batch for each chunk of answers, then the
    /// end-of-stream marker. The columns are the answer's members (see `AnswerColumns`).
    case arrow

    /// What the output begins with (nothing, or the Arrow schema message).
    public func streamStart(audit: Bool) -> [UInt8] {
        switch self {
        case .json: []
        case .arrow: AnswerColumns.schemaMessage(audit: audit)
        }
    }

    /// Most lines in one chunk of work, and so in one record batch: a batch reader pays per batch
    /// (a message to decode, a wake-up to read it), so Arrow batches are larger than the chunks
    /// that JSON lines are answered in; chunks still shrink when little input is waiting.
    public var chunkLines: Int {
        switch self {
        case .json: 256
        case .arrow: 2048
        }
    }

    /// What the output ends with (nothing, or Arrow's end-of-stream marker).
    public var streamEnd: [UInt8] {
        switch self {
        case .json: []
        case .arrow: ArrowIPC.endOfStream
        }
    }
}

/// Where one batch's answers go, in line order.
protocol AnswerRows {
    /// Adds the answer to input line `line` (`id`: the request's `id`, JSON text).
    mutating func add(line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult)
}

extension AnswerRows {
    /// Adds the answer to a line that is not a well-formed request.
    mutating func addMalformed(line: Int, _ malformed: RequestLine.Malformed) {
        let result = VerificationResult(failures: [VerificationFailure(.malformedRequest, malformed.detail)])
        guard let id = malformed.id else { return add(line: line, id: nil, result: result) }
        id.withUnsafeBufferPointer { add(line: line, id: $0, result: result) }
    }
}

/// Answers as JSON lines (spec §6), appended to `writer`.
struct JSONAnswerRows: AnswerRows {
    var writer = JSONWriter(reservingCapacity: 0)
    let audit: Bool

    @inline(__always)
    mutating func add(line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult) {
        AnswerWriter.write(line: line, id: id, result: result, audit: audit, to: &writer)
    }
}

/// Answers as Arrow record batches appended to `output`: one for the batch, or more where a
/// batch's texts outgrow one record batch. An answerer keeps one, so that the columns' memory
/// serves batch after batch.
struct ArrowAnswerRows: AnswerRows {
    var output: [UInt8] = []
    var columns: AnswerColumns

    mutating func add(line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult) {
        columns.append(line: line, id: id, result: result)
        if columns.isFull { columns.appendRecordBatch(to: &output) }
    }

    /// Writes the rows not yet written.
    mutating func finish() {
        if columns.count > 0 { columns.appendRecordBatch(to: &output) }
    }
}
