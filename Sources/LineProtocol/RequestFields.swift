import TokenVerifier

/// A request line (spec §6) parsed in place: the token, the `id` and the context strings are ranges of
/// the line, so the hot path copies nothing. A token or context string written with JSON
/// escapes is unescaped into a buffer the caller keeps beside the line (see
/// ``parse(_:into:unescapedInto:)``), so that a request is plain data, copied without
/// reference counting.
struct RequestFields: Equatable {
    var idRange: Range<Int>?
    var token = Field(range: 0..<0, inLine: true)
    var device: Field?
    var object: Field?
    var channel: Field?
    var command: Field?
    var checkTime: Double?

    /// Where a string lies: a range of the line, or of the unescaped bytes kept beside it.
    struct Field: Equatable {
        var range: Range<Int>
        var inLine: Bool

        /// The string's bytes, in `line` or in `unescaped`.
        @inline(__always)
        func bytes(
            in line: UnsafeBufferPointer<UInt8>, unescaped: UnsafeBufferPointer<UInt8>
        ) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: (inLine ? line : unescaped)[range])
        }
    }

    /// Appends `bytes` to `unescaped`; returns where they lie.
    private static func keep(_ bytes: [UInt8], in unescaped: inout [UInt8]) -> Field {
        let start = unescaped.count
        unescaped += bytes
        return Field(range: start..<(start + bytes.count), inLine: false)
    }

    /// Reads the string member `name`: a range of the line, or its unescaped bytes kept in
    /// `unescaped`. (A static function: a local one capturing the request would make every
    /// access to the request a checked one.)
    private static func string(
        _ reader: inout JSONReader, _ name: StaticString,
        unescaped: inout [UInt8]
    ) throws(JSONError) -> Field {
        let value = try reader.readStringContent(member: name)
        guard let bytes = value.unescaped else { return Field(range: value.content, inLine: true) }
        return keep(bytes, in: &unescaped)
    }

    /// Calls `body` with the token's bytes (`unescaped`: the buffer given to
    /// ``parse(_:into:unescapedInto:)``).
    func withToken<R>(
        in line: UnsafeBufferPointer<UInt8>, unescaped: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>) -> R
    ) -> R {
        body(token.bytes(in: line, unescaped: unescaped))
    }

    /// Calls `body` with the token's bytes and the request context (`unescaped`: the buffer
    /// given to ``parse(_:into:unescapedInto:)``).
    func withRequest<R>(
        in line: UnsafeBufferPointer<UInt8>, unescaped: UnsafeBufferPointer<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> R
    ) -> R {
        let context = ContextBytes(
            device: device?.bytes(in: line, unescaped: unescaped),
            object: object?.bytes(in: line, unescaped: unescaped),
            channel: channel?.bytes(in: line, unescaped: unescaped),
            command: command?.bytes(in: line, unescaped: unescaped), checkTime: checkTime)
        return body(token.bytes(in: line, unescaped: unescaped), context)
    }

    /// The request context as Strings (`unescaped`: the buffer given to
    /// ``parse(_:into:unescapedInto:)``).
    func context(in line: UnsafeBufferPointer<UInt8>, unescaped: UnsafeBufferPointer<UInt8>) -> RequestContext {
        func text(_ field: Field?) -> String? {
            field.map { String(decoding: $0.bytes(in: line, unescaped: unescaped), as: UTF8.self) }
        }
        return RequestContext(
            device: text(device), object: text(object), channel: text(channel),
            command: text(command), checkTime: checkTime)
    }

    /// Parses one request line (trimmed), a bare token or a JSON request object, into `request`
    /// (an empty one, `RequestFields()`); returns why the line is malformed (`request` is then
    /// left empty), or nil. The strings written with escapes are unescaped and appended to
    /// `unescaped`, which the caller keeps for as long as it reads the request's fields.
    static func parse(
        _ line: UnsafeBufferPointer<UInt8>, into request: inout RequestFields, unescapedInto unescaped: inout [UInt8]
    ) -> RequestLine.Malformed? {
        guard RequestLine.looksLikeJSON(line.first) else {
            request.token = Field(range: 0..<line.count, inLine: true)  // a bare token
            return nil
        }
        guard line.first == UInt8(ascii: "{") else {
            return RequestLine.Malformed(id: nil, detail: "a request must be a JSON object or a bare compact token")
        }
        if parsePlain(line, into: &request) { return nil }
        request = RequestFields()
        if let problem = parseJSON(line, into: &request, unescapedInto: &unescaped) {
            request = RequestFields()
            return problem
        }
        return nil
    }

    /// Parses a request object with the general JSON reader, as ``parse(_:into:unescapedInto:)``
    /// does the lines ``parsePlain(_:into:)`` does not take.
    static func parseJSON(
        _ line: UnsafeBufferPointer<UInt8>, into request: inout RequestFields, unescapedInto unescaped: inout [UInt8]
    ) -> RequestLine.Malformed? {
        var hasToken = false
        do throws(JSONError) {
            try JSONReader.readObject(in: line, allowedMembers: "id, token, device, object, channel, command, at") {
                (reader: inout JSONReader, name: MemberName) throws(JSONError) -> Bool in
                if name.equals("token") {
                    let value = try string(&reader, "token", unescaped: &unescaped)
                    hasToken = true
                    request.token = value
                } else if name.equals("id") {
                    request.idRange = try reader.skipValue()
                } else if name.equals("at") {
                    request.checkTime = try reader.readNumericDate(member: "\"at\"", allowRFC3339: true)
                } else if name.equals("device") {
                    let value = try string(&reader, "device", unescaped: &unescaped)
                    request.device = value
                } else if name.equals("object") {
                    let value = try string(&reader, "object", unescaped: &unescaped)
                    request.object = value
                } else if name.equals("channel") {
                    let value = try string(&reader, "channel", unescaped: &unescaped)
                    request.channel = value
                } else if name.equals("command") {
                    let value = try string(&reader, "command", unescaped: &unescaped)
                    request.command = value
                } else {
                    return false
                }
                return true
            }
        } catch {
            let id = request.idRange.map { RequestLine.minified(UnsafeBufferPointer(rebasing: line[$0])) }
            return RequestLine.Malformed(id: id, detail: "the request is not valid: \(error.description)")
        }
        guard hasToken else {
            let id = request.idRange.map { RequestLine.minified(UnsafeBufferPointer(rebasing: line[$0])) }
            return RequestLine.Malformed(id: id, detail: "the request has no \"token\"")
        }
        return nil
    }
}

