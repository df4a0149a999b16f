import Foundation
import Testing

@testable import TokenVerifier

/// SPEC §3b: chains validated to trust anchors as of a time (TrustAnchors.validate), with chains
/// made by the openssl command line (ChainWorld).
@Suite struct ChainValidationTests {
    let world: ChainWorld
    let d = ChainWorld.day

    init() throws { world = try ChainWorld.shared.get() }

    func trustedChain(_ verdict: ChainVerdict, sourceLocation: SourceLocation = #_sourceLocation) -> TrustedChain? {
        guard case .trusted(let chain) = verdict else {
            Issue.record("expected trusted, got \(verdict)", sourceLocation: sourceLocation)
            return nil
        }
        return chain
    }

    func chainFailure(_ verdict: ChainVerdict, sourceLocation: SourceLocation = #_sourceLocation) -> ChainFailure? {
        guard case .untrusted(let failure) = verdict else {
            Issue.record("expected untrusted, got \(verdict)", sourceLocation: sourceLocation)
            return nil
        }
        return failure
    }

    @Test func p256ChainIsTrustedWithItsFields() throws {
        let anchors = try world.anchors("rootP256")
        let chain = world.chain("leafP256", "intP256")
        let verdict = anchors.validate(chain, at: ChainWorld.now)
        let result = try #require(trustedChain(verdict))
        let info = try world.publicKeyInfo("leafP256")
        #expect(result.key == .p256(x: Array(info.suffix(64).prefix(32)), y: Array(info.suffix(32))))
        #expect(result.environment == nil)
        #expect(result.uris == ["https://op.example/"])
        #expect(result.dnsNames == ["op.example", "api.op.example"])
        #expect(result.leafSubject == "CN=Leaf P-256,O=Op")
        #expect(result.thumbprints == ["leafP256", "intP256", "rootP256"].map { sha256(world[$0].der) })
        // Joint validity: the leaf's notBefore (latest) and its notAfter (earliest), less OpenSSL's last second.
        #expect(result.notBefore == ChainWorld.t0 + 2 * d)
        #expect(result.notAfter == ChainWorld.t0 + 365 * d - 1)
    }

    @Test func thumbprintIsOpenSSLsSHA256Fingerprint() throws {
        let out = world.factory.path("fingerprint.txt")
        try world.factory.run([
            "x509", "-in", world.factory.path("leafP256.pem"), "-noout", "-fingerprint", "-sha256", "-out", out,
        ])
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let hex = sha256(world["leafP256"].der).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(text.contains(hex))
    }

