import Foundation
import TestSupport
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

/// `DIR/.fetch-state.json` as other code reads it (``statusListFloors(followedFolder:)``), and the
/// `kid`s it remembers a key set dropped: readmitted on purpose, and bounded.
@Suite struct FetchStateTests {
    static let now = Int64(Date().timeIntervalSince1970)

    func state(_ fixture: FetchFixture) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(fixture.out)/.fetch-state.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func entry(_ fixture: FetchFixture, _ target: FetchTarget) throws -> [String: Any] {
        let entries = try #require(try state(fixture)["entries"] as? [String: Any])
        return try #require(entries[target.url] as? [String: Any])
    }

    /// `--readmit-kid`: a dropped `kid` comes back once on purpose; written, it is no longer
    /// remembered as dropped, and the readmission is used up (dropped again, it is refused again).
    @Test func aReadmittedKidComesBackOnce() throws {
        let fixture = try FetchFixture()
        let keys = try fixture.keysTarget("keys.jwks")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        #expect(try entry(fixture, keys)["removedKeyIDs"] as? [String] == ["ed-1"])
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        let fetcher = try Fetcher(
            configuration: FetchConfiguration(
                directory: fixture.out, caFile: fixture.publisher.caFile, timeout: 5, readmitKeyIDs: ["ed-1"]))
        #expect(fetchOne(fetcher, keys).outcome == .updated("2 keys"))
        #expect(try entry(fixture, keys)["removedKeyIDs"] as? [String] == [])
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.es))
        #expect(fetchOne(fetcher, keys).outcome.isUpdated)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        let again = fetchOne(fetcher, keys)
        #expect(again.refusalReason == .retiredKey, "\(again.outcome)")
        #expect(fixture.file(keys) == FetchFixture.jwks(fixture.es))
    }

    /// The dropped `kid`s remembered per URL are the last 1,024: one more forgets the oldest.
    @Test func theDroppedKidsRememberedAreTheLast1024() throws {
        let fixture = try FetchFixture()
        let keys = try fixture.keysTarget("keys.jwks")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        var state = try state(fixture)
        var entries = try #require(state["entries"] as? [String: Any])
        var entry = try #require(entries[keys.url] as? [String: Any])
        entry["removedKeyIDs"] = (0..<1024).map { "old-\($0)" }
        entries[keys.url] = entry
        state["entries"] = entries
        try JSONSerialization.data(withJSONObject: state).write(
            to: URL(fileURLWithPath: "\(fixture.out)/.fetch-state.json"))
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.es))
        #expect(fetchOne(try fixture.fetcher(), keys).outcome.isUpdated)
        let removed = try #require(try self.entry(fixture, keys)["removedKeyIDs"] as? [String])
        #expect(removed.count == 1024)
        #expect(removed.first == "old-1" && removed.last == "ed-1")
    }

    /// The floors `verify` reads after a restart: each list URL's recorded `iat` and issuer, also
    /// once its file is gone; [] for a folder that is not fetch's; a bad state throws naming it.
    @Test func statusListFloorsReadTheRecordedIatAndIssuer() throws {
        let fixture = try FetchFixture()
        let issuer = "https://a.example"
        let key = SigningKey.generate(algorithm: .ed25519, keyID: "a-1", issuer: issuer)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(key))
        let keys = try fixture.keysTarget("keys.jwks")
        let target = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try fixture.publisher.publish(
            "list",
            try StatusListIssuer(key: key).sign(
                uri: target.url, bits: 1, size: 8, statuses: [:], format: .jws, issuedAt: Self.now - 100))
        #expect(try fixture.fetcher().fetch([keys, target]).map(\.outcome.isUpdated) == [true, true])
        try FileManager.default.removeItem(atPath: "\(fixture.out)/status-lists/\(target.fileName)")
        let expected = [StatusListFloor(uri: target.url, issuer: issuer, issuedAt: Double(Self.now - 100))]
        #expect(try statusListFloors(followedFolder: "\(fixture.out)/status-lists") == expected)
        #expect(try statusListFloors(followedFolder: "\(fixture.out)/status-lists/") == expected)
        #expect(try statusListFloors(followedFolder: "\(fixture.out)/keys") == [])
        #expect(try statusListFloors(followedFolder: "\(fixture.publisher.directory.path)/status-lists") == [])
        try "not json".write(toFile: "\(fixture.out)/.fetch-state.json", atomically: true, encoding: .utf8)
        #expect {
            _ = try statusListFloors(followedFolder: "\(fixture.out)/status-lists")
        } throws: { error in
            "\(error)".contains("\(fixture.out)/.fetch-state.json")
        }
    }
}
