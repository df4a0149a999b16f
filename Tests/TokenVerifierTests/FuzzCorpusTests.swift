import Foundation
import Testing
@testable import TokenVerifier

/// Replays the committed fuzz corpora (`Fuzz/corpus`, grown by `Fuzz/run`) through the same
/// entry points as the harnesses, so that every input the fuzzers kept, crashers included once
/// fixed, stays a regression test in the ordinary test run.
@Suite struct FuzzCorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

    static func inputs(_ harness: String) throws -> [[UInt8]] {
        let directory = corpus.appendingPathComponent(harness)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) }
    }

    static let verifier: TokenVerifier = {
        let demo = corpus.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Data/demo")
        let keys = try! KeySet.load(files: [demo.appendingPathComponent("keys.jwks").path]).0
        let revocations = try! RevocationList.load(files: [demo.appendingPathComponent("revocations.jsonl").path])
        return TokenVerifier(keys: keys, revocations: revocations, options: VerificationOptions(checkTime: 1_800_000_000))
    }()

    /// Every non-blank line gets one answer: a JSON object on one line, numbered, with a verdict.
    let worker = FuzzCorpusTests.verifier.makeWorker()

    private func expectOneAnswer(_ input: [UInt8], audit: Bool) throws {
        input.withUnsafeBufferPointer { buffer in
            let line = RequestLine.trimmed(buffer)
            guard !line.isEmpty, !line.contains(0x0A) else { return }
            var writer = JSONWriter()
            let reason = worker.answer(line: line, number: 1, audit: audit, to: &writer)
            #expect(writer.bytes.last == 0x0A && writer.bytes.dropLast().firstIndex(of: 0x0A) == nil)
            // Strict JSON (checked by our reader: an echoed id may be a number no Double holds).
            #expect(JSONValidation.problem(in: Array(writer.bytes.dropLast())) == nil)
            let text = String(decoding: writer.bytes, as: UTF8.self)
            #expect(text.hasPrefix("{\"line\":1,"))
            if let reason {
                #expect(text.contains("\"valid\":false,\"reason\":\"\(reason.rawValue)\""))
            } else {
                #expect(text.contains("\"valid\":true,"))
            }
        }
    }

    @Test func tokenCorpus() throws {
        let inputs = try Self.inputs("FuzzToken")
        #expect(inputs.count >= 10)
        for input in inputs { try expectOneAnswer(input, audit: false) }
    }

    @Test func requestLineCorpus() throws {
        let inputs = try Self.inputs("FuzzRequestLine")
        #expect(inputs.count >= 10)
        for input in inputs {
            try expectOneAnswer(input, audit: false)
            try expectOneAnswer(input, audit: true)
        }
    }

    @Test func keySetCorpus() throws {
        for input in try Self.inputs("FuzzKeySet") {
            do throws(KeySetError) {
                let (keys, _) = try KeySet.parse(input, file: "corpus.jwks")
                for key in keys.keys { #expect(keys[key.keyID] != nil) }
            } catch {
                #expect(error.file == "corpus.jwks")
            }
        }
    }

    @Test func revocationCorpus() throws {
        for input in try Self.inputs("FuzzRevocations") {
            do throws(RevocationListError) {
                _ = try RevocationList.parse(input, file: "corpus.jsonl")
            } catch {
                #expect(error.description.hasPrefix("corpus.jsonl"))
            }
        }
    }
}