    @Test func mixedAlgorithmsAndEd25519LeafAreTrusted() throws {
        let anchors = try world.anchors("rootRSA")
        let result = try #require(trustedChain(anchors.validate(world.chain("leafEd", "intP384"), at: ChainWorld.now)))
        let info = try world.publicKeyInfo("leafEd")
        #expect(result.key == .ed25519(Array(info.suffix(32))))
        #expect(result.uris == ["urn:op:lock-server"])
        #expect(result.dnsNames.isEmpty)
        #expect(result.thumbprints.count == 3)
        let underEd = try world.anchors("rootEd")
        #expect(
            trustedChain(underEd.validate(world.chain("leafUnderEd"), at: ChainWorld.now))?.dnsNames == ["ed.example"])
    }

    @Test func jointValidityBoundariesAgreeWithOpenSSL() throws {
        let anchors = try world.anchors("rootRSA")
        let chain = world.chain("leafEd", "intP384")
        let result = try #require(trustedChain(anchors.validate(chain, at: ChainWorld.now)))
        #expect(result.notBefore == ChainWorld.t0 + 4 * d)
        #expect(result.notAfter == ChainWorld.t0 + 200 * d - 1)
        #expect(trustedChain(anchors.validate(chain, at: result.notBefore)) == result)
        #expect(trustedChain(anchors.validate(chain, at: result.notAfter)) == result)
        let early = try #require(chainFailure(anchors.validate(chain, at: result.notBefore - 1)))
        #expect(early.why == "not yet valid at 2026-01-04T23:59:59Z (notBefore 2026-01-05T00:00:00Z)")
        #expect(early.dependsOnTime)
        let late = try #require(chainFailure(anchors.validate(chain, at: result.notAfter + 1)))
        #expect(late.why == "expired at 2026-07-20T00:00:00Z (notAfter 2026-07-20T00:00:00Z)")
        #expect(late.subject == "CN=Leaf Ed25519,O=Op")
        #expect(late.thumbprint == Base64URL.encodeString(sha256(world["leafEd"].der)))
        #expect(late.dependsOnTime)
    }

    @Test func anchorValidityCountsInTheJointInterval() throws {
        let anchors = try world.anchors("rootExpiring")
        let chain = world.chain("leafOfExpiring")
        let result = try #require(trustedChain(anchors.validate(chain, at: ChainWorld.t0 + 10 * d)))
        #expect(result.notAfter == ChainWorld.t0 + 20 * d - 1)
        let late = try #require(chainFailure(anchors.validate(chain, at: ChainWorld.t0 + 20 * d)))
        #expect(late.subject == "CN=Root expiring")
        #expect(late.why.hasPrefix("expired at"))
    }

    @Test func unknownIssuer() throws {
        let anchors = try world.anchors("rootP256")
        let failure = try #require(
            chainFailure(anchors.validate(world.chain("leafOther", "rootOther"), at: ChainWorld.now)))
        #expect(failure.why.contains("unknown issuer"))
        // A failure of path validation holds for its second only.
        #expect(failure.dependsOnTime)
        // A chain whose intermediate is missing.
        let missing = try #require(self.chainFailure(anchors.validate(world.chain("leafP256"), at: ChainWorld.now)))
        #expect(missing.subject == "CN=Leaf P-256,O=Op")
        #expect(missing.why == "has an unknown issuer \"CN=Int P-256,O=Op\": no anchor issued it")
    }

    @Test func faultsOfThePathAreNamed() throws {
        let anchors = try world.anchors("rootP256")
        let notCA = "is not a CA (basicConstraints cA with keyUsage keyCertSign) but issued a certificate of the chain"
        // Path validation's faults hold for their second; the leaf's own faults at any time.
        let cases: [(chain: [[UInt8]], subject: String, why: String, timed: Bool)] = [
            (world.chain("leafOfNotCA", "intNotCA"), "CN=Not a CA", notCA, true),
            // OpenSSL 3 reports a CA without keyCertSign as X509_V_ERR_INVALID_CA.
            (world.chain("leafOfNoCertSign", "intNoCertSign"), "CN=CA without keyCertSign", notCA, true),
            (
                world.chain("leafTooDeep", "intUnderPathLen0", "intP256"), "CN=Int P-256,O=Op",
                "has a path too long for its pathLenConstraint", true
            ),
            (world.chain("leafCritical"), "CN=Leaf critical", "has an unsupported critical extension", true),
            (world.chain("leafRSA"), "CN=Leaf RSA", "has a key that is not Ed25519 or P-256 (RSA 2048)", false),
            (world.chain("leafP384"), "CN=Leaf P-384", "has a key that is not Ed25519 or P-256 (P-384)", false),
            (
                world.chain("leafNoDigitalSignature"), "CN=Leaf without digitalSignature",
                "has a keyUsage without digitalSignature", false
            ),
        ]
        for item in cases {
            let failure = try #require(chainFailure(anchors.validate(item.chain, at: ChainWorld.now)))
            #expect(failure.why == item.why, "\(item.subject)")
            #expect(failure.subject == item.subject, "\(failure)")
            #expect(failure.dependsOnTime == item.timed, "\(item.subject)")
        }
    }

    @Test func timeOpenSSLCannotCompareDependsOnTime() throws {
        let anchors = try world.anchors("rootP256")
        for time in [Int64.max / 2, Int64.min / 2] {
            let failure = try #require(chainFailure(anchors.validate(world.chain("leafP256", "intP256"), at: time)))
            #expect(failure.dependsOnTime, "\(failure)")
            #expect(failure.why.hasPrefix("has a validity that cannot be compared with"), "\(failure)")
        }
    }

    @Test func pathOnlyProfileSkipsTheLeafRules() throws {
        let anchors = try world.anchors("rootP256")
        for name in ["leafRSA", "leafP384", "leafNoDigitalSignature"] {
            #expect(trustedChain(anchors.validate(world.chain(name), at: ChainWorld.now, profile: .pathOnly)) != nil)
        }
    }

    @Test(arguments: ["leafP256", "leafEd"])
    func badSignature(_ leaf: String) throws {
        let anchors = try world.anchors("rootP256", "rootRSA")
        var der = world[leaf].der
        der[der.count - 1] ^= 0x01
        let chain = [der, leaf == "leafEd" ? world["intP384"].der : world["intP256"].der]
        let failure = try #require(chainFailure(anchors.validate(chain, at: ChainWorld.now)))
        #expect(failure.why == "has a bad signature")
        #expect(failure.thumbprint == Base64URL.encodeString(sha256(der)))
    }

    @Test func notDER() throws {
        let anchors = try world.anchors("rootP256")
        let garbage = try #require(
            chainFailure(anchors.validate([[0x30, 0x03, 0x02, 0x01, 0x01]], at: ChainWorld.now)))
        #expect(garbage.why == "is not DER (certificate 1 of the chain)")
        #expect(garbage.subject == "(not a certificate)")
        let trailing = world.chain("leafP256") + [world["intP256"].der + [0]]
        #expect(
            chainFailure(anchors.validate(trailing, at: ChainWorld.now))?.why
                == "is not DER (certificate 2 of the chain)")
        #expect(
            chainFailure(anchors.validate([[]], at: ChainWorld.now))?.why == "is not DER (certificate 1 of the chain)")
        #expect(chainFailure(anchors.validate([], at: ChainWorld.now))?.why == "no certificate in the chain")
    }

    @Test func atMostEightCertificates() throws {
        let anchors = try world.anchors("rootLong")
        // leafLong6: 7 certificates carried, a path of 8 with the anchor.
        #expect(trustedChain(anchors.validate(world.longChain(6), at: ChainWorld.now))?.thumbprints.count == 8)
        // leafLong7: 8 carried, a path of 9.
        let nine = try #require(chainFailure(anchors.validate(world.longChain(7), at: ChainWorld.now)))
        #expect(nine.why == "needs a path of more than 8 certificates")
        // More than 8 carried: refused before OpenSSL.
        let carried = world.longChain(7) + [world["rootLong"].der]
        let refused = try #require(chainFailure(anchors.validate(carried, at: ChainWorld.now)))
        #expect(refused.why == "heads a chain of 9 certificates: more than 8")
        #expect(refused.subject == "CN=Leaf 7")
    }

    @Test func environmentsOfAnchors() throws {
        let prod = try world.anchors("rootP256", environment: .production)
        #expect(
            trustedChain(prod.validate(world.chain("leafP256", "intP256"), at: ChainWorld.now))?.environment
                == .production)
        let twoWays = try TrustAnchors.load([
            (path: world.factory.path("rootP256.pem"), environment: .production),
            (path: world.factory.path("intP256.pem"), environment: .integration),
            (path: world.factory.path("rootRSA.pem"), environment: nil),
        ])
        #expect(twoWays.count == 3)
        let failure = try #require(
            chainFailure(twoWays.validate(world.chain("leafP256", "intP256"), at: ChainWorld.now)))
        #expect(failure.why == "validates under the anchors of more than one environment (int and prod)")
        #expect(failure.subject == "CN=Leaf P-256,O=Op")
        // Only one environment's anchors vouch for a chain of the RSA hierarchy; the others know
        // no issuer of it at any time, so it is trusted for its whole joint validity.
        let rsa = try #require(trustedChain(twoWays.validate(world.chain("leafEd", "intP384"), at: ChainWorld.now)))
        #expect(rsa.environment == nil)
        #expect(rsa.notBefore == ChainWorld.t0 + 4 * d && rsa.notAfter == ChainWorld.t0 + 200 * d - 1)
    }

    @Test func validationFromManyThreads() throws {
        let anchors = try world.anchors("rootP256", "rootRSA")
        let chains = [world.chain("leafP256", "intP256"), world.chain("leafEd", "intP384"), world.chain("leafOther")]
        let expected = chains.map { anchors.validate($0, at: ChainWorld.now) }
        let mismatches = LockedCounter()
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let pick = index % chains.count
            if anchors.validate(chains[pick], at: ChainWorld.now) != expected[pick] { mismatches.add() }
        }
        #expect(mismatches.value == 0)
    }
}

/// A counter shared by threads.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
