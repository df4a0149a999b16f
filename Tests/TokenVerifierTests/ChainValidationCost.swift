import Foundation
import Testing

@testable import TokenVerifier

/// The CPU cost of one chain validation (a first sighting of a chain, SPEC §3b "Cost"), printed,
/// never asserted. Run in release mode:
///
///     CHAIN_COST=1 swift test -c release -Xswiftc -enable-testing --filter ChainValidationCost
@Suite(.enabled(if: ProcessInfo.processInfo.environment["CHAIN_COST"] != nil))
struct ChainValidationCost {
    /// CPU seconds of this thread.
    static func cpuSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The median over rounds of the CPU microseconds per validation.
    static func microseconds(_ anchors: TrustAnchors, _ chain: [[UInt8]], rounds: Int = 9, each: Int = 400) -> Double {
        var perRound: [Double] = []
        for _ in 0..<rounds {
            let start = cpuSeconds()
            for _ in 0..<each {
                guard case .trusted = anchors.validate(chain, at: ChainWorld.now) else { fatalError("not trusted") }
            }
            perRound.append((cpuSeconds() - start) / Double(each) * 1e6)
        }
        return perRound.sorted()[rounds / 2]
    }

    @Test func oneValidation() throws {
        let world = try ChainWorld.shared.get()
        let cases: [(String, TrustAnchors, [[UInt8]])] = [
            ("P-256 root, intermediate and leaf", try world.anchors("rootP256"), world.chain("leafP256", "intP256")),
            ("Ed25519 root, intermediate and leaf", try world.anchors("rootEd"), world.chain("leafEdEd", "intEd")),
            (
                "RSA root, P-384 intermediate, Ed25519 leaf", try world.anchors("rootRSA"),
                world.chain("leafEd", "intP384")
            ),
        ]
        for (name, anchors, chain) in cases {
            print("chain validation, \(name): \(String(format: "%.1f", Self.microseconds(anchors, chain))) µs CPU")
        }
    }
}
