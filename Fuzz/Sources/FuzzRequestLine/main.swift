import FuzzSupport
import LineProtocol

/// Request lines: the JSON request parser, the context checks and the answer writer, in
/// normal and audit mode, one line at a time and as a batch split at newlines, against a
/// verifier with keys, a trust anchor and status lists; and the same line at a check time taken
/// from the input (its last 8 bytes as a Double's bits, extremes included).
let extremes: [Double] = [
    1e19, -1e19, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 1e-320, -0.0,
    253_402_300_800, 253_402_300_799.999, -62_135_596_801, -62_135_596_800, 9.223372036854775807e18,
]

runFuzzer { bytes in
    let size = bytes.count
    if case .success(let request) = RequestLine.parse(bytes) {
        precondition(request.token.count <= size, "the token comes from the line")
    }
    FuzzVerifier.answer(bytes)
    FuzzVerifier.answer(bytes, audit: true)
    FuzzVerifier.answerBatch(bytes)
    var bits: UInt64 = 0
    for byte in bytes.suffix(8) { bits = bits << 8 | UInt64(byte) }
    FuzzVerifier.verify(bytes, at: size >= 8 ? Double(bitPattern: bits) : extremes[size % extremes.count])
}
