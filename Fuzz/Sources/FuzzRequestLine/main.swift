import FuzzSupport
import TokenVerifier

/// Request lines: the JSON request parser, the context checks and the answer writer, in
/// normal and audit mode, one line at a time and as a batch split at newlines.
runFuzzer { bytes in
    let size = bytes.count
    let line = RequestLine.trimmed(bytes)
    if !line.isEmpty, case .success(let request) = RequestLine.parse(line) {
        precondition(request.token.count <= size, "the token comes from the line")
    }
    FuzzVerifier.answer(bytes)
    FuzzVerifier.answer(bytes, audit: true)
    FuzzVerifier.answerBatch(bytes)
}
