import TokenVerifier

/// Writes the JSON answer line of spec §6 for one input line: the only writer of answer lines. It writes
/// `{"line":N,"id":…` and the verifier appends the verdict's members
/// (``VerificationResult/appendAnswerMembers(audit:to:)`` in TokenVerifier).
enum AnswerWriter {
    /// Appends the answer and a newline. `id` is the JSON text read from the request (valid JSON,
    /// possibly with white space, which is dropped).
    static func write(
        line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult, audit: Bool,
        to writer: inout JSONWriter
    ) {
        result.appendAnswer(audit: audit, openingBound: 40 + (id?.count ?? 0), to: &writer) { out in
            out.raw("{\"line\":")
            out.integer(Int64(line))
            if let id {
                out.raw(",\"id\":")
                out.minified(id)
            }
        }
    }
}

extension VerificationResult {
    /// This verdict as the answer line of spec §6 (with its newline) for input line `number`,
    /// echoing `id` (JSON text) when given.
    public func answerLine(number: Int, id: [UInt8]? = nil, audit: Bool = false) -> [UInt8] {
        var writer = JSONWriter()
        if let id {
            id.withUnsafeBufferPointer {
                AnswerWriter.write(line: number, id: $0, result: self, audit: audit, to: &writer)
            }
        } else {
            AnswerWriter.write(line: number, id: nil, result: self, audit: audit, to: &writer)
        }
        return writer.bytes
    }
}
