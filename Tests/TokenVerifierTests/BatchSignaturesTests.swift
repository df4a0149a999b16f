import TestSupport
import Testing

@testable import TokenVerifier

/// The batch engine's signature pass (``VerificationWorker/withBatchSignatures(_:_:_:snapshot:_:)``):
/// which tokens it verifies together (Ed25519; ES256 on the wide path) or gives an inverse (ES256),
/// and which it leaves to check 12.
@Suite struct BatchSignaturesTests {
    let fixtures = Fixtures()

    /// Tokens as a batch's items.
    struct Tokens: BatchRequests {
        let tokens: [[UInt8]]
        var count: Int { tokens.count }
        func withRequest(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, ContextBytes) -> Void) -> Bool {
            tokens[index].withUnsafeBufferPointer { body($0, ContextBytes()) }
            return true
        }
        func withToken(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
            tokens[index].withUnsafeBufferPointer(body)
        }
    }

    /// Calls `body` with what the pass shared out for `tokens` (prepared as the engine prepares
    /// them) and their prepared states.
    func signaturePass(
        _ tokens: [[UInt8]], _ worker: VerificationWorker,
        _ body: (BatchSignatures, UnsafeMutablePointer<VerificationWorker.Prepared>) -> Void
    ) {
        let snapshot = worker.snapshot()
        let states = UnsafeMutablePointer<VerificationWorker.Prepared>.allocate(capacity: tokens.count)
        defer {
            states.deinitialize(count: tokens.count)
            states.deallocate()
        }
        for (index, token) in tokens.enumerated() {
            (states + index).initialize(to: VerificationWorker.Prepared(audit: false))
            token.withUnsafeBufferPointer {
                worker.prepare(token: $0, context: ContextBytes(), snapshot: snapshot, into: &states[index])
            }
        }
        var isRequest = [Bool](repeating: true, count: tokens.count)
        isRequest.withUnsafeMutableBufferPointer { isRequest in
            worker.withBatchSignatures(Tokens(tokens: tokens), states, isRequest, snapshot: snapshot) {
                body($0, states)
            }
        }
    }

    /// A token the batch met before is left to check 12 (which finds the first copy's entry in
    /// the signature cache), so a stream of repeats is verified once; two distinct ES256
    /// signatures share their inversion (or, on the ES256 wide path, are verified in the pass),
    /// Ed25519 ones are verified in the pass; and once the
    /// cache holds them, the pass answers them all from it.
    @Test func eachTokenOnceAndTheCacheFirst() throws {
        let verifier = fixtures.verifier(
            options: VerificationOptions(checkTime: Fixtures.now, signatureCacheSlots: 1024))
        verifier.waitForKeyTables()
        let worker = verifier.makeWorker()
        let ed = Array(Fixtures.token(fixtures.ed).utf8)
        let es = Array(Fixtures.token(fixtures.es).utf8)
        let otherES = Array(Fixtures.token(fixtures.es, claims: Fixtures.claims(["jti": "\"t-2\""])).utf8)
        let tokens = [ed, es, ed, es, otherES, ed]
        signaturePass(tokens, worker) { shared, _ in
            #expect(shared.verdict(0) == true && shared.verdict(2) == nil && shared.verdict(5) == nil)
            if P256KeyTable.isWide {
                // The ES256 wide path: the pass verifies them too (`tv_p256_table_verify_many`).
                #expect(shared.verdict(1) == true && shared.verdict(3) == nil && shared.verdict(4) == true)
                #expect(shared.inverse(1) == nil && shared.inverse(4) == nil && shared.inverse(0) == nil)
            } else {
                #expect(shared.inverse(1) != nil && shared.inverse(3) == nil && shared.inverse(4) != nil)
                #expect(shared.verdict(1) == nil && shared.inverse(0) == nil)
            }
        }
        // Verified (and so cached) through the engine, then a second pass over the same tokens.
        var valid = 0
        worker.verify(batch: Tokens(tokens: tokens)) { _, result in valid += result?.isValid == true ? 1 : 0 }
        #expect(valid == tokens.count)
        signaturePass(tokens, worker) { shared, states in
            for index in tokens.indices {
                #expect(shared.verdict(index) == nil && shared.inverse(index) == nil, "token \(index)")
                #expect(states[index].signatureKey == nil, "token \(index): answered from the cache")
            }
        }
    }

    /// The pass's buffer keeps a typical batch's capacity from one batch to the next, and gives
    /// back what a batch of long tokens made it take.
    @Test func theScratchKeepsATypicalBatchAndGivesBackALongOne() {
        let scratch = ByteScratch()
        let typical = [UInt8](repeating: 7, count: 400)
        func fill(_ times: Int, _ piece: [UInt8]) {
            piece.withUnsafeBufferPointer { for _ in 0..<times { scratch.append($0) } }
        }
        fill(256, typical)
        #expect(scratch.count == 256 * 400 && scratch.bytes[256 * 400 - 1] == 7)
        let grown = scratch.capacity
        #expect(grown > ByteScratch.initialCapacity && grown <= ByteScratch.keptCapacity)
        scratch.removeAll()
        #expect(scratch.count == 0 && scratch.capacity == grown, "a typical batch's capacity is kept")
        fill(256, [UInt8](repeating: 9, count: 64 * 1024))
        #expect(scratch.capacity > ByteScratch.keptCapacity && scratch.bytes[256 * 64 * 1024 - 1] == 9)
        scratch.removeAll()
        #expect(scratch.count == 0 && scratch.capacity == ByteScratch.initialCapacity, "given back")
    }
}
