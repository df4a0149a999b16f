import TokenFormats
import TokenVerifier

/// One input line of `tokenverify verify` (spec §6), parsed: a bare compact token or a JSON
/// request object `{"id":…,"token":…,"device":…,"object":…,"channel":…,"command":…,"at":…}`.
public struct RequestLine: Sendable {
    /// The `id` member's JSON text (without white space), echoed in the answer.
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

    /// The request made of a compact `token` and its context.
    public init(token: [UInt8], id: [UInt8]? = nil, context: RequestContext = RequestContext()) {
        self.token = token
        self.id = id
        self.context = context
    }

    /// Parses one line as read (without its line break; the spaces, tabs and carriage returns
    /// around it are ignored). A line starting with `{` is a JSON request (and so is one
    /// starting with `[` or `"`, which is then refused as not an object); anything else is a
    /// bare token. A blank line is malformed.
    public static func parse(_ line: some Collection<UInt8>) -> Result<RequestLine, Malformed> {
        let bytes = Array(line)
        return bytes.withUnsafeBufferPointer { buffer in
            let trimmed = trimmingBlanks(buffer)
            guard !trimmed.isEmpty else { return .failure(Malformed(id: nil, detail: "the line is blank")) }
            var fields = RequestFields()
            var unescaped: [UInt8] = []
            if let problem = RequestFields.parse(trimmed, into: &fields, unescapedInto: &unescaped) {
                return .failure(problem)
            }
            return unescaped.withUnsafeBufferPointer { unescaped in
                .success(
                    RequestLine(
                        token: fields.withToken(in: trimmed, unescaped: unescaped) { Array($0) },
                        id: fields.idRange.map { minified(UnsafeBufferPointer(rebasing: trimmed[$0])) },
                        context: fields.context(in: trimmed, unescaped: unescaped)))
            }
        }
    }

    /// Valid JSON text without the white space between its tokens, so that an echoed `id` never
    /// carries a tab or carriage return into an answer line.
    static func minified(_ json: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: json.count)
        writer.minified(json)
        return writer.bytes
    }

    @inline(__always)
    static func looksLikeJSON(_ first: UInt8?) -> Bool {
        first == UInt8(ascii: "{") || first == UInt8(ascii: "[") || first == UInt8(ascii: "\"")
    }
}

extension VerificationWorker {
    /// Verifies one parsed request line.
    public func verify(_ line: RequestLine) -> VerificationResult {
        verify(token: line.token, context: line.context)
    }
}
