import FuzzSupport
import TokenTools
import TokenVerifierTesting

@testable import TokenVerifier

/// Certificate chains: the input is split into DER items (each a tag, a length and as many bytes
/// as the length says, the last one cut short), which are validated as a chain, leaf first, against
/// two fixed anchors (anchors.pem: a P-256 root and an Ed25519 root, valid 2026–2036; the seeds in
/// corpus/FuzzChain are chains under them) as of a fixed time and as of
/// one taken from the input. Every verdict names a certificate; a trusted chain validates again at both
/// ends of its joint validity, and each item summarises without a crash.
let anchorsFile = #filePath.replacingOccurrences(of: "main.swift", with: "anchors.pem")
let anchors = try! TrustAnchors.load([(path: anchorsFile, environment: nil)])

runFuzzer { bytes in
    let chain = DERItems.split(bytes)
    _ = CertificateSummary.summaries(der: chain)
    let fixed: Int64 = 1_780_000_000
    let fromInput = chain.first.map { Int64($0.count) * 86_400 * 30 } ?? 0
    for time in [fixed, fromInput] {
        for profile in [ChainProfile.token, .pathOnly] {
            switch anchors.validate(chain, at: time, profile: profile) {
            case .trusted(let trusted):
                precondition(trusted.notBefore <= time && time <= trusted.notAfter, "t is in the joint validity")
                precondition(trusted.thumbprints.count >= 1 && trusted.thumbprints.count <= 8)
                for end in [trusted.notBefore, trusted.notAfter] {
                    guard case .trusted = anchors.validate(chain, at: end, profile: profile) else {
                        preconditionFailure("a trusted chain validates at both ends of its joint validity")
                    }
                }
            case .untrusted(let failure):
                precondition(!failure.why.isEmpty && !failure.description.isEmpty)
            }
        }
    }
}
