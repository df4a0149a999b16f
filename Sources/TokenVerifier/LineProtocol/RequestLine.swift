/// One input line of `tokenverify verify` (SPEC §6), parsed: a bare compact token or a JSON
/// request object `{"id":…,"token":…,"device":…,"object":…,"channel":…,"command":…,"at":…}`.
public struct RequestLine: Sendable {
    /// The `id` member's JSON text, echoed verbatim in the answer.
    public var id: [UInt8]?
    /// The compact token's bytes.
    public var token: [UInt8]
    /// `device`, `object`, `channel`, `command`, and `at` as the check time.
    public var context = RequestContext()

    /// A line that is not a well-formed request: the `malformed_request` answer.
    public struct Malformed: Error, Sendable {
        /// The `id`, when it could be read before the problem was found.
        public var id: [UInt8]?
        public var detail: String
    }

    /// Valid JSON text without the white space between its tokens, so that an echoed `id` never
    /// carries a tab or carriage return into an answer line.
    static func minified(_ json: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: json.count)
        writer.minified(json)
        return writer.bytes
    }

    /// `bytes` without the spaces, tabs and carriage returns around it (SPEC §6 line framing).
    public static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 || bytes[start] == 0x0D { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0D { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    private static func looksLikeJSON(_ first: UInt8?) -> Bool {
        first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
    }

    /// Parses a line whose surrounding spaces, tabs and CR/LF are already trimmed and which is
    /// not blank. A line starting with `{` is a JSON request (and so is one starting with `[` or
    /// `"`, which is then refused as not an object); anything else is a bare token.
    public static func parse(_ line: [UInt8]) -> Result<RequestLine, Malformed> {
        guard looksLikeJSON(line.first) else {
            return .success(RequestLine(token: line))   // a bare token: no copy
        }
        return line.withUnsafeBufferPointer { parse($0) }
    }

    /// Parses a line held in `line` (see ``parse(_:)-([UInt8])``).
    public static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<RequestLine, Malformed> {
        switch Borrowed.parse(line) {
        case .success(let borrowed):
            var request = RequestLine(token: borrowed.withToken(in: line) { Array($0) })
            request.id = borrowed.idRange.map { minified(UnsafeBufferPointer(rebasing: line[$0])) }
            request.context = borrowed.context(in: line)
            return .success(request)
        case .failure(let malformed):
            return .failure(malformed)
        }
    }

    /// A request line parsed in place: the token, the `id` and the context strings are ranges of
    /// the line, so the hot path copies nothing. A token or context string written with JSON
    /// escapes is unescaped into ``unescaped`` (nil while there is none, so that copying a
    /// request costs no reference counting).
    struct Borrowed {
        var idRange: Range<Int>?
        var token = Field(range: 0..<0, inLine: true)
        var device: Field?
        var object: Field?
        var channel: Field?
        var command: Field?
        var checkTime: Double?
        /// The unescaped strings that were written with escapes.
        var unescaped: [UInt8]?

        /// Where a string lies: a range of the line, or of ``unescaped``.
        struct Field {
            var range: Range<Int>
            var inLine: Bool
        }

        /// Keeps unescaped bytes in ``unescaped``; returns where they lie.
        mutating func keepUnescaped(_ bytes: [UInt8]) -> Field {
            let start = unescaped?.count ?? 0
            unescaped = (unescaped ?? []) + bytes
            return Field(range: start..<(start + bytes.count), inLine: false)
        }

        /// Calls `body` with the token's bytes.
        func withToken<R>(in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
            if !token.inLine, let unescaped { return unescaped.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[token.range])) } }
            return body(UnsafeBufferPointer(rebasing: line[token.range]))
        }

        /// Calls `body` with the token's bytes and the request context.
        func withRequest<R>(in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> R) -> R {
            (unescaped ?? []).withUnsafeBufferPointer { owned in
                func bytes(_ field: Field?) -> UnsafeBufferPointer<UInt8>? {
                    field.map { UnsafeBufferPointer(rebasing: $0.inLine ? line[$0.range] : owned[$0.range]) }
                }
                let context = ContextBytes(device: bytes(device), object: bytes(object), channel: bytes(channel),
                                           command: bytes(command), checkTime: checkTime)
                return withToken(in: line) { body($0, context) }
            }
        }

        /// The request context as Strings.
        func context(in line: UnsafeBufferPointer<UInt8>) -> RequestContext {
            withRequest(in: line) { _, context in context.strings }
        }

        static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<Borrowed, Malformed> {
            var request = Borrowed()
            guard looksLikeJSON(line.first) else {
                request.token = Field(range: 0..<line.count, inLine: true)   // a bare token
                return .success(request)
            }
            guard line.first == UInt8(ascii: "{") else {
                return .failure(Malformed(id: nil, detail: "a request must be a JSON object or a bare compact token"))
            }
            var hasToken = false
            var reader = JSONReader(line)
            func string(_ reader: inout JSONReader, _ name: StaticString) throws(JSONError) -> Field {
                guard reader.peekKind() == .string else { throw JSONError("\"\(name)\" must be a string", at: reader.position) }
                let value = try reader.readStringRange()
                guard value.hasEscapes else { return Field(range: value.content, inLine: true) }
                return request.keepUnescaped(reader.unescapedBytes(value.content))
            }
            do throws(JSONError) {
                try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                    switch name.decoded?.count ?? name.raw.count {
                    case 2 where name.equals("id"):
                        request.idRange = try reader.skipValue()
                    case 2 where name.equals("at"):
                        request.checkTime = try reader.readNumericDate(member: "\"at\"", allowRFC3339: true)
                    case 5 where name.equals("token"):
                        guard reader.peekKind() == .string else { throw JSONError("\"token\" must be a string", at: reader.position) }
                        let value = try reader.readStringRange()
                        hasToken = true
                        if value.hasEscapes {
                            let kept = request.keepUnescaped(reader.unescapedBytes(value.content))
                            request.token = kept
                        } else {
                            request.token = Field(range: value.content, inLine: true)
                        }
                    case 6 where name.equals("device"): let value = try string(&reader, "device"); request.device = value
                    case 6 where name.equals("object"): let value = try string(&reader, "object"); request.object = value
                    case 7 where name.equals("channel"): let value = try string(&reader, "channel"); request.channel = value
                    case 7 where name.equals("command"): let value = try string(&reader, "command"); request.command = value
                    default:
                        throw JSONError("unknown member \"\(name.string)\" (allowed: id, token, device, object, channel, command, at)", at: reader.position)
                    }
                }
                try reader.finish()
            } catch {
                let id = request.idRange.map { minified(UnsafeBufferPointer(rebasing: line[$0])) }
                return .failure(Malformed(id: id, detail: "the request is not valid: \(error.description)"))
            }
            guard hasToken else {
                let id = request.idRange.map { minified(UnsafeBufferPointer(rebasing: line[$0])) }
                return .failure(Malformed(id: id, detail: "the request has no \"token\""))
            }
            return .success(request)
        }
    }
}

