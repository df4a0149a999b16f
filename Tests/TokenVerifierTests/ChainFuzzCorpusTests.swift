import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifierTesting

@testable import TokenVerifier

/// Replays Fuzz/corpus/FuzzChain as the harness reads it (Fuzz/Sources/FuzzChain): each input split
/// into DER items and validated against the harness's anchors; the seeds' expected verdicts too.
@Suite struct ChainFuzzCorpusTests {
    static let anchorsFile = Repository.root.appendingPathComponent("Fuzz/Sources/FuzzChain/anchors.pem").path
    static let time: Int64 = 1_780_000_000

    @Test func corpusReplays() throws {
        let anchors = try TrustAnchors.load([(path: Self.anchorsFile, environment: nil)])
        #expect(anchors.count == 2)
        let inputs = try Repository.fuzzCorpus("FuzzChain")
        #expect(inputs.count >= 6)
        for input in inputs {
            let chain = DERItems.split(input)
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
            return anchors.validate(DERItems.split(bytes), at: Self.time)
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
