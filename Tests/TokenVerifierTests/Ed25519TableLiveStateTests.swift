import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// The Ed25519 per-key tables in a verifier: built in the background once keys load, rebuilt for
/// a rotated key set, bounded by their own memory cap, and off at 0.
@Suite(.serialized) struct Ed25519TableLiveStateTests {
    let first = SigningKey.generate(algorithm: .ed25519, keyID: "ed-a")
    let second = SigningKey.generate(algorithm: .ed25519, keyID: "ed-b")
    let es = SigningKey.generate(algorithm: .es256, keyID: "es-a")

    func verifier(_ keys: [SigningKey], tableMemory: Int = 64 << 20) throws -> Verifier {
        let keySet = try KeySet(keys: keys.map { try Fixtures.publicKey($0) })
        let options = VerificationOptions(
            checkTime: Fixtures.now, signatureCacheSlots: 0, tableMemory: TableMemory(ed25519: tableMemory))
        return Verifier(keys: keySet, options: options)
    }

    func tables(_ verifier: Verifier) -> [Bool] {
        verifier.keys.keys.compactMap { $0.ed25519 }.map { $0.table != nil }
    }

    @Test func tablesAreBuiltAndUsed() throws {
        try Ed25519PathComparison.requireTablePath()
        let verifier = try verifier([first, es, second])
        verifier.waitForKeyTables()
        #expect(tables(verifier) == [true, true])
        let good = (0..<200).map {
            Fixtures.token($0 % 2 == 0 ? first : second, claims: Fixtures.claims(["jti": "\"t-\($0)\""]))
        }
        let bad = good.map { replacingSegment($0, 1, with: b64(Fixtures.claims(["role": "\"admin\""]))) }
        let results = verifier.verify((good + bad).map { VerificationRequest(token: $0) }, threads: 2, chunkSize: 16)
        #expect(results.prefix(good.count).allSatisfy { $0.isValid })
        #expect(results.suffix(bad.count).allSatisfy { $0.reason == .badSignature })
    }

    /// Nothing is built at start-up: a key's table is asked for by its first use (until it is
    /// ready the key verifies through libsodium), so unused keys cost nothing.
    @Test func aKeysTableIsBuiltOnItsFirstUse() throws {
        try Ed25519PathComparison.requireTablePath()
        let verifier = try verifier([first, es, second])
        KeyTableBuilder.waitUntilIdle()
        #expect(tables(verifier) == [false, false])
        #expect(verifier.keys.keys[1].p256!.table == nil)
        let worker = verifier.makeWorker()
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(second))).isValid)
        KeyTableBuilder.waitUntilIdle()
        #expect(tables(verifier) == [false, true])
        #expect(verifier.keys.keys[1].p256!.table == nil, "the ES256 key was not used")
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(second))).isValid)
    }

    /// A key used before its key set arms it (a reload races its first use) asks again on its
    /// next use once armed: the early use must not spend its one request.
    @Test func aUseBeforeArmingDoesNotLoseTheTable() throws {
        try Ed25519PathComparison.requireTablePath()
        let key = Ed25519PublicKey(try Fixtures.publicKey(first).publicKeyBytes)
        key.requestTable()
        KeyTableBuilder.waitUntilIdle()
        #expect(key.table == nil && !key.lazyTable.isRequested)
        key.lazyTable.arm(TableBudget(tables: 1))
        key.requestTable()
        KeyTableBuilder.waitUntilIdle()
        #expect(key.table != nil)
    }

    @Test func aRotatedKeySetGetsNewTables() throws {
        try Ed25519PathComparison.requireTablePath()
        let verifier = try verifier([first])
        verifier.waitForKeyTables()
        verifier.replaceKeys(try KeySet(keys: [try Fixtures.publicKey(second)]))
        verifier.waitForKeyTables()
        #expect(tables(verifier) == [true])
        let worker = verifier.makeWorker()
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(second))).isValid)
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(first))).reason == .unknownKey)
    }

    @Test func theMemoryCapLeavesLaterKeysOnLibsodium() throws {
        try Ed25519PathComparison.requireTablePath()
        let verifier = try verifier([first, second], tableMemory: Ed25519KeyTable.bytesPerTable)
        verifier.waitForKeyTables()
        #expect(tables(verifier) == [true, false])
        let worker = verifier.makeWorker()
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(first))).isValid)
        #expect(worker.verify(VerificationRequest(token: Fixtures.token(second))).isValid)
    }

    @Test func zeroTurnsTheTablesOff() throws {
        let verifier = try verifier([first], tableMemory: 0)
        verifier.waitForKeyTables()
        #expect(tables(verifier) == [false])
        #expect(verifier.makeWorker().verify(VerificationRequest(token: Fixtures.token(first))).isValid)
    }
}