extension VerificationWorker {
    /// Verifies one parsed request line.
    public func verify(_ line: RequestLine) -> VerificationResult {
        line.token.withUnsafeBufferPointer { token in
            line.context.withBytes { verify(token: token, context: $0) }
        }
    }

    /// Answers a batch of input lines of the line protocol, each already trimmed and not blank
    /// (nil bytes: a line longer than the limit, answered `malformed_request` with
    /// `oversizeDetail`). Appends one answer line per input line to `writer`, in order, and
    /// returns each line's reason (nil when valid).
    ///
    /// The lines are checked against one snapshot of keys and revocations, in three passes:
    /// parse and checks 2–11 for every line, then the signatures one after the other (the crypto
    /// library's code and tables stay in cache from one verify to the next), then the answers.
    public func answer(lines: [(number: Int, bytes: [UInt8]?)], audit: Bool, oversizeDetail: String,
                       to writer: inout JSONWriter) -> [Reason?] {
        // One slot per line, filled pass by pass and changed in place (no copies of requests
        // or parsed tokens between the passes, and no array of them to retain and release).
        let snapshot = snapshot()
        var reasons = [Reason?](repeating: nil, count: lines.count)
        lines.withUnsafeBufferPointer { lines in
            withUnsafeTemporaryAllocation(of: LineState.self, capacity: lines.count) { states in
                let states = states.baseAddress!
                for index in lines.indices {
                    (states + index).initialize(to: LineState(audit: audit))
                    guard let bytes = lines[index].bytes else { continue }
                    let state = states + index
                    bytes.withUnsafeBufferPointer { buffer in
                        switch RequestLine.Borrowed.parse(buffer) {
                        case .failure(let problem):
                            state.pointee.malformed = problem
                        case .success(let request):
                            state.pointee.request = request
                            state.pointee.isRequest = true
                            state.pointee.prepared = request.withRequest(in: buffer) {
                                prepare(token: $0, context: $1, snapshot: snapshot)
                            }
                        }
                    }
                }
                for index in lines.indices where states[index].isRequest && states[index].prepared.signatureKey != nil {
                    let state = states + index
                    lines[index].bytes!.withUnsafeBufferPointer { buffer in
                        state.pointee.request.withToken(in: buffer) {
                            checkSignature(&state.pointee.prepared, token: $0, snapshot: snapshot)
                        }
                    }
                }
                for index in lines.indices {
                    let number = lines[index].number
                    let state = states + index
                    if let problem = state.pointee.malformed {
                        ResponseLine.writeMalformed(line: number, problem, audit: audit, to: &writer)
                        reasons[index] = .malformedRequest
                    } else if state.pointee.isRequest, let bytes = lines[index].bytes {
                        bytes.withUnsafeBufferPointer { buffer in
                            let id = state.pointee.request.idRange.map { UnsafeBufferPointer(rebasing: buffer[$0]) }
                            ResponseLine.write(line: number, idJSON: id, failures: state.pointee.prepared.failures.failures,
                                               token: state.pointee.prepared.parsed, audit: audit, to: &writer)
                        }
                        reasons[index] = state.pointee.prepared.failures.failures.first?.reason
                    } else {
                        let result = VerificationResult(failures: [VerificationFailure(.malformedRequest, oversizeDetail)])
                        ResponseLine.write(line: number, id: nil, result: result, audit: audit, to: &writer)
                        reasons[index] = .malformedRequest
                    }
                }
                states.deinitialize(count: lines.count)
            }
        }
        return reasons
    }

