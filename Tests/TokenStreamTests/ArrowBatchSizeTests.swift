import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenVerifier

@testable import TokenStream

#if canImport(Glibc)
import Glibc
#endif

/// How many lines the pipeline answers in one chunk, and so in one Arrow record batch: a reader
/// of batches pays per batch, so Arrow chunks are larger than JSON's, and a given size wins.
@Suite struct ArrowBatchSizeTests {
    @Test func eachFormatHasItsChunkSizeUnlessOneIsGiven() {
        #expect(VerifyPipeline.Configuration(threads: 1, format: .json).maxChunkLines == 256)
        #expect(VerifyPipeline.Configuration(threads: 1, format: .arrow).maxChunkLines == 2048)
        #expect(VerifyPipeline.Configuration(threads: 1, maxChunkLines: 100, format: .arrow).maxChunkLines == 100)
    }

    /// The rows of each record batch the pipeline writes for `lineCount` short lines of a file
    /// (all waiting at once), with one worker.
    func batchRows(lineCount: Int, maxChunkLines: Int?) throws -> [Int64] {
        let input = try Fixtures.writeTemporary(
            String(repeating: "not a token\n", count: lineCount), name: "input.txt")
        let outputPath = input + ".arrow"
        defer { try? FileManager.default.removeItem(atPath: (input as NSString).deletingLastPathComponent) }
        let inputDescriptor = open(input, O_RDONLY | O_CLOEXEC)
        let outputDescriptor = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(inputDescriptor >= 0 && outputDescriptor >= 0)
        let verifier = Verifier(keys: Fixtures().keySet, options: VerificationOptions(checkTime: Fixtures.now))
        let pipeline = VerifyPipeline(
            verifier: verifier, configuration: .init(threads: 1, maxChunkLines: maxChunkLines, format: .arrow))
        let outcome = pipeline.run(inputs: [inputDescriptor], output: outputDescriptor, stopRequested: { false })
        close(inputDescriptor)
        close(outputDescriptor)
        #expect(outcome.summary.answered == lineCount)
        let messages = try IPCMessages(Array(try Data(contentsOf: URL(fileURLWithPath: outputPath))))
        #expect(messages.first?.headerType == 1)
        return messages.dropFirst().map { message in
            #expect(message.headerType == 3)
            return message.header.long(0)
        }
    }

    @Test func arrowBatchesHoldUpTo2048Lines() throws {
        #expect(try batchRows(lineCount: 5000, maxChunkLines: nil) == [2048, 2048, 904])
        #expect(try batchRows(lineCount: 600, maxChunkLines: 256) == [256, 256, 88])
    }
}
