import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// spec §4c "Status fails closed, never open": no key rotation, second issuer or tie may make a
/// token that the newest list of its issuer revokes answer valid. Each test here fails on the
/// index that chose among all lists of a URI by `iat` alone.
@Suite struct StatusListFailClosedTests {
    let uri = Fixtures.statusListURI
    /// The token's key and the two list keys of issuer "operator-a"; a key of issuer "operator-b".
    let tokenKey = SigningKey.generate(algorithm: .ed25519, keyID: "token-a", issuer: "operator-a")
    let keyA = SigningKey.generate(algorithm: .ed25519, keyID: "list-a", issuer: "operator-a")
    let keyB = SigningKey.generate(algorithm: .es256, keyID: "list-b", issuer: "operator-a")
    let otherIssuer = SigningKey.generate(algorithm: .ed25519, keyID: "list-other", issuer: "operator-b")

    func keys(_ keys: [SigningKey]) throws -> KeySet {
        try KeySet(keys: keys.map { try Fixtures.publicKey($0) })
    }

    /// The list of `key` issued at `issuedAt` with entry 3 set to `entry`, loaded from `source`.
    func list(
        _ key: SigningKey, entry: UInt8, issuedAt: Int64, source: String, keys: KeySet
    ) throws
        -> StatusListToken
    {
        let token = Fixtures.statusListToken(key, statuses: entry == 0 ? [:] : [3: entry], issuedAt: issuedAt)
        return try StatusListToken.load(bytes: Array(token.utf8), source: source, keys: keys)
    }

    func answer(_ verifier: Verifier, at time: Double = Fixtures.now, key: SigningKey? = nil) -> VerificationResult {
        let key = key ?? tokenKey
        let claims = Fixtures.claims(statusIndex: 3, ["iss": "\"\(key.issuer ?? "")\""])
        return verifier.verify(VerificationRequest(token: Fixtures.token(key, claims: claims), checkTime: time))
    }

