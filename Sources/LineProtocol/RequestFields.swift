import TokenVerifier

/// A request line (SPEC §6) parsed in place: the token, the `id` and the context strings are ranges of
/// the line, so the hot path copies nothing. A token or context string written with JSON
/// escapes is unescaped into ``unescaped`` (nil while there is none, so that copying a
/// request costs no reference counting).
struct RequestFields {
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

    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<RequestFields, RequestLine.Malformed> {
        var request = RequestFields()
        guard RequestLine.looksLikeJSON(line.first) else {
            request.token = Field(range: 0..<line.count, inLine: true)   // a bare token
            return .success(request)
        }
        guard line.first == UInt8(ascii: "{") else {
            return .failure(RequestLine.Malformed(id: nil, detail: "a request must be a JSON object or a bare compact token"))
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
            let id = request.idRange.map { RequestLine.minified(UnsafeBufferPointer(rebasing: line[$0])) }
            return .failure(RequestLine.Malformed(id: id, detail: "the request is not valid: \(error.description)"))
        }
        guard hasToken else {
            let id = request.idRange.map { RequestLine.minified(UnsafeBufferPointer(rebasing: line[$0])) }
            return .failure(RequestLine.Malformed(id: id, detail: "the request has no \"token\""))
        }
        return .success(request)
    }
}
