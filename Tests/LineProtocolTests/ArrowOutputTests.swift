import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenVerifier

/// The Arrow IPC stream of `verify --output-format arrow`, read back message by message: the
/// schema first, a record batch for each batch of lines whose `line` and `valid` columns hold the
/// answers, buffers inside their body at multiples of 8, and the end-of-stream marker. (pyarrow
/// reads the whole stream against the JSON answers in Integrations/spark/tests/test_arrow_output.py.)
@Suite struct ArrowOutputTests {
    static let demo = Repository.demo

    func demoVerifier(audit: Bool) throws -> Verifier {
        let (keys, _) = try KeySet.load(files: [Self.demo.appendingPathComponent("keys.jwks").path])
        let revocations = try RevocationList.load(files: [Self.demo.appendingPathComponent("revocations.jsonl").path])
        return Verifier(
            keys: keys, revocations: revocations, options: VerificationOptions(checkTime: 1_800_000_000, audit: audit))
    }

    func demoLines() throws -> [InputLine] {
        try String(contentsOf: Self.demo.appendingPathComponent("requests.jsonl"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .enumerated().filter { !$0.element.isEmpty }
            .map { InputLine(number: $0.offset + 1, bytes: Array($0.element.utf8)) }
            + [InputLine(number: 900, bytes: Array("{bad json".utf8)), InputLine(number: 901, bytes: nil)]
    }

    @Test(arguments: [false, true])
    func theStreamIsTheSchemaABatchForEachCallAndTheEnd(audit: Bool) throws {
        let verifier = try demoVerifier(audit: audit)
        let lines = try demoLines()
        let halves = [Array(lines[..<(lines.count / 2)]), Array(lines[(lines.count / 2)...])]
        var stream = AnswerFormat.arrow.streamStart(audit: audit)
        var verdicts: [Bool] = []
        let answerer = LineAnswerer(verifier: verifier, maxLineBytes: 65536, format: .arrow)
        for half in halves {
            verdicts += answerer.answer(half, to: &stream).map { $0 == nil }
        }
        stream += AnswerFormat.arrow.streamEnd
        #expect(verdicts.contains(true) && verdicts.contains(false))

        let messages = try IPCMessages(stream)
        let columns = AnswerColumns.fields(audit: audit).count
        #expect(messages.count == 3)
        #expect(messages[0].headerType == 1 && messages[0].body.isEmpty)
        var rows: [(line: Int64, valid: Bool)] = []
        for (batch, half) in zip(messages.dropFirst(), halves) {
            #expect(batch.headerType == 3)
            let recordBatch = batch.header
            #expect(recordBatch.long(0) == Int64(half.count))
            let nodes = recordBatch.pairs(1)
            let buffers = recordBatch.pairs(2)
            // A node a column, and one more for each list's items; 2 buffers for the integer,
            // the boolean and the double, 3 for each text, 2 + 3 for each list.
            #expect(nodes.count == columns + (audit ? 2 : 0))
            #expect(buffers.count == 3 * (columns - 3) + 6 + (audit ? 2 * 2 : 0))
            #expect(nodes[0] == (Int64(half.count), 0))
            for (offset, length) in buffers {
                #expect(offset % 8 == 0 && offset + length <= Int64(batch.body.count))
            }
            let lineData = buffers[1]
            let validBits = buffers[5]
            for row in 0..<half.count {
                let line = batch.body.withUnsafeBytes {
                    $0.loadUnaligned(fromByteOffset: Int(lineData.0) + 8 * row, as: Int64.self)
                }
                let bit = batch.body[Int(validBits.0) + row / 8] >> (row % 8) & 1
                rows.append((line, bit == 1))
            }
        }
        #expect(rows.map(\.line) == lines.map { Int64($0.number) })
        #expect(rows.map(\.valid) == verdicts)
        #expect(Array(stream.suffix(8)) == [0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])
    }

    @Test func rowsAreWrittenOnceATextColumnPassesTheLimit() {
        var columns = AnswerColumns(audit: false, fullBytes: 100)
        let failure = VerificationResult(failures: [
            VerificationFailure(.malformedToken, String(repeating: "d", count: 40))
        ])
        var output: [UInt8] = []
        columns.append(line: 1, id: nil, result: failure)
        columns.append(line: 2, id: nil, result: failure)
        #expect(!columns.isFull)
        columns.append(line: 3, id: nil, result: failure)
        #expect(columns.isFull && columns.count == 3)
        columns.appendRecordBatch(to: &output)
        #expect(!columns.isFull && columns.count == 0)
        #expect(output.starts(with: [0xFF, 0xFF, 0xFF, 0xFF]) && output.count % 8 == 0)
    }
}