    /// Finding 1: G2 (key B, revoking) out of force after B leaves the key set shadows G1 (key A,
    /// clean): the token is status_unavailable at the times G2 answers, never valid.
    @Test func aGenerationOutOfForceShadowsTheOlderOnes() throws {
        let all = try keys([tokenKey, keyA, keyB])
        let g1 = try list(keyA, entry: 0, issuedAt: 1_000, source: "g1.jwt", keys: all)
        let g2 = try list(keyB, entry: 1, issuedAt: 2_000, source: "g2.jwt", keys: all)
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [g1, g2]))
        #expect(answer(verifier).reason == .statusInvalid)
        verifier.replaceKeys(try keys([tokenKey, keyA]))
        let shadowed = answer(verifier)
        #expect(shadowed.reason == .statusUnavailable, "key B left: G2 shadows G1, it never answers valid")
        #expect(shadowed.detail?.contains("issued 1970-01-01T00:33:20Z is out of force") == true, "\(shadowed)")
        #expect(answer(verifier, at: 1_500).isValid, "an audit before G2's iat still sees G1")
        let notice = try #require(verifier.statusListNotices.first)
        #expect(notice.contains("key \"list-b\" is no longer in the key set"), "\(notice)")
        #expect(notice.contains("g2.jwt") && notice.contains("it shadows the older generation issued"), "\(notice)")
        #expect(notice.contains("(g1.jwt)"), "the notice names the generation it shadows: \(notice)")
        verifier.replaceKeys(all)
        #expect(answer(verifier).reason == .statusInvalid, "key B back: G2 answers again")
        #expect(verifier.statusListNotices.isEmpty)
    }

    /// One issuer's list never answers for another issuer's tokens, whatever URI they name: a
    /// newer all-clear list of issuer B does not un-revoke issuer A's token.
    @Test func aListAnswersOnlyForItsSignersIssuer() throws {
        let all = try keys([tokenKey, keyA, otherIssuer])
        let revoking = try list(keyA, entry: 1, issuedAt: 1_000, source: "a.jwt", keys: all)
        let foreign = try list(otherIssuer, entry: 0, issuedAt: 2_000, source: "b.jwt", keys: all)
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [revoking, foreign]))
        #expect(answer(verifier).reason == .statusInvalid, "issuer B's newer list does not shadow A's")
        #expect(answer(verifier, key: otherIssuer).isValid, "B's list answers for B's tokens")
        let onlyForeign = Verifier(keys: all, statusLists: StatusListSet(lists: [foreign]))
        let unavailable = answer(onlyForeign)
        #expect(unavailable.reason == .statusUnavailable)
        #expect(
            unavailable.detail?.contains(
                "none of its lists is signed for the token's issuer and environment (its key's iss \"operator-a\"")
                == true, "\(unavailable)")
        // Keys without iss are one issuer: both without one counts as the same.
        let plainToken = SigningKey.generate(algorithm: .ed25519, keyID: "plain-token")
        let plainList = SigningKey.generate(algorithm: .ed25519, keyID: "plain-list")
        let plain = try keys([plainToken, plainList])
        let plainVerifier = Verifier(
            keys: plain,
            statusLists: StatusListSet(lists: [try list(plainList, entry: 1, issuedAt: 1_000, source: "p", keys: plain)]
            ))
        let claims = Fixtures.claims(statusIndex: 3)
        let token = Fixtures.token(plainToken, claims: claims)
        #expect(
            plainVerifier.verify(VerificationRequest(token: token, checkTime: Fixtures.now)).reason == .statusInvalid)
    }

    /// A key that comes back naming another issuer moves its lists to that issuer; for the issuer
    /// they were loaded for they stay out of force and still shadow the older generations.
    @Test func aKeyThatChangesIssuerLeavesItsListsShadowing() throws {
        let secret = [UInt8](repeating: 7, count: 32)
        let b = try SigningKey.derive(algorithm: .ed25519, keyID: "list-b", secret: secret, issuer: "operator-a")
        let bElsewhere = try SigningKey.derive(
            algorithm: .ed25519, keyID: "list-b", secret: secret, issuer: "operator-b")
        let all = try keys([tokenKey, keyA, b])
        let g1 = try list(keyA, entry: 0, issuedAt: 1_000, source: "g1.jwt", keys: all)
        let g2 = try list(b, entry: 1, issuedAt: 2_000, source: "g2.jwt", keys: all)
        let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: [g1, g2]))
        #expect(answer(verifier).reason == .statusInvalid)
        verifier.replaceKeys(try keys([tokenKey, keyA, bElsewhere]))
        #expect(answer(verifier).reason == .statusUnavailable, "never G1's valid")
        #expect(verifier.statusListNotices.contains { $0.contains("now names iss \"operator-b\"") })
    }

    /// Finding 6: two generations with one iat and different entries answer nothing, whatever
    /// their file names or order; identical copies are one generation.
    @Test func generationsWithOneIatAndDifferentEntriesAnswerNothing() throws {
        let all = try keys([tokenKey, keyA, keyB])
        let revoked = try list(keyA, entry: 1, issuedAt: 1_000, source: "a.jwt", keys: all)
        let clean = try list(keyB, entry: 0, issuedAt: 1_000, source: "b.jwt", keys: all)
        for order in [[revoked, clean], [clean, revoked]] {
            let verifier = Verifier(keys: all, statusLists: StatusListSet(lists: order))
            let got = answer(verifier)
            #expect(got.reason == .statusUnavailable, "never decided by file name or order")
            #expect(got.detail?.contains("hold different entries (a.jwt and b.jwt)") == true, "\(got)")
            #expect(
                verifier.statusListNotices == [
                    "status list \"\(uri)\" has generations issued 1970-01-01T00:16:40Z with different entries, in a.jwt and b.jwt: a line they would answer is status_unavailable"
                ])
        }
        let copy = try list(keyB, entry: 1, issuedAt: 1_000, source: "copy.jwt", keys: all)
        let copies = Verifier(keys: all, statusLists: StatusListSet(lists: [revoked, copy]))
        #expect(answer(copies).reason == .statusInvalid, "identical copies are one generation")
        #expect(copies.statusListNotices.isEmpty)
        let newer = try list(keyA, entry: 2, issuedAt: 2_000, source: "c.jwt", keys: all)
        let resolved = Verifier(keys: all, statusLists: StatusListSet(lists: [revoked, clean, newer]))
        #expect(answer(resolved).reason == .statusSuspended, "a newer generation answers past the tie")
        #expect(answer(resolved, at: 1_500).reason == .statusUnavailable, "the tie still answers nothing at its time")
    }
}
