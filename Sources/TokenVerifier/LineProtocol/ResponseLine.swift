/// Writes the answer line of SPEC §6 for one input line.
public enum ResponseLine {
    /// Appends `{"line":N,"valid":…,…}` and a newline to `writer`.
    ///
    /// Valid: `jti`, `sub`, `aud`, `kid`, `alg`, `exp` and `role` if present. Invalid: `reason`
    /// and `detail`; with `audit`, also `reasons` (every reason code) and `details`.
    public static func write(line: Int, id: [UInt8]?, result: VerificationResult, audit: Bool, to writer: inout JSONWriter) {
        guard let id else {
            return write(line: line, idJSON: nil, result: result, audit: audit, to: &writer)
        }
        id.withUnsafeBufferPointer { write(line: line, idJSON: $0, result: result, audit: audit, to: &writer) }
    }

    /// Like ``write(line:id:result:audit:to:)``, with the `id` given as the JSON text read from
    /// the request (valid JSON, possibly with white space, which is dropped).
    static func write(line: Int, idJSON: UnsafeBufferPointer<UInt8>?, result: VerificationResult, audit: Bool, to writer: inout JSONWriter) {
        writer.raw("{\"line\":")
        writer.integer(line)
        if let idJSON {
            writer.raw(",\"id\":")
            writer.minified(idJSON)
        }
        writeVerdict(result, audit: audit, to: &writer)
    }

    /// Like ``write(line:idJSON:result:audit:to:)`` for a token checked by the worker, written
    /// straight from the parsed token.
    static func write(line: Int, idJSON: UnsafeBufferPointer<UInt8>?, failures: [VerificationFailure], token: ParsedToken?,
                      audit: Bool, to writer: inout JSONWriter) {
        writer.raw("{\"line\":")
        writer.integer(line)
        if let idJSON {
            writer.raw(",\"id\":")
            writer.minified(idJSON)
        }
        guard failures.isEmpty, let token else {
            return writeInvalid(failures, audit: audit, to: &writer)
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
        writer.raw("}\n")
    }

    private static func writeVerdict(_ result: VerificationResult, audit: Bool, to writer: inout JSONWriter) {
        if result.isValid, let claims = result.claims, let header = result.header {
            writer.raw(",\"valid\":true,\"jti\":")
            writer.string(claims.tokenID)
            writer.raw(",\"sub\":")
            writer.string(claims.subject)
            writer.raw(",\"aud\":")
            if claims.audienceIsArray { writer.strings(claims.audience) } else { writer.string(claims.audience[0]) }
            writer.raw(",\"kid\":")
            writer.string(header.keyID ?? "")
            writer.raw(",\"alg\":")
            writer.string(header.algorithm ?? "")
            writer.raw(",\"exp\":")
            writer.number(claims.expiresAt)
            if let role = claims.role {
                writer.raw(",\"role\":")
                writer.string(role)
            }
            writer.raw("}\n")
        } else {
            writeInvalid(result.failures, audit: audit, to: &writer)
        }
    }

    private static func writeInvalid(_ failures: [VerificationFailure], audit: Bool, to writer: inout JSONWriter) {
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
        writer.raw("}\n")
    }

    /// Appends the answer to a line that is not a well-formed request.
    public static func writeMalformed(line: Int, _ malformed: RequestLine.Malformed, audit: Bool, to writer: inout JSONWriter) {
        let result = VerificationResult(failures: [VerificationFailure(.malformedRequest, malformed.detail)])
        write(line: line, id: malformed.id, result: result, audit: audit, to: &writer)
    }
}
