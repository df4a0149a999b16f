import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// The per-key tables in a verifier: built in the background once keys load, taken by the
/// workers once ready, rebuilt for a rotated key set, and bounded by the memory cap.
@Suite(.serialized) struct P256TableLiveStateTests {
    let first = SigningKey.generate(algorithm: .es256, keyID: "es-a")
    let second = SigningKey.generate(algorithm: .es256, keyID: "es-b")
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "ed-a")

    func keySet(_ keys: [SigningKey]) throws -> KeySet {
        try KeySet(keys: keys.map { try Fixtures.publicKey($0) })
    }

    func options(tableMemory: Int = 64 << 20) -> VerificationOptions {
        VerificationOptions(
            checkTime: Fixtures.now, signatureCacheSlots: 0, tableMemory: TableMemory(es256: tableMemory))
    }

    /// The verdict on a token of `key`, and whether the worker checked it through the key's table.
    func verify(_ key: SigningKey, with worker: VerificationWorker) -> (valid: Bool, throughTable: Bool) {
        let result = worker.verify(VerificationRequest(token: Fixtures.token(key)))
        let snapshot = worker.snapshot()
        guard let index = snapshot.keys.index(of: key.keyID) else { return (result.isValid, false) }
        // A context makes its table scratch when it first verifies through the key's table.
        return (result.isValid, worker.p256Context(for: index, in: snapshot).tableScratch != nil)
    }

    @Test func workersTakeTheTableOnceReady() throws {
        let verifier = Verifier(keys: try keySet([ed, first, second]), options: options())
        verifier.waitForKeyTables()
        #expect(verifier.keys.keys.allSatisfy { $0.p256 == nil || $0.p256!.table != nil })
        let worker = verifier.makeWorker()
        #expect(verify(first, with: worker) == (true, true))
        #expect(verify(second, with: worker) == (true, true))
        let tampered = replacingSegment(Fixtures.token(first), 1, with: b64(Fixtures.claims(["role": "\"admin\""])))
        #expect(worker.verify(VerificationRequest(token: tampered)).reason == .badSignature)
    }

    @Test func manyThreadsShareOneKeysTable() throws {
        let verifier = Verifier(keys: try keySet([first, second]), options: options())
        verifier.waitForES256Tables()
        let good = (0..<400).map {
            Fixtures.token($0 % 2 == 0 ? first : second, claims: Fixtures.claims(["jti": "\"t-\($0)\""]))
        }
        let bad = good.map { token in
            var signature = Array(token.split(separator: ".")[2])
            signature[10] = signature[10] == "A" ? "B" : "A"
            return replacingSegment(token, 2, with: String(signature))
        }
        let results = verifier.verify((good + bad).map { VerificationRequest(token: $0) }, threads: 4, chunkSize: 16)
        let validCount = results.prefix(good.count).filter(\.isValid).count
        let badSignatures = results.suffix(bad.count).filter { $0.reason == .badSignature }.count
        #expect(validCount == good.count)
        #expect(badSignatures == bad.count)
    }

    @Test func aRotatedKeySetGetsNewTables() throws {
        let verifier = Verifier(keys: try keySet([first]), options: options())
        verifier.waitForKeyTables()
        let worker = verifier.makeWorker()
        #expect(verify(first, with: worker) == (true, true))
        let oldKey = try #require(verifier.keys.keys[0].p256)
        verifier.replaceKeys(try keySet([second]))
        verifier.waitForKeyTables()
        #expect(try #require(verifier.keys.keys[0].p256).table != nil)
        #expect(verify(second, with: worker) == (true, true))
        // The removed key's token meets no key (and so no table) any more.
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(first))).reason == .unknownKey)
        #expect(oldKey.table != nil)  // still alive only through this test's reference
    }

    @Test func theMemoryCapLeavesLaterKeysOnEVP() throws {
        let verifier = Verifier(
            keys: try keySet([first, second]), options: options(tableMemory: P256KeyTable.bytesPerTable))
        verifier.waitForKeyTables()
        #expect(verifier.keys.keys.map { $0.p256!.table != nil } == [true, false])
        let worker = verifier.makeWorker()
        #expect(verify(first, with: worker) == (true, true))
        #expect(verify(second, with: worker) == (true, false))
    }

    @Test func zeroTurnsTheTablesOff() throws {
        let verifier = Verifier(keys: try keySet([first]), options: options(tableMemory: 0))
        verifier.waitForKeyTables()
        #expect(verifier.keys.keys[0].p256!.table == nil)
        #expect(verify(first, with: verifier.makeWorker()) == (true, false))
    }
}