    /// What the batch API knows of one line between its passes (changed in place).
    private struct LineState {
        /// The line is not a well-formed request.
        var malformed: RequestLine.Malformed?
        /// The line is a request: `request` and `prepared` hold it.
        var isRequest = false
        var request = RequestLine.Borrowed()
        var prepared: Prepared

        init(audit: Bool) {
            prepared = Prepared(failures: FailureList(audit: audit))
        }
    }

    /// Answers one input line of the line protocol (already trimmed, not blank): parses it,
    /// verifies its token and appends the answer line to `writer`. Returns the reason of an
    /// invalid answer, nil for a valid one. Copies nothing of the line on the way.
    public func answer(line: UnsafeBufferPointer<UInt8>, number: Int, audit: Bool, to writer: inout JSONWriter) -> Reason? {
        switch RequestLine.Borrowed.parse(line) {
        case .success(let request):
            let snapshot = snapshot()
            let prepared = request.withRequest(in: line) { token, context in
                var prepared = prepare(token: token, context: context, snapshot: snapshot)
                checkSignature(&prepared, token: token, snapshot: snapshot)
                return prepared
            }
            let id = request.idRange.map { UnsafeBufferPointer(rebasing: line[$0]) }
            ResponseLine.write(line: number, idJSON: id, failures: prepared.failures.failures, token: prepared.parsed,
                               audit: audit, to: &writer)
            return prepared.failures.failures.first?.reason
        case .failure(let malformed):
            ResponseLine.writeMalformed(line: number, malformed, audit: audit, to: &writer)
            return .malformedRequest
        }
    }
}
