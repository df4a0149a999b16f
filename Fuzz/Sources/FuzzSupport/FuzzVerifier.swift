import Foundation
import LineProtocol
import TokenVerifier

/// One verifier for every fuzz input, with the demo keys, revocations and trust anchor of
/// `Data/demo` and the status lists of the FuzzStatusList corpus that load against them, so
/// that fuzzed tokens grown from the demo corpus reach every check, signature and status list
/// included, and the chains they carry (`x5c`, `x5chain`) are read and validated.
public enum FuzzVerifier {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Data/demo").standardized.path
    public static let keys = try! KeySet.load(files: [demo + "/keys.jwks"]).0
    public static let anchors = try! TrustAnchors.load([(demo + "/anchors.pem", .integration)])

    /// The corpus's status lists that load against the demo keys and anchor (at most 16).
    static let statusLists: StatusListSet = {
        let folder = URL(fileURLWithPath: demo).appendingPathComponent("../../Fuzz/corpus/FuzzStatusList")
            .standardized.path
        var lists: [StatusListToken] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() {
            guard lists.count < 16, let data = FileManager.default.contents(atPath: folder + "/" + name) else {
                continue
            }
            if let list = try? StatusListToken.load(
                bytes: [UInt8](data), source: name, keys: keys, anchors: anchors, maxInflatedBytes: 1 << 16)
            {
                lists.append(list)
            }
        }
        return StatusListSet(lists: lists)
    }()

    static func verifier(audit: Bool) -> Verifier {
        let revocations = try! RevocationList.load(files: [demo + "/revocations.jsonl"])
        return Verifier(
            keys: keys, revocations: revocations, statusLists: statusLists, trustAnchors: anchors,
            options: VerificationOptions(checkTime: 1_800_000_000, audit: audit, signatureCacheSlots: 64))
    }

    static func answerer(audit: Bool, format: AnswerFormat = .json) -> LineAnswerer {
        LineAnswerer(verifier: verifier(audit: audit), maxLineBytes: 1 << 20, format: format)
    }

    nonisolated(unsafe) static let plain = answerer(audit: false)
    nonisolated(unsafe) static let audit = answerer(audit: true)
    nonisolated(unsafe) static let arrowAudit = answerer(audit: true, format: .arrow)
    nonisolated(unsafe) static let worker = verifier(audit: false).makeWorker()

    /// Verifies the token of `bytes` (a request line or a bare token) at check time `time`, any
    /// Double (NaN, the infinities, subnormals, ±1e19 included): a time outside 0001-01-01 …
    /// 9999-12-31 is `malformed_request`, any other gets a verdict, and neither traps.
    public static func verify(_ bytes: UnsafeBufferPointer<UInt8>, at time: Double) {
        guard case .success(var request) = RequestLine.parse(bytes) else { return }
        request.context.checkTime = time
        let result = worker.verify(request)
        if !NumericDate.isRepresentable(time) {
            precondition(result.reason == .malformedRequest, "a check time out of range is malformed_request")
        } else {
            precondition(result.reason != .malformedRequest, "a check time in range is no malformed_request")
        }
    }

    /// Answers `bytes` split at newlines as one batch of protocol lines (the path of `verify`'s
    /// workers; every seventh line stands for one over the limit): exactly one answer line per
    /// non-blank line, in order.
    public static func answerBatch(_ bytes: UnsafeBufferPointer<UInt8>) {
        var lines: [InputLine] = []
        for (index, piece) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            if piece.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            lines.append(InputLine(number: index + 1, bytes: index % 7 == 6 ? nil : Array(piece)))
        }
        var output: [UInt8] = []
        let reasons = plain.answer(lines, to: &output)
        precondition(reasons.count == lines.count, "one verdict per line")
        let answers = output.split(separator: 0x0A, omittingEmptySubsequences: false)
        precondition(answers.count == lines.count + 1 && answers.last!.isEmpty, "one answer line per line")
        for (answer, line) in zip(answers, lines) {
            precondition(answer.starts(with: Array("{\"line\":\(line.number),".utf8)), "answers in input order")
        }
        // The same lines as Arrow columns: one record batch message (or none for no line).
        var columns: [UInt8] = []
        precondition(arrowAudit.answer(lines, to: &columns) == reasons, "the same verdicts as Arrow columns")
        precondition(lines.isEmpty == columns.isEmpty, "a record batch for lines")
        precondition(columns.isEmpty || columns.starts(with: [0xFF, 0xFF, 0xFF, 0xFF]), "an IPC message")
        precondition(columns.count % 8 == 0, "a message padded to 8 bytes")
    }

    /// Answers `bytes` as one protocol line (nothing for a blank line or one holding a newline)
    /// and checks the answer's shape: one JSON object on one line.
    public static func answer(_ bytes: UnsafeBufferPointer<UInt8>, audit: Bool = false) {
        guard !bytes.contains(0x0A), !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return }
        var output: [UInt8] = []
        _ = (audit ? Self.audit : plain).answer(line: bytes, number: 1, to: &output)
        precondition(
            output.first == UInt8(ascii: "{") && output.last == 0x0A, "an answer is one JSON object and a newline")
        precondition(output.dropLast().firstIndex(of: 0x0A) == nil, "an answer holds no newline")
    }
}
