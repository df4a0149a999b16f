import TestSupport
import Testing

@testable import TokenVerifier

/// The batch engine (``VerificationWorker/verify(batch:_:)``) against the one-request path.
@Suite struct BatchEngineTests {
    let fixtures = Fixtures()

    func requests(_ count: Int) -> [VerificationRequest] {
        let forged = replacingSegment(Fixtures.token(fixtures.es), 1, with: b64(Fixtures.claims(["sub": "\"x\""])))
        let tokens = [
            Fixtures.token(fixtures.ed), Fixtures.token(fixtures.es), Fixtures.token(fixtures.edDSA),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1"])), forged, "garbage",
            Fixtures.token(fixtures.es, claims: Fixtures.claims(["exp": "1"])),
        ]
        return (0..<count).map { index in
            VerificationRequest(
                token: tokens[index % tokens.count], device: index % 5 == 0 ? "someone-else" : nil,
                command: index % 3 == 0 ? "horn" : "unlock")
        }
    }

    /// Every failure (audit mode: all of them, with details) and the claims of a valid token are
    /// the same whether a request goes through the batch engine (any chunk size, the signature
    /// cache on or off) or alone.
    @Test(arguments: [0, 1024])
    func batchVerdictsEqualSingleVerdicts(cacheSlots: Int) {
        let verifier = fixtures.verifier(
            options: VerificationOptions(
                checkTime: Fixtures.now, audit: true,
                signatureCacheSlots: cacheSlots))
        let requests = requests(300)
        let worker = verifier.makeWorker()
        let single = requests.map { worker.verify($0) }
        #expect(single.contains { $0.isValid } && single.contains { $0.reason == .badSignature })
        for chunkSize in [1, 7, 300] {
            let batch = verifier.verify(requests, threads: 2, chunkSize: chunkSize)
            for index in requests.indices {
                #expect(batch[index].failures == single[index].failures, "request \(index), chunks of \(chunkSize)")
                #expect(batch[index].claims?.tokenID == single[index].claims?.tokenID)
            }
        }
    }

    /// Items that are not requests get a nil verdict, in order, between the others.
    @Test func itemsThatAreNotRequestsAreAnsweredNil() {
        struct Items: BatchRequests {
            let tokens: [[UInt8]?]
            var count: Int { tokens.count }
            func withRequest(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> Void) -> Bool {
                guard let token = tokens[index] else { return false }
                token.withUnsafeBufferPointer { body($0, ContextBytes()) }
                return true
            }
            func withToken(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
                tokens[index]!.withUnsafeBufferPointer(body)
            }
        }
        let good = Array(Fixtures.token(fixtures.ed).utf8)
        let items = Items(tokens: [good, nil, Array("garbage".utf8), nil, good])
        var answered: [(Int, Reason?, Bool)] = []
        fixtures.verifier().makeWorker().verify(batch: items) { index, result in
            answered.append((index, result?.reason, result == nil))
        }
        #expect(answered.map(\.0) == [0, 1, 2, 3, 4])
        #expect(answered.map(\.2) == [false, true, false, true, false])
        #expect(answered[0].1 == nil && answered[4].1 == nil)
        #expect(answered[2].1 == .malformedToken)
    }
}
