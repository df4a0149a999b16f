import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// Replays the committed Status List Token fuzz corpus (`Fuzz/corpus/FuzzStatusList`) through the
/// harness's entry points: read unverified and loaded against a key set, every input either
/// loads or is refused naming its source, and every value fits its bits.
@Suite struct StatusListFuzzCorpusTests {
    @Test func statusListCorpus() throws {
        let inputs = try Repository.fuzzCorpus("FuzzStatusList")
        #expect(inputs.count >= 9, "the status list corpus is missing or nearly empty")
        let keys = try KeySet.load(files: [Repository.demo.appendingPathComponent("keys.jwks").path]).0
        var read = 0
        for input in inputs {
            do throws(StatusListError) {
                let entries = try StatusListInspection.entries(of: input, maxInflatedBytes: 1 << 16)
                #expect([1, 2, 4, 8].contains(entries.bits))
                #expect(entries.nonZero.allSatisfy { $0.status != 0 && Int($0.status) < 1 << entries.bits })
                read += 1
            } catch {
                #expect(error.source == "the token")
            }
            do throws(StatusListError) {
                let list = try StatusListToken.load(
                    bytes: input, source: "corpus", keys: keys, maxInflatedBytes: 1 << 16)
                #expect(list.status(at: UInt64(list.count)) == nil)
            } catch {
                #expect(error.source == "corpus")
            }
        }
        #expect(read >= 9, "the corpus holds readable lists of every form")
    }
}
