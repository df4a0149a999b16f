import TokenVerifier

import Foundation

/// One verifier for every fuzz input, with the demo keys and revocations of `Data/demo`, so
/// that fuzzed tokens grown from the demo corpus reach every check, signature included.
public enum FuzzVerifier {
    nonisolated(unsafe) public static let worker: VerificationWorker = {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../Data/demo").standardized.path
        let keys = try! KeySet.load(files: [demo + "/keys.jwks"]).0
        let revocations = try! RevocationList.load(files: [demo + "/revocations.jsonl"])
        let verifier = TokenVerifier(keys: keys, revocations: revocations,
                                     options: VerificationOptions(checkTime: 1_800_000_000, signatureCacheSlots: 64))
        return verifier.makeWorker()
    }()

    /// Answers `bytes` split at newlines as one batch of protocol lines (the path of `verify`'s
    /// workers): exactly one answer line per non-blank line, in order.
    public static func answerBatch(_ bytes: UnsafeBufferPointer<UInt8>) {
        var lines: [(number: Int, bytes: [UInt8]?)] = []
        for (index, piece) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            let trimmed = RequestLine.trimmed(UnsafeBufferPointer(rebasing: piece))
            if trimmed.isEmpty { continue }
            lines.append((index + 1, index % 7 == 6 ? nil : Array(trimmed)))
        }
        var writer = JSONWriter()
        let reasons = worker.answer(lines: lines, audit: false, oversizeDetail: "too long", to: &writer)
        precondition(reasons.count == lines.count, "one verdict per line")
        let answers = writer.bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        precondition(answers.count == lines.count + 1 && answers.last!.isEmpty, "one answer line per line")
        for (answer, line) in zip(answers, lines) {
            precondition(answer.starts(with: Array("{\"line\":\(line.number),".utf8)), "answers in input order")
        }
    }

    /// Answers `bytes` as one protocol line (trimmed; nothing for a blank line) and checks the
    /// answer's shape: one JSON object on one line.
    public static func answer(_ bytes: UnsafeBufferPointer<UInt8>, audit: Bool = false) {
        let line = RequestLine.trimmed(bytes)
        guard !line.isEmpty, !line.contains(0x0A) else { return }
        var writer = JSONWriter()
        _ = worker.answer(line: line, number: 1, audit: audit, to: &writer)
        let output = writer.bytes
        precondition(output.first == UInt8(ascii: "{") && output.last == 0x0A, "an answer is one JSON object and a newline")
        precondition(output.dropLast().firstIndex(of: 0x0A) == nil, "an answer holds no newline")
    }
}
