import Testing
import TokenTools
import TokenVerifier

@testable import TokenGen

/// Sets with a chain share (spec §3b, §7 `gen --chain-share`): chained tokens verify with the
/// set's root as anchor and get the verdict written beside them, the kid tokens of the same seed
/// carry the same claims, and without the anchor no chained token is valid.
@Suite struct ChainGenerationTests {
    static func spec(chainShare: Double) -> TokenSetSpec {
        var spec = TokenSetSpec(count: 240, seed: 31)
        spec.expiredShare = 0.1
        spec.tamperedShare = 0.1
        spec.cwtShare = 0.5
        spec.chainShare = chainShare
        spec.chainLeaves = 5
        return spec
    }

    static func verifier(_ set: GeneratedTokenSet, anchors: Bool) throws -> Verifier {
        let trust =
            anchors
            ? try TrustAnchors.parse(pem: Array(set.anchors!.utf8), environment: .integration, file: "anchors.pem")
            : nil
        return Verifier(
            keys: try KeySet.parse(Array(set.keySet.utf8)).0, trustAnchors: trust,
            options: VerificationOptions(checkTime: 1_800_000_000))
    }

    @Test func chainedTokensGetTheExpectedVerdicts() throws {
        let set = TokenSetGenerator.generate(Self.spec(chainShare: 1), threads: 2)
        #expect(set.anchors?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
        let verifier = try Self.verifier(set, anchors: true)
        var leaves = Set<String>()
        for (token, expected) in zip(set.tokens, set.expected) {
            let result = verifier.verify(VerificationRequest(token: token))
            #expect(result.reason == expected, "\(token.prefix(40))")
            if result.isValid, case .success(let chain)? = ChainInspection.certificates(ofToken: Array(token.utf8)),
                let leaf = chain.first ?? nil
            {
                leaves.insert(leaf.thumbprint)
            }
        }
        #expect(Set(set.expected.compactMap { $0 }) == [.expired, .badSignature])
        #expect(leaves.count > 5 && leaves.count <= 10, "\(leaves.count) leaves of 5 per algorithm")
        let plain = TokenSetGenerator.generate(Self.spec(chainShare: 0), threads: 1)
        #expect(plain.anchors == nil && plain.expected == set.expected)
        #expect(zip(plain.tokens, set.tokens).filter { $0.0 == $0.1 }.isEmpty, "every token carries a chain")
    }

    @Test func withoutTheAnchorNoChainedTokenIsValid() throws {
        let set = TokenSetGenerator.generate(Self.spec(chainShare: 1), threads: 1)
        let verifier = try Self.verifier(set, anchors: false)
        for token in set.tokens {
            #expect(!verifier.verify(VerificationRequest(token: token)).isValid)
        }
    }
}
