import Foundation
import Testing

@testable import TokenVerifier

/// SPEC §3b, issue 55 G: a chain's answer never depends on the order of the lines. Whatever the
/// chain cache holds, `ChainTrust.key` answers each line as a fresh validation at the line's time
/// would: a failure from path validation is kept for its second only, and a trusted path for its
/// joint validity only when no other choice of path (or environment) could answer otherwise.
@Suite struct ChainCacheOrderTests {
    static let d = ChainWorld.day
    static let t0 = ChainWorld.t0

    /// Certificates of this suite (ChainFactory, openssl command line), made once.
    final class Certificates: @unchecked Sendable {
        let factory: ChainFactory
        let sameOld: ChainFactory.Issued
        let sameNew: ChainFactory.Issued
        let leafOfSame: ChainFactory.Issued
        let envProd: ChainFactory.Issued
        let envInt: ChainFactory.Issued
        let leafOfEnv: ChainFactory.Issued

        static let shared = Result { try Certificates() }

        private init() throws {
            factory = try ChainFactory()
            let (d, t0) = (ChainCacheOrderTests.d, ChainCacheOrderTests.t0)
            // Two anchors with one subject and one subject key identifier, of two keys: the old
            // one valid for days 0–100, the new one (which issued the leaf) from day 50.
            let root = [
                "basicConstraints = critical,CA:TRUE", "keyUsage = critical,keyCertSign,cRLSign",
                "subjectKeyIdentifier = 0102030405060708090A0B0C0D0E0F1011121314",
            ]
            sameOld = try factory.certificate(
                "sameOld", subject: "/CN=Root same", notBefore: t0, notAfter: t0 + 100 * d, extensions: root)
            sameNew = try factory.certificate(
                "sameNew", subject: "/CN=Root same", notBefore: t0 + 50 * d, notAfter: t0 + 3650 * d, extensions: root)
            leafOfSame = try factory.certificate(
                "leafOfSame", subject: "/CN=Leaf of same", issuer: "sameNew", notBefore: t0 + d,
                notAfter: t0 + 300 * d, extensions: ChainFactory.leaf(dns: ["same.example"]))
            // One key's root twice: for prod always, for int (re-issued) on days 100–200 only.
            envProd = try factory.certificate(
                "envProd", subject: "/CN=Root env", notBefore: t0, notAfter: t0 + 3650 * d,
                extensions: ChainFactory.ca(root: true))
            try FileManager.default.copyItem(atPath: factory.path("envProd.key"), toPath: factory.path("envInt.key"))
            envInt = try factory.certificate(
                "envInt", subject: "/CN=Root env", notBefore: t0 + 100 * d, notAfter: t0 + 200 * d,
                extensions: ChainFactory.ca(root: true))
            leafOfEnv = try factory.certificate(
                "leafOfEnv", subject: "/CN=Leaf of env", issuer: "envProd", notBefore: t0 + d,
                notAfter: t0 + 300 * d, extensions: ChainFactory.leaf(dns: ["env.example"]))
        }
    }

    let certificates: Certificates

    init() throws { certificates = try Certificates.shared.get() }

