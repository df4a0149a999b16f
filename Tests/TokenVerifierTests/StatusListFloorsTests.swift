import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// spec §4c "No step back", "Issuer" and "Generations" through the library: the floors a verifier
/// carries from snapshot to snapshot, the floors `fetch` recorded, and the lists of several groups
/// that answer for one token.
@Suite struct StatusListFloorsTests {
    let tokenKey = SigningKey.generate(algorithm: .ed25519, keyID: "token-a", issuer: "operator-a")
    let keyA = SigningKey.generate(algorithm: .ed25519, keyID: "list-a", issuer: "operator-a")
    let plain = SigningKey.generate(algorithm: .ed25519, keyID: "list-plain")

    /// The key sets and lists of the fail-closed suite.
    let lists = StatusListFailClosedTests()

    func keys(_ keys: [SigningKey]) throws -> KeySet { try lists.keys(keys) }

    func list(
        _ key: SigningKey, entry: UInt8, issuedAt: Int64, source: String, keys: KeySet
    ) throws
        -> StatusListToken
    {
        try lists.list(key, entry: entry, issuedAt: issuedAt, source: source, keys: keys)
    }

    func answer(_ verifier: Verifier, at time: Double = Fixtures.now) -> VerificationResult {
        let claims = Fixtures.claims(statusIndex: 3, ["iss": "\"operator-a\""])
        return verifier.verify(VerificationRequest(token: Fixtures.token(tokenKey, claims: claims), checkTime: time))
    }

    /// A generation seen and gone (the set replaced without it) still stands above the older ones;
    /// a newer one lifts it; a copy with its `iat` and other entries is a conflict from then on.
    @Test func aGroupNeverStepsBackBelowWhatItLoaded() throws {
        let all = try keys([tokenKey, keyA])
        let old = try list(keyA, entry: 0, issuedAt: 1_000, source: "old.jwt", keys: all)
        let new = try list(keyA, entry: 1, issuedAt: 2_000, source: "new.jwt", keys: all)
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [old, new]))
        #expect(answer(verifier).reason == .statusInvalid)
        verifier.apply(LiveStateUpdate(statusLists: StatusListSet(lists: [old])))
        let gone = answer(verifier)
        #expect(gone.reason == .statusUnavailable && gone.detail?.contains("was loaded and is gone") == true, "\(gone)")
        #expect(answer(verifier, at: 1_500).isValid, "before the gone generation's iat, the older one answers")
        let sameIat = try list(keyA, entry: 0, issuedAt: 2_000, source: "same.jwt", keys: all)
        verifier.apply(LiveStateUpdate(statusLists: StatusListSet(lists: [sameIat])))
        let conflict = answer(verifier)
        #expect(conflict.reason == .statusUnavailable && conflict.detail?.contains("different entries") == true)
        let newer = try list(keyA, entry: 0, issuedAt: 3_000, source: "newer.jwt", keys: all)
        verifier.apply(LiveStateUpdate(statusLists: StatusListSet(lists: [newer])))
        #expect(answer(verifier).isValid, "a newer generation withdraws the gone one")
    }

    /// After a restart, the `iat` fetch recorded for the URI and issuer is the floor.
    @Test func fetchsRecordIsTheFloorAfterARestart() throws {
        let all = try keys([tokenKey, keyA])
        let old = try list(keyA, entry: 0, issuedAt: 1_000, source: "old.jwt", keys: all)
        let floors = StatusListFloors(recorded: [
            StatusListFloor(uri: Fixtures.statusListURI, issuer: "operator-a", issuedAt: 2_000)
        ])
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [old]), statusListFloors: floors)
        let restarted = answer(verifier)
        #expect(restarted.reason == .statusUnavailable && restarted.detail?.contains("fetch's record") == true)
        let other = StatusListFloors(recorded: [
            StatusListFloor(uri: Fixtures.statusListURI, issuer: "operator-b", issuedAt: 2_000)
        ])
        #expect(answer(Verifier(keys: all, statusLists: StatusListSet(lists: [old]), statusListFloors: other)).isValid)
    }

    /// A list of a key without `iss` and no `iss` claim answers for tokens whose key names none;
    /// where a list of the token's own issuer answers too, the newer of the two answers.
    @Test func listsWithoutIssuerAnswerForKeysWithoutOne() throws {
        let token = SigningKey.generate(algorithm: .ed25519, keyID: "token-plain")
        let all = try keys([token, tokenKey, keyA, plain])
        let unnamed = try list(plain, entry: 1, issuedAt: 2_000, source: "unnamed.jwt", keys: all)
        let named = try list(keyA, entry: 0, issuedAt: 1_000, source: "named.jwt", keys: all)
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [unnamed, named]))
        let claims = Fixtures.claims(statusIndex: 3, ["iss": "\"operator-a\""])
        let request = { (time: Double) in
            verifier.verify(VerificationRequest(token: Fixtures.token(token, claims: claims), checkTime: time))
        }
        #expect(request(Fixtures.now).reason == .statusInvalid, "the newer list, of no issuer, answers")
        #expect(request(1_500).isValid, "before it, the list of the token's issuer answers")
        #expect(answer(verifier).isValid, "a token whose key names operator-a reads operator-a's list only")
    }

    /// A generation re-signed with the same `iat` and entries under another issuer (a list
    /// without `iss`, then the same with `iss`) is one generation: the token of that issuer whose
    /// key names none is answered by it, never shadowed by the copy that left (found by the
    /// model test, Tests/Model, shrunk to these two steps).
    @Test func aGenerationReSignedForAnotherIssuerIsACopyNotAConflict() throws {
        let all = try keys([plain])
        func list(issuer: String?) throws -> StatusListToken {
            let token = try StatusListIssuer(key: plain).sign(
                uri: Fixtures.statusListURI, bits: 1, size: 64, statuses: [:], format: .jws, issuedAt: 2_000,
                issuer: issuer)
            return try StatusListToken.load(bytes: Array(token.utf8), source: "s0", keys: all)
        }
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [try list(issuer: nil)]))
        verifier.apply(LiveStateUpdate(statusLists: StatusListSet(lists: [try list(issuer: "https://b.example")])))
        let claims = Fixtures.claims(statusIndex: 1, ["iss": "\"https://b.example\""])
        let result = verifier.verify(
            VerificationRequest(token: Fixtures.token(plain, claims: claims), checkTime: Fixtures.now))
        #expect(result.isValid, "\(result.detail ?? "")")
    }
}
