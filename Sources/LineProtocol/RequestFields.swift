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

    /// Appends `bytes` to `unescaped`; returns where they lie.
    private static func keep(_ bytes: [UInt8], in unescaped: inout [UInt8]?) -> Field {
        let start = unescaped?.count ?? 0
        unescaped = (unescaped ?? []) + bytes
        return Field(range: start..<(start + bytes.count), inLine: false)
    }

    /// Reads the string member `name`: a range of the line, or its unescaped bytes kept in
    /// `unescaped`. (A static function: a local one capturing the request would make every
    /// access to the request a checked one.)
    private static func string(
        _ reader: inout JSONReader, _ name: StaticString,
        unescaped: inout [UInt8]?
    ) throws(JSONError) -> Field {
        let value = try reader.readStringContent(member: name)
        guard let bytes = value.unescaped else { return Field(range: value.content, inLine: true) }
        return keep(bytes, in: &unescaped)
    }

    /// Calls `body` with the token's bytes.
    func withToken<R>(in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if !token.inLine, let unescaped {
            return unescaped.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[token.range])) }
        }
        return body(UnsafeBufferPointer(rebasing: line[token.range]))
    }

    /// Calls `body` with the token's bytes and the request context.
    func withRequest<R>(
        in line: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> R
    ) -> R {
        withFields(in: line) { bytes in
            let context = ContextBytes(
                device: bytes(device), object: bytes(object), channel: bytes(channel),
                command: bytes(command), checkTime: checkTime)
            return withToken(in: line) { body($0, context) }
        }
    }

    /// The request context as Strings.
    func context(in line: UnsafeBufferPointer<UInt8>) -> RequestContext {
        withFields(in: line) { bytes in
            func text(_ field: Field?) -> String? { bytes(field).map { String(decoding: $0, as: UTF8.self) } }
            return RequestContext(
                device: text(device), object: text(object), channel: text(channel),
                command: text(command), checkTime: checkTime)
        }
    }

    /// Calls `body` with a function giving a field's bytes.
    private func withFields<R>(
        in line: UnsafeBufferPointer<UInt8>, _ body: ((Field?) -> UnsafeBufferPointer<UInt8>?) -> R
    ) -> R {
        (unescaped ?? []).withUnsafeBufferPointer { owned in
            body { field in field.map { UnsafeBufferPointer(rebasing: $0.inLine ? line[$0.range] : owned[$0.range]) } }
        }
    }

    static func parse(_ line: UnsafeBufferPointer<UInt8>) -> Result<RequestFields, RequestLine.Malformed> {
        var request = RequestFields()
        guard RequestLine.looksLikeJSON(line.first) else {
            request.token = Field(range: 0..<line.count, inLine: true)  // a bare token
            return .success(request)
        }
        guard line.first == UInt8(ascii: "{") else {
            return .failure(
                RequestLine.Malformed(id: nil, detail: "a request must be a JSON object or a bare compact token"))
        }
        var hasToken = false
        do throws(JSONError) {
            try JSONReader.readObject(in: line, allowedMembers: "id, token, device, object, channel, command, at") {
                (reader: inout JSONReader, name: MemberName) throws(JSONError) -> Bool in
                if name.equals("token") {
                    let value = try string(&reader, "token", unescaped: &request.unescaped)
                    hasToken = true
                    request.token = value
                } else if name.equals("id") {
                    request.idRange = try reader.skipValue()
                } else if name.equals("at") {
                    request.checkTime = try reader.readNumericDate(member: "\"at\"", allowRFC3339: true)
                } else if name.equals("device") {
                    let value = try string(&reader, "device", unescaped: &request.unescaped)
                    request.device = value
                } else if name.equals("object") {
                    let value = try string(&reader, "object", unescaped: &request.unescaped)
                    request.object = value
                } else if name.equals("channel") {
                    let value = try string(&reader, "channel", unescaped: &request.unescaped)
                    request.channel = value
                } else if name.equals("command") {
                    let value = try string(&reader, "command", unescaped: &request.unescaped)
                    request.command = value
                } else {
                    return false
                }
                return true
            }
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
