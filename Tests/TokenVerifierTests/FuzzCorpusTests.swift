import Foundation
import Testing
@testable import TokenVerifier

/// Replays the committed key-set and revocation fuzz corpora (`Fuzz/corpus`, grown by `Fuzz/run`;
/// the token and request-line corpora are replayed by LineProtocolTests) through the same
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

    @Test func keySetCorpus() throws {
        let inputs = try Self.inputs("FuzzKeySet")
        #expect(inputs.count >= 10, "the key-set corpus is missing or nearly empty")
        for input in inputs {
            do throws(KeySetError) {
                let (keys, _) = try KeySet.parse(input, file: "corpus.jwks")
                for key in keys.keys { #expect(keys[key.keyID] != nil) }
            } catch {
                #expect(error.file == "corpus.jwks")
            }
        }
    }

    @Test func revocationCorpus() throws {
        let inputs = try Self.inputs("FuzzRevocations")
        #expect(inputs.count >= 10, "the revocation corpus is missing or nearly empty")
        for input in inputs {
            do throws(RevocationListError) {
                _ = try RevocationList.parse(input, file: "corpus.jsonl")
            } catch {
                #expect(error.description.hasPrefix("corpus.jsonl"))
            }
        }
    }
}
