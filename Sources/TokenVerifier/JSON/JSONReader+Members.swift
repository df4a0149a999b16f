/// Typed member values with one wording for their errors, shared by every object format
/// (claims, request lines, revocation entries).
extension JSONReader {
    /// Reads a value that must be a string; `member` names it in the error (`claim "sub"`).
    @inlinable
    mutating func readString(member: @autoclosure () -> String) throws(JSONError) -> String {
        guard peekKind() == .string else { throw JSONError("\(member()) must be a string", at: position) }
        return try readString()
    }

    /// Reads a value that must be a string; `member` names it in the error (`"token"`). Returns
    /// where its content lies and, when it was written with escapes, its unescaped bytes.
    @inlinable
    package mutating func readStringContent(
        member: StaticString
    ) throws(JSONError) -> (content: Range<Int>, unescaped: [UInt8]?) {
        guard peekKind() == .string else { throw JSONError("\"\(member)\" must be a string", at: position) }
        let value = try readStringRange()
        return (value.content, value.hasEscapes ? unescapedBytes(value.content) : nil)
    }

    /// Reads `bytes` as one JSON object with nothing after it. `body` is called once per member
    /// and returns false for a name the format does not have, which is then refused, naming the
    /// `allowedMembers`.
    @inlinable
    package static func readObject(
        in bytes: UnsafeBufferPointer<UInt8>, allowedMembers: String,
        _ body: (inout JSONReader, MemberName) throws(JSONError) -> Bool
    ) throws(JSONError) {
        var reader = JSONReader(bytes)
        try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
            if try !body(&reader, name) { throw reader.unknownMember(name, allowed: allowedMembers) }
        }
        try reader.finish()
    }

    /// The error for a member the format does not have, listing the `allowed` ones.
    @usableFromInline func unknownMember(_ name: MemberName, allowed: String) -> JSONError {
        JSONError("unknown member \"\(name.string)\" (allowed: \(allowed))", at: position)
    }

    /// Reads a NumericDate: a finite JSON number or, with `allowRFC3339`, an RFC 3339 string,
    /// within the times the engine represents (``NumericDate/isRepresentable(_:)``): any other
    /// value is refused naming `member` and the range.
    @inlinable
    package mutating func readNumericDate(
        member: @autoclosure () -> String, allowRFC3339: Bool
    ) throws(JSONError) -> Double {
        let offset = position
        func invalid() -> JSONError {
            let expected = allowRFC3339 ? "a NumericDate or an RFC 3339 date-time" : "a finite number (NumericDate)"
            return JSONError("\(member()) must be \(expected)", at: offset)
        }
        let value: Double
        switch peekKind() {
        case .number:
            value = try readNumber()
            guard value.isFinite else { throw invalid() }
        case .string where allowRFC3339:
            guard let parsed = NumericDate.parseRFC3339(try readString()) else {
                throw invalid()
            }
            value = parsed
        default:
            throw invalid()
        }
        guard NumericDate.isRepresentable(value) else {
            throw JSONError(NumericDate.rangeProblem(value, what: member())!, at: offset)
        }
        return value
    }
}
