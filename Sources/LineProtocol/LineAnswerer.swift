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

/// Answers input lines of the line protocol (SPEC §6) for one thread: request lines in, answer
/// lines out. Make one per thread; it holds a ``VerificationWorker``.
public final class LineAnswerer {
    private let worker: VerificationWorker
    private let audit: Bool
    private let oversizeDetail: String

    /// An answerer verifying with `verifier` (its options decide audit mode); lines longer than
    /// `maxLineBytes` are expected to arrive as nil bytes.
    public init(verifier: TokenVerifier, maxLineBytes: Int) {
        worker = verifier.makeWorker()
        audit = verifier.options.audit
        oversizeDetail = "the line is longer than the limit of \(maxLineBytes) bytes"
    }

    /// Answers `lines` (each trimmed or not; a blank line must not be given) and appends one
    /// answer line per input line to `output`, in order. Returns each line's reason (nil: valid).
    ///
    /// The lines are checked against one snapshot of the live state, in three passes: parsing and
    /// checks 1–11b for every line, then the signatures one after another (the crypto library's
    /// code and tables stay in cache from one verify to the next), then the answers. Each line's
    /// state lives in one slot of a temporary buffer and is changed in place between the passes.
    public func answer(_ lines: [InputLine], to output: inout [UInt8]) -> [Reason?] {
        var writer = JSONWriter(reservingCapacity: 0)
        swap(&writer.bytes, &output)
        defer { swap(&writer.bytes, &output) }
        writer.bytes.reserveCapacity(writer.bytes.count + lines.count * 200)
        let snapshot = worker.snapshot()
        var reasons = [Reason?](repeating: nil, count: lines.count)
        withUnsafeTemporaryAllocation(of: LineState.self, capacity: lines.count) { states in
            let states = states.baseAddress!
            for index in lines.indices {
                (states + index).initialize(to: LineState(audit: audit))
                guard let bytes = lines[index].bytes else { continue }
                let state = states + index
                bytes.withUnsafeBufferPointer { raw in
                    let line = trimmingBlanks(raw)
                    switch RequestFields.parse(line) {
                    case .failure(let problem):
                        state.pointee.malformed = problem
                    case .success(let request):
                        state.pointee.request = request
                        state.pointee.isRequest = true
                        state.pointee.prepared = request.withRequest(in: line) {
                            worker.prepare(token: $0, context: $1, snapshot: snapshot)
                        }
                    }
                }
            }
            for index in lines.indices {
                let state = states + index
                guard state.pointee.isRequest else { continue }
                lines[index].bytes!.withUnsafeBufferPointer { raw in
                    state.pointee.request.withToken(in: trimmingBlanks(raw)) {
                        worker.checkSignature(&state.pointee.prepared, token: $0, snapshot: snapshot)
                    }
                }
            }
            for index in lines.indices {
                let number = lines[index].number
                let state = states + index
                if let problem = state.pointee.malformed {
                    AnswerWriter.writeMalformed(line: number, problem, audit: audit, to: &writer)
                    reasons[index] = .malformedRequest
                } else if state.pointee.isRequest {
                    lines[index].bytes!.withUnsafeBufferPointer { raw in
                        let line = trimmingBlanks(raw)
                        let id = state.pointee.request.idRange.map { UnsafeBufferPointer(rebasing: line[$0]) }
                        AnswerWriter.write(line: number, id: id, failures: state.pointee.prepared.failures.failures,
                                           token: state.pointee.prepared.parsed, audit: audit, to: &writer)
                    }
                    reasons[index] = state.pointee.prepared.failures.failures.first?.reason
                } else {
                    AnswerWriter.writeMalformed(line: number, RequestLine.Malformed(id: nil, detail: oversizeDetail),
                                                audit: audit, to: &writer)
                    reasons[index] = .malformedRequest
                }
            }
            states.deinitialize(count: lines.count)
        }
        return reasons
    }

    /// Answers one line (see ``answer(_:to:)``).
    public func answer(line: some Collection<UInt8>, number: Int, to output: inout [UInt8]) -> Reason? {
        answer([InputLine(number: number, bytes: Array(line))], to: &output)[0]
    }

    /// What the batch knows of one line between its passes (changed in place).
    private struct LineState {
        /// The line is not a well-formed request.
        var malformed: RequestLine.Malformed?
        /// The line is a request: `request` and `prepared` hold it.
        var isRequest = false
        var request = RequestFields()
        var prepared: VerificationWorker.Prepared
        init(audit: Bool) {
            prepared = VerificationWorker.Prepared(audit: audit)
        }

    }
}