    /// A chain's answer as a comparable text: the environment and path of a trusted chain, or why not.
    static func text(_ result: Result<ChainKey, ChainRefusal>) -> String {
        switch result {
        case .success(let key):
            let path = key.thumbprints.map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",")
            return "trusted \(key.chain.environment?.rawValue ?? "untagged") \(path)"
        case .failure(let refusal): return "untrusted \(refusal.detail)"
        }
    }

    static func text(_ verdict: ChainVerdict) -> String {
        switch verdict {
        case .trusted(let chain):
            let path = chain.thumbprints.map { Base64URL.encodeString($0) }.joined(separator: ",")
            return "trusted \(chain.environment?.rawValue ?? "untagged") \(path)"
        case .untrusted(let failure): return "untrusted \(failure.description)"
        }
    }

    /// The `x5c` of `chain`.
    static func x5c(_ chain: [[UInt8]]) -> [UInt8] {
        Array(("[" + chain.map { "\"\(Data($0).base64EncodedString())\"" }.joined(separator: ",") + "]").utf8)
    }

    /// Every order of `times` through one ChainTrust (a cache each) answers each time as a fresh
    /// validation does.
    func expectOrderFree(
        _ anchors: TrustAnchors, _ chain: [[UInt8]], times: [Int64], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let fresh = Dictionary(uniqueKeysWithValues: times.map { ($0, Self.text(anchors.validate(chain, at: $0))) })
        let value = Self.x5c(chain)
        for order in permutations(times) {
            let trust = ChainTrust(anchors: anchors, options: VerificationOptions())
            for time in order + order {
                let answer = value.withUnsafeBufferPointer {
                    trust.key(for: $0, format: .jws, at: Double(time) + 0.5, signatureCache: nil)
                }
                #expect(
                    Self.text(answer) == fresh[time], "day \((time - Self.t0) / Self.d) in the order \(order)",
                    sourceLocation: sourceLocation)
            }
        }
    }

    func permutations(_ items: [Int64]) -> [[Int64]] {
        guard items.count > 1 else { return [items] }
        return items.indices.flatMap { index in
            var rest = items
            let first = rest.remove(at: index)
            return permutations(rest).map { [first] + $0 }
        }
    }

    /// Two anchors of one subject and key identifier: early, OpenSSL takes the old one (a bad
    /// signature); once the old one expired it takes the new one (trusted).
    @Test func twoAnchorsOfOneSubjectAnswerAsFreshValidationInEveryOrder() throws {
        let pem = certificates.sameOld.pem + certificates.sameNew.pem
        let anchors = try TrustAnchors.parse(pem: Array(pem.utf8), environment: nil, file: "same.pem")
        let chain = [certificates.leafOfSame.der]
        let times = [10, 60, 150].map { Self.t0 + $0 * Self.d }
        #expect(Self.text(anchors.validate(chain, at: times[0])).hasPrefix("untrusted"))
        #expect(Self.text(anchors.validate(chain, at: times[2])).hasPrefix("trusted"))
        expectOrderFree(anchors, chain, times: times)
    }

    /// A chain that validates under prod's anchors always and under int's on days 100–200 (then
    /// under two environments: untrusted).
    @Test func twoEnvironmentsAnswerAsFreshValidationInEveryOrder() throws {
        let anchors = try TrustAnchors.load([
            (path: certificates.factory.path("envProd.pem"), environment: .production),
            (path: certificates.factory.path("envInt.pem"), environment: .integration),
        ])
        let chain = [certificates.leafOfEnv.der]
        let times = [50, 150, 250].map { Self.t0 + $0 * Self.d }
        #expect(Self.text(anchors.validate(chain, at: times[1])).contains("more than one environment"))
        expectOrderFree(anchors, chain, times: times)
    }

    /// A line's time of any size is judged without a trap: beyond ±(2^53 − 1) seconds (or not a
    /// number) the chain is refused, saying why.
    @Test(arguments: [
        1e19, -1e19, 9.3e18, Double.greatestFiniteMagnitude, .infinity, -.infinity, .nan, 9_007_199_254_740_992,
    ])
    func timesOfAnySizeAreRefusedWithoutATrap(_ time: Double) throws {
        let world = try ChainWorld.shared.get()
        let trust = ChainTrust(anchors: try world.anchors("rootP256"), options: VerificationOptions())
        let value = Self.x5c(world.chain("leafP256", "intP256"))
        let answer = value.withUnsafeBufferPointer { trust.key(for: $0, format: .jws, at: time, signatureCache: nil) }
        guard case .failure(let refusal) = answer else {
            Issue.record("a chain at \(time) is trusted")
            return
        }
        #expect(refusal.detail.contains("outside ±(2^53 − 1) seconds"), "\(refusal.detail)")
    }
}