/// The request lines most clients write, read without the general JSON reader.
extension RequestFields {
    /// A member that ``parsePlain(_:into:)`` reads.
    enum PlainMember: UInt8 {
        case id, token, device, object, channel, command

        /// The member named `length` bytes long whose bytes, as written between the quotes,
        /// are the low bytes of `word` (first byte lowest); nil for any other name.
        @inline(__always)
        init?(rawName word: UInt64, length: Int) {
            switch (length, word) {
            case (2, 0x6469): self = .id  // "id"
            case (5, 0x6E_656B_6F74): self = .token  // "token"
            case (6, 0x6563_6976_6564): self = .device  // "device"
            case (6, 0x7463_656A_626F): self = .object  // "object"
            case (7, 0x6C_656E_6E61_6863): self = .channel  // "channel"
            case (7, 0x64_6E61_6D6D_6F63): self = .command  // "command"
            default: return nil
            }
        }

        /// The member's bit in a set of members.
        var bit: UInt8 { 1 << rawValue }
    }

    /// Reads the request object `line` (which starts with `{`) into `request` (an empty one)
    /// when it is written the usual way: member names without escapes, no member twice, strings
    /// without escapes, an `id` that is a string or an integer, no `at`. Returns false for any
    /// other line, valid or not, leaving `request` partly written: the general JSON reader then
    /// reads the line, and gives any line read here the same fields.
    static func parsePlain(_ line: UnsafeBufferPointer<UInt8>, into request: inout RequestFields) -> Bool {
        guard let base = line.baseAddress else { return false }
        let count = line.count
        var seen: UInt8 = 0
        var at = skipWhitespace(in: line, from: 1)
        while true {
            // The name: its closing quote among the eight bytes after the opening one (the
            // lowest flag of `quotes` marks the first quote exactly).
            guard at + 9 <= count, base[at] == UInt8(ascii: "\"") else { return false }
            let word = UInt64(littleEndian: UnsafeRawPointer(base + at + 1).loadUnaligned(as: UInt64.self))
            let notQuotes = word ^ 0x2222_2222_2222_2222
            let quotes = (notQuotes &- 0x0101_0101_0101_0101) & ~notQuotes & 0x8080_8080_8080_8080
            guard quotes != 0 else { return false }
            let length = quotes.trailingZeroBitCount >> 3
            let name = word & ((1 &<< UInt64(length * 8)) &- 1)
            guard let member = PlainMember(rawName: name, length: length), seen & member.bit == 0 else {
                return false
            }
            seen |= member.bit
            at = skipWhitespace(in: line, from: at + length + 2)
            guard at < count, base[at] == UInt8(ascii: ":") else { return false }
            at = skipWhitespace(in: line, from: at + 1)
            guard at < count else { return false }
            // The value.
            if member == .id {
                guard let end = plainIDEnd(in: line, at: at) else { return false }
                request.idRange = at..<end
                at = end
            } else {
                guard base[at] == UInt8(ascii: "\""),
                    let string = JSONReader.stringContent(in: line, quoteAt: at), !string.hasEscapes
                else { return false }
                let field = Field(range: string.content, inLine: true)
                switch member {
                case .token: request.token = field
                case .device: request.device = field
                case .object: request.object = field
                case .channel: request.channel = field
                default: request.command = field
                }
                at = string.content.upperBound + 1
            }
            // A comma, or the closing brace and nothing after it.
            at = skipWhitespace(in: line, from: at)
            guard at < count else { return false }
            if base[at] == UInt8(ascii: ",") {
                at = skipWhitespace(in: line, from: at + 1)
                continue
            }
            guard base[at] == UInt8(ascii: "}"), seen & PlainMember.token.bit != 0,
                skipWhitespace(in: line, from: at + 1) == count
            else { return false }
            return true
        }
    }

    /// Where the `id` value at `start` ends: a string, or an integer (`-?(0|[1-9][0-9]*)`, which
    /// the caller checks is followed by a comma or a brace); nil for any other value.
    @inline(__always)
    private static func plainIDEnd(in line: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        if line[start] == UInt8(ascii: "\"") {
            return JSONReader.stringContent(in: line, quoteAt: start).map { $0.content.upperBound + 1 }
        }
        var end = start
        if line[end] == UInt8(ascii: "-") { end += 1 }
        guard end < line.count, line[end] &- UInt8(ascii: "0") < 10 else { return nil }
        if line[end] == UInt8(ascii: "0") { return end + 1 }
        while end < line.count, line[end] &- UInt8(ascii: "0") < 10 { end += 1 }
        return end
    }

    /// The index of the first byte from `start` on that is not JSON white space.
    @inline(__always)
    private static func skipWhitespace(in line: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var at = start
        while at < line.count, line[at] <= 0x20,
            line[at] == 0x20 || line[at] == 0x09 || line[at] == 0x0A || line[at] == 0x0D
        {
            at += 1
        }
        return at
    }
}
