import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// Replays Fuzz/corpus/FuzzChain as the harness reads it (Fuzz/Sources/FuzzChain): each input split
/// into DER items and validated against the harness's anchors; the seeds' expected verdicts too.
@Suite struct ChainFuzzCorpusTests {
    static let anchorsFile = Repository.root.appendingPathComponent("Fuzz/Sources/FuzzChain/anchors.pem").path
    static let time: Int64 = 1_780_000_000

    /// The harness's split: DER TLVs (short or long lengths up to 4 bytes), the last cut short, at most 10.
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var items: [[UInt8]] = []
        var index = 0
        while index < bytes.count, items.count < 10 {
            var end = index + 2
            var length = 0
            if index + 1 < bytes.count {
                let first = Int(bytes[index + 1])
                if first < 0x80 {
                    length = first
                } else {
                    let count = min(first & 0x7F, 4)
                    for offset in 0..<count where index + 2 + offset < bytes.count {
                        length = length << 8 | Int(bytes[index + 2 + offset])
                    }
                    end += count
                }
            }
            end = min(bytes.count, end + length)
            items.append(Array(bytes[index..<end]))
            index = end
        }
        return items
    }

    @Test func corpusReplays() throws {
        let anchors = try TrustAnchors.load([(path: Self.anchorsFile, environment: nil)])
        #expect(anchors.count == 2)
        let inputs = try Repository.fuzzCorpus("FuzzChain")
        #expect(inputs.count >= 6)
        for input in inputs {
            let chain = Self.split(input)
            _ = CertificateSummary.summaries(der: chain)
            if case .trusted(let trusted) = anchors.validate(chain, at: Self.time) {
                #expect(trusted.notBefore <= Self.time && Self.time <= trusted.notAfter)
            }
        }
    }

    @Test func seedsHaveTheirVerdicts() throws {
        let anchors = try TrustAnchors.load([(path: Self.anchorsFile, environment: nil)])
        let directory = Repository.root.appendingPathComponent("Fuzz/corpus/FuzzChain")
        func verdict(_ name: String) throws -> ChainVerdict {
            let bytes = [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
            return anchors.validate(Self.split(bytes), at: Self.time)
        }
        for name in ["p256-chain", "p256-chain-with-root", "ed25519-leaf"] {
            guard case .trusted = try verdict(name) else {
                Issue.record("\(name) is not trusted")
                continue
            }
        }
        guard case .untrusted(let alone) = try verdict("p256-leaf-alone") else { return #expect(Bool(false)) }
        #expect(alone.why.contains("unknown issuer"))
        guard case .untrusted(let root) = try verdict("root-as-leaf") else { return #expect(Bool(false)) }
        // The anchor itself as the leaf: its path validates, but its keyUsage lacks digitalSignature.
        #expect(root.why == "has a keyUsage without digitalSignature")
    }
}
