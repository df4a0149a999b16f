/// Typed member values with one wording for their errors, shared by every object format
/// (claims, request lines, revocation entries).
extension JSONReader {
    /// Reads a value that must be a string; `member` names it in the error (`claim "sub"`).
    @inlinable
    mutating func readString(member: @autoclosure () -> String) throws(JSONError) -> String {
        guard peekKind() == .string else { throw JSONError("\(member()) must be a string", at: position) }
        return try readString()
    }

    /// Reads a NumericDate: a finite JSON number or, with `allowRFC3339`, an RFC 3339 string.
    @inlinable
    package mutating func readNumericDate(member: @autoclosure () -> String, allowRFC3339: Bool) throws(JSONError) -> Double {
        let offset = position
        func invalid() -> JSONError {
            let expected = allowRFC3339 ? "a NumericDate or an RFC 3339 date-time" : "a finite number (NumericDate)"
            return JSONError("\(member()) must be \(expected)", at: offset)
        }
        switch peekKind() {
        case .number:
            let value = try readNumber()
            guard value.isFinite else { throw invalid() }
            return value
        case .string where allowRFC3339:
            guard let value = NumericDate.parseRFC3339(try readString()) else {
                throw invalid()
            }
            return value
        default:
            throw invalid()
        }
    }
}
