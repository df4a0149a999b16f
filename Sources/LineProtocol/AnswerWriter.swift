import TokenVerifier

/// Writes the answer line of SPEC §6 for one input line: the only writer of answers.
///
/// `{"line":N,"id":…,"valid":true,"jti":…,"sub":…,"aud":…,"kid":…,"alg":…,"exp":…,"role":…}`
/// for a valid token, written straight from the parsed token's bytes; `reason` and `detail`
/// (with `audit`, also `reasons` and `details`) for an invalid one; `"format":"cwt"` last for a
/// CWT that could be parsed (SPEC §2b).
enum AnswerWriter {
    /// Appends the answer and a newline. `id` is the JSON text read from the request (valid JSON,
    /// possibly with white space, which is dropped).
    static func write(line: Int, id: UnsafeBufferPointer<UInt8>?, failures: [VerificationFailure], token: ParsedToken?,
                      audit: Bool, to writer: inout JSONWriter) {
        writer.raw("{\"line\":")
        writer.integer(line)
        if let id {
            writer.raw(",\"id\":")
            writer.minified(id)
        }
        guard failures.isEmpty, let token else {
            return writeInvalid(failures, audit: audit, isCWT: token?.format == .cwt, to: &writer)
        }
        func string(_ text: ParsedToken.Text) {
            token.withBytes(text) { writer.string(utf8: $0) }
        }
        writer.raw(",\"valid\":true,\"jti\":")
        string(token.tokenID)
        writer.raw(",\"sub\":")
        string(token.subject)
        writer.raw(",\"aud\":")
        if token.audienceIsArray {
            writer.raw("[")
            for index in 0..<Int(token.audience.count) {
                if index > 0 { writer.raw(",") }
                string(token.item(token.audience, index))
            }
            writer.raw("]")
        } else {
            string(token.item(token.audience, 0))
        }
        writer.raw(",\"kid\":")
        if let keyID = token.keyID { string(keyID) } else { writer.raw("\"\"") }
        writer.raw(",\"alg\":")
        if let algorithm = token.algorithm { string(algorithm) } else { writer.raw("\"\"") }
        writer.raw(",\"exp\":")
        writer.number(token.expiresAt)
        if let role = token.role {
            writer.raw(",\"role\":")
            string(role)
        }
        writer.raw(token.format == .cwt ? ",\"format\":\"cwt\"}\n" : "}\n")
    }

    private static func writeInvalid(_ failures: [VerificationFailure], audit: Bool, isCWT: Bool, to writer: inout JSONWriter) {
        writer.raw(",\"valid\":false,\"reason\":")
        writer.string(failures.first?.reason.rawValue ?? "")
        writer.raw(",\"detail\":")
        writer.string(failures.first?.detail ?? "")
        if audit {
            writer.raw(",\"reasons\":")
            writer.strings(failures.map(\.reason.rawValue))
            writer.raw(",\"details\":")
            writer.strings(failures.map(\.detail))
        }
        writer.raw(isCWT ? ",\"format\":\"cwt\"}\n" : "}\n")
    }

    /// Appends the answer to a line that is not a well-formed request.
    static func writeMalformed(line: Int, _ malformed: RequestLine.Malformed, audit: Bool, to writer: inout JSONWriter) {
        let failures = [VerificationFailure(.malformedRequest, malformed.detail)]
        guard let id = malformed.id else {
            return write(line: line, id: nil, failures: failures, token: nil, audit: audit, to: &writer)
        }
        id.withUnsafeBufferPointer { write(line: line, id: $0, failures: failures, token: nil, audit: audit, to: &writer) }
    }
}

extension VerificationResult {
    /// This verdict as the answer line of SPEC §6 (with its newline) for input line `number`,
    /// echoing `id` (JSON text) when given.
    public func answerLine(number: Int, id: [UInt8]? = nil, audit: Bool = false) -> [UInt8] {
        var writer = JSONWriter()
        if let id {
            id.withUnsafeBufferPointer {
                AnswerWriter.write(line: number, id: $0, failures: failures, token: parsed, audit: audit, to: &writer)
            }
        } else {
            AnswerWriter.write(line: number, id: nil, failures: failures, token: parsed, audit: audit, to: &writer)
        }
        return writer.bytes
    }
}
