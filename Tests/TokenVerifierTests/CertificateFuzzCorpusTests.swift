import Foundation
import TestSupport
import Testing
import TokenVerifierTesting

@testable import TokenVerifier

/// Replays Fuzz/corpus/FuzzCertificate as its harness reads it (Fuzz/Sources/FuzzCertificate): a
/// time, a place and a certificate in FuzzChain's good P-256 chain, through one shared chain cache,
/// with the harness's checks: answers as fresh validation, only DER trusted, twins named alike.
@Suite struct CertificateFuzzCorpusTests {
    static let fuzz = Repository.root.appendingPathComponent("Fuzz")

    @Test func corpusReplaysWithTheHarnessChecks() throws {
        let anchors = try TrustAnchors.load([
            (path: Self.fuzz.appendingPathComponent("Sources/FuzzChain/anchors.pem").path, environment: nil)
        ])
        let good = DERItems.split(
            try Data(contentsOf: Self.fuzz.appendingPathComponent("corpus/FuzzChain/p256-chain")))
        #expect(good.count == 2)
        let trust = ChainTrust(anchors: anchors, options: VerificationOptions(chainCacheEntries: 64))
        let inputs = try Repository.fuzzCorpus("FuzzCertificate")
        #expect(inputs.count >= 6)
        var trusted = 0
        for bytes in inputs {
            let input = try #require(CertificateFuzzInput(bytes))
            let chain = input.chain(replacing: good)
            let value = ChainCacheOrderTests.x5c(chain)
            let answer = value.withUnsafeBufferPointer {
                trust.key(for: $0, format: .jws, at: input.time, signatureCache: nil)
            }
            guard let second = ChainTrust.second(of: input.time) else {
                #expect(throws: ChainRefusal.self) { try answer.get() }
                continue
            }
            let verdict = anchors.validate(chain, at: second)
            #expect(ChainCacheOrderTests.text(answer) == ChainCacheOrderTests.text(verdict))
            guard case .trusted(let path) = verdict else { continue }
            trusted += 1
            let position = input.asIntermediate ? 1 : 0
            #expect(X509Certificate.encodingFault(input.certificate) == nil)
            let identity = path.certificates[position]
            #expect(identity.thumbprints[0] == Base64URL.encode(sha256(input.certificate)))
            let twin = CertificateEncodings.twin(input.certificate)
            #expect(identity.thumbprints.contains(Base64URL.encode(sha256(twin))))
        }
        // The good leaf and intermediate and their twins, at a time inside their validity.
        #expect(trusted == 4)
    }
}
