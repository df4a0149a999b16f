import Foundation
import TestSupport
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

/// What `fetch` remembers per URL so that a file never moves back (spec §7): a list's issuer, the
/// `iat` recorded as a floor once the file is gone, the digest of the bytes written (a 304 keeps
/// only that file), the `kid`s a key set dropped. Each test failed before its rule.
@Suite struct FetchTrustTests {
    static let now = Int64(Date().timeIntervalSince1970)
    static let issuerA = "https://a.example"
    static let issuerB = "https://b.example"

    func list(
        _ key: SigningKey, uri: String, revoked: Bool, issuedAt: Int64, issuer: String? = nil
    ) throws -> String {
        try StatusListIssuer(key: key).sign(
            uri: uri, bits: 1, size: 64, statuses: revoked ? [3: 1] : [:], format: .jws, issuedAt: issuedAt,
            issuer: issuer)
    }

    func refusal(_ outcome: FetchReport.Outcome) -> String? {
        if case .refused(let why) = outcome { return why }
        return nil
    }

    /// Finding 9: B's list (a later `iat`, signed by B's key of the same key set, `sub` the URL)
    /// is refused for A's URL, served directly or through a redirect; A's next list is then
    /// written (before: B's list replaced A's, and A's next list was refused as older).
    @Test func anotherIssuersListIsRefusedDirectlyOrThroughARedirect() throws {
        let fixture = try FetchFixture()
        let a = SigningKey.generate(algorithm: .ed25519, keyID: "a-1", issuer: Self.issuerA)
        let b = SigningKey.generate(algorithm: .es256, keyID: "b-1", issuer: Self.issuerB)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(a, b))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let fetcher = try fixture.fetcher()
        let first = try list(a, uri: target.url, revoked: true, issuedAt: Self.now - 300)
        try fixture.publisher.publish("list", first)
        #expect(fetcher.fetch([keys, target]).map(\.outcome.isUpdated) == [true, true])
        try fixture.publisher.publish("list", try list(b, uri: target.url, revoked: false, issuedAt: Self.now - 10))
        let direct = fetchOne(fetcher, target)
        #expect(refusal(direct.outcome)?.contains("of issuer \(Self.issuerB)") == true, "\(direct.outcome)")
        #expect(direct.refusalReason == .otherIssuer)
        #expect(fixture.file(target) == first)
        try fixture.publisher.setMode("list", "redirect 1")
        let redirected = fetchOne(fetcher, target)
        #expect(refusal(redirected.outcome)?.contains(Self.issuerA) == true, "\(redirected.outcome)")
        #expect(fixture.file(target) == first)
        try fixture.publisher.setMode("list", nil)
        let next = try list(a, uri: target.url, revoked: false, issuedAt: Self.now - 100)
        try fixture.publisher.publish("list", next)
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fixture.file(target) == next)
    }

    /// Finding 9: a list's issuer is its key's `iss`, or where the key names none the list's own
    /// `iss`: a list of a key without `iss` claiming A's `iss` answers for A; one naming none does not.
    @Test func theIssuerIsTheKeysIssOrElseTheListsOwn() throws {
        let fixture = try FetchFixture()
        let a = SigningKey.generate(algorithm: .ed25519, keyID: "a-1", issuer: Self.issuerA)
        let plain = SigningKey.generate(algorithm: .ed25519, keyID: "plain")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(a, plain))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let fetcher = try fixture.fetcher()
        try fixture.publisher.publish("list", try list(a, uri: target.url, revoked: true, issuedAt: Self.now - 300))
        #expect(fetcher.fetch([keys, target]).map(\.outcome.isUpdated) == [true, true])
        let claimsA = try list(plain, uri: target.url, revoked: true, issuedAt: Self.now - 200, issuer: Self.issuerA)
        try fixture.publisher.publish("list", claimsA)
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        try fixture.publisher.publish("list", try list(plain, uri: target.url, revoked: true, issuedAt: Self.now - 100))
        let none = fetchOne(fetcher, target)
        #expect(refusal(none.outcome)?.contains("of no issuer") == true, "\(none.outcome)")
        #expect(fixture.file(target) == claimsA)
    }

    /// Finding 10: once the file is removed, the `iat` recorded stays the floor: an older list is
    /// refused (none written), as is one as old with other entries; the same list is written again.
    @Test func aRemovedFileKeepsItsRecordedIatAsTheFloor() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let newer = try list(fixture.ed, uri: target.url, revoked: true, issuedAt: Self.now - 100)
        try fixture.publisher.publish("list", newer)
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        #expect(fetchOne(try fixture.fetcher(), target).outcome.isUpdated)
        try FileManager.default.removeItem(atPath: "\(fixture.out)/status-lists/\(target.fileName)")
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 200))
        let replay = fetchOne(try fixture.fetcher(), target)  // a new process: the floor is in the state file
        #expect(refusal(replay.outcome)?.contains("before the list last written") == true, "\(replay.outcome)")
        #expect(fixture.file(target) == nil)
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 100))
        #expect(refusal(fetchOne(try fixture.fetcher(), target).outcome)?.contains("other entries") == true)
        #expect(fixture.file(target) == nil)
        try fixture.publisher.publish("list", newer)
        #expect(fetchOne(try fixture.fetcher(), target).outcome.isUpdated)
        #expect(fixture.file(target) == newer)
    }

    /// Finding 11: an older list restored by hand over the file is not kept by a 304: the
    /// request goes without validators and the publisher's list is written again.
    @Test func a304DoesNotKeepAFileRestoredByHand() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let fetcher = try fixture.fetcher()
        let older = try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 200)
        let newer = try list(fixture.ed, uri: target.url, revoked: true, issuedAt: Self.now - 100)
        try fixture.publisher.publish("list", older)
        #expect(fetcher.fetch([keys, target]).map(\.outcome.isUpdated) == [true, true])
        try fixture.publisher.publish("list", newer)
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fetchOne(fetcher, target).outcome == .unchanged("304 Not Modified"))
        try older.write(
            toFile: "\(fixture.out)/status-lists/\(target.fileName)", atomically: true, encoding: .utf8)
        let restored = fetchOne(fetcher, target)
        #expect(restored.outcome.isUpdated, "\(restored.outcome)")
        #expect(fixture.file(target) == newer)
        #expect(fixture.publisher.requests().last?["if_none_match"] is NSNull, "asked for without validators")
        // The same for a key set restored by hand.
        try FetchFixture.jwks(fixture.es).write(
            toFile: "\(fixture.out)/keys/\(keys.fileName)", atomically: true, encoding: .utf8)
        #expect(fetchOne(fetcher, keys).outcome.isUpdated)
        #expect(fixture.file(keys) == FetchFixture.jwks(fixture.ed))
    }

    /// Finding 14: a key set that brings back a `kid` it dropped (a replayed JWKS) is refused, the
    /// file kept; a list signed by the retired key then fails (before: both were written).
    @Test func aKeySetThatBringsBackARemovedKidIsRefused() throws {
        let fixture = try FetchFixture()
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 100))
        let reports = try fixture.fetcher().fetch([keys, target])
        #expect(refusal(reports[0].outcome)?.contains("\"ed-1\"") == true, "\(reports[0].outcome)")
        #expect(reports[0].refusalReason == .retiredKey)
        #expect(fixture.file(keys) == FetchFixture.jwks(fixture.es))
        #expect(reports[1].outcome.failure != nil, "\(reports[1].outcome)")
        #expect(fixture.file(target) == nil)
    }

    /// A state file that exists but does not parse stops the fetcher, naming it (it is never
    /// taken for an empty one, which would drop every floor).
    @Test func aStateFileThatDoesNotParseStopsTheFetcher() throws {
        let fixture = try FetchFixture()
        try FileManager.default.createDirectory(atPath: fixture.out, withIntermediateDirectories: true)
        let path = "\(fixture.out)/.fetch-state.json"
        try "{\"entries\": [".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try fixture.fetcher()
            Issue.record("a state file that does not parse was taken for an empty one")
        } catch {
            #expect("\(error)".contains(path), "\(error)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"entries\": [", "left as it was")
    }

    /// A state file an older `fetch` wrote (no issuer, digest or kids) loads, and its `iat` is
    /// the floor of a list whose file is gone.
    @Test func anOlderStateFileLoadsAndItsIatIsTheFloor() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try FileManager.default.createDirectory(atPath: fixture.out, withIntermediateDirectories: true)
        let older = """
            {"entries": {"\(target.url)": {"file": "status-lists/\(target.fileName)", "validators": {"etag": "\\"x\\""},
            "checkedAt": \(Self.now - 60), "issuedAt": \(Self.now - 100)}}}
            """
        try older.write(toFile: "\(fixture.out)/.fetch-state.json", atomically: true, encoding: .utf8)
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 200))
        let reports = try fixture.fetcher().fetch([keys, target])
        #expect(reports[0].outcome.isUpdated)
        #expect(refusal(reports[1].outcome)?.contains("before the list last written") == true, "\(reports[1].outcome)")
        #expect(fixture.file(target) == nil)
    }
}
