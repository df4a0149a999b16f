import FuzzSupport
import LineProtocol

/// Request lines: the JSON request parser, the context checks and the answer writer, in
/// normal and audit mode, one line at a time and as a batch split at newlines.
runFuzzer { bytes in
    let size = bytes.count
    if case .success(let request) = RequestLine.parse(bytes) {
        precondition(request.token.count <= size, "the token comes from the line")
    }
    FuzzVerifier.answer(bytes)
    FuzzVerifier.answer(bytes, audit: true)
    FuzzVerifier.answerBatch(bytes)
}
