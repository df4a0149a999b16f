import TokenFormats
import TokenVerifier

/// Writes the JSON answer line of spec §6 for one input line: the only writer of answer lines
/// (``JSONWriter/appendAnswer(line:id:result:audit:)``, from the verdict's texts).
enum AnswerWriter {
    /// Appends the answer and a newline. `id` is the JSON text read from the request (valid JSON,
    /// possibly with white space, which is dropped).
    @inline(__always)
    static func write(
        line: Int, id: UnsafeBufferPointer<UInt8>?, result: VerificationResult, audit: Bool,
        to writer: inout JSONWriter
    ) {
        writer.appendAnswer(line: line, id: id, result: result, audit: audit)
    }
}

extension VerificationResult {
    /// This verdict as the answer line of spec §6 (with its newline) for input line `number`,
    /// echoing `id` (JSON text) when given.
    package func answerLine(number: Int, id: [UInt8]? = nil, audit: Bool = false) -> [UInt8] {
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
