import Foundation
import TestSupport
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// spec §7 "No rollback": a replayed, stale, expired or future list never replaces the list in
/// place; validators are clean and go only to the URL that gave them; nothing is written through a
/// symbolic link. Before these rules, each refusal below was written and each validator sent.
@Suite struct FetchNoRollbackTests {
    static let now = Int64(Date().timeIntervalSince1970)

    func list(
        _ key: SigningKey, uri: String, revoked: Bool, issuedAt: Int64, expiresAt: Int64? = nil
    ) throws
        -> String
    {
        try StatusListIssuer(key: key).sign(
            uri: uri, bits: 1, size: 64, statuses: revoked ? [3: 1] : [:], format: .jws, issuedAt: issuedAt,
            expiresAt: expiresAt)
    }

    func refusal(_ outcome: FetchReport.Outcome) -> String? {
        if case .refused(let why) = outcome { return why }
        return nil
    }

    /// Finding 3: the publisher serves a list issued at T2 that revokes entry 3, then the older
    /// list of T1: refused, the revoking list stays; as old with other entries: refused too.
    @Test func anOlderListIsRefusedAndTheNewerStays() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let fetcher = try fixture.fetcher()
        let newer = try list(fixture.ed, uri: target.url, revoked: true, issuedAt: Self.now - 100)
        try fixture.publisher.publish("list", newer)
        #expect(fetcher.fetch([keys, target]).map(\.outcome.isUpdated) == [true, true])
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 200))
        let replay = fetchOne(fetcher, target)
        #expect(refusal(replay.outcome)?.contains("before the list in place") == true, "\(replay.outcome)")
        #expect(replay.line.contains("refused:") && replay.outcome.isFailure)
        #expect(fixture.file(target) == newer)
        let tie = try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 100)
        try fixture.publisher.publish("list", tie)
        #expect(refusal(fetchOne(fetcher, target).outcome)?.contains("and other entries") == true)
        #expect(fixture.file(target) == newer)
        // The same entries and iat in other bytes (a copy re-signed) may replace it; a newer list does.
        let copy = try list(fixture.ed, uri: target.url, revoked: true, issuedAt: Self.now - 100, expiresAt: nil)
        try fixture.publisher.publish("list", copy + "\n")
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        let newest = try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 50)
        try fixture.publisher.publish("list", newest)
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fixture.file(target) == newest)
        // When the list in place no longer loads (its key left the key set), the iat recorded stands.
        let rotated = SigningKey.generate(algorithm: .ed25519, keyID: "ed-2")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(rotated))
        try fixture.publisher.publish(
            "list", try list(rotated, uri: target.url, revoked: false, issuedAt: Self.now - 70))
        let reports = fetcher.fetch([keys, target])
        #expect(refusal(reports[1].outcome)?.contains("before the list in place") == true, "\(reports[1].outcome)")
    }

    /// An expired list and one issued beyond the leeway are refused, kept out where a list is,
    /// and never written where there was none.
    @Test func expiredAndFutureListsAreRefused() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        let fetcher = try fixture.fetcher()
        let expired = try list(
            fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now - 7200, expiresAt: Self.now - 10)
        try fixture.publisher.publish("list", expired)
        let first = fetcher.fetch([keys, target])[1]
        #expect(refusal(first.outcome)?.contains("expired at") == true, "\(first.outcome)")
        #expect(fixture.file(target) == nil, "none is written where there was none")
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now + 3600))
        #expect(refusal(fetchOne(fetcher, target).outcome)?.contains("(--leeway)") == true)
        #expect(fixture.file(target) == nil)
        let good = try list(fixture.ed, uri: target.url, revoked: true, issuedAt: Self.now + 30)
        try fixture.publisher.publish("list", good)
        #expect(fetchOne(fetcher, target).outcome.isUpdated, "within the leeway of 60 s")
        try fixture.publisher.publish(
            "list", try list(fixture.ed, uri: target.url, revoked: false, issuedAt: Self.now + 2_000_000_000))
        #expect(refusal(fetchOne(fetcher, target).outcome) != nil, "a list of a far year")
        #expect(fixture.file(target) == good)
    }

    /// Finding 4: an ETag with a bare CR is neither stored nor sent back.
    @Test func aValidatorWithAControlCharacterIsNeitherKeptNorSent() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("a.jwks", FetchFixture.jwks(fixture.ed))
        try fixture.publisher.setMode("a.jwks", "etag-cr")
        let target = try fixture.keysTarget("a.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        _ = fetchOne(fetcher, target)
        let state = try String(contentsOfFile: "\(fixture.out)/.fetch-state.json", encoding: .utf8)
        #expect(!state.contains("X-Injected") && !state.contains("\\r"), "\(state)")
        let requests = fixture.publisher.requests()
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0["x_injected"] is NSNull || $0["x_injected"] == nil }, "\(requests)")
        #expect(requests.allSatisfy { ($0["if_none_match"] as? String)?.contains("\r") != true })
        #expect(requests.last?["if_modified_since"] is String, "the clean validator is still sent")
    }

    /// Finding 4: validators go only to the URL that gave them, not to a redirect's target nor
    /// from a redirect's target back to the first URL.
    @Test func validatorsGoOnlyToTheURLThatGaveThem() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("a.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("a.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)  // validators of /a.jwks
        try fixture.publisher.setMode("a.jwks", "redirect 1")
        #expect(!fetchOne(fetcher, target).outcome.isFailure)
        let second = fixture.publisher.requests().suffix(2)
        #expect(second.first?["if_none_match"] is String, "the first URL gave them: sent to it")
        #expect(second.last?["if_none_match"] is NSNull, "not sent to the redirect's target: \(second)")
        // Now the target /a.jwks?hop=1 gave them: the first URL gets none, the target does.
        _ = fetchOne(fetcher, target)
        let third = fixture.publisher.requests().suffix(2)
        #expect(third.first?["if_none_match"] is NSNull, "\(third)")
        #expect(third.last?["if_none_match"] is String, "\(third)")
    }

    /// Finding 5: a symbolic link at the lock file or at a folder is refused, and nothing is
    /// created through it.
    @Test func symbolicLinksAreRefused() throws {
        let fixture = try FetchFixture()
        let outside = fixture.publisher.directory.appendingPathComponent("outside").path
        try FileManager.default.createDirectory(atPath: fixture.out, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(fixture.out)/.fetch.lock", withDestinationPath: outside)
        #expect(throws: FetchUsageError.self) { _ = try fixture.fetcher() }
        #expect(!FileManager.default.fileExists(atPath: outside), "no file created through the link")
        try FileManager.default.removeItem(atPath: "\(fixture.out)/.fetch.lock")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(fixture.out)/keys", withDestinationPath: outside)
        do {
            _ = try fixture.fetcher()
            Issue.record("a symbolic link at keys/ was followed")
        } catch {
            #expect("\(error)".contains("is a symbolic link"), "\(error)")
        }
    }
}
