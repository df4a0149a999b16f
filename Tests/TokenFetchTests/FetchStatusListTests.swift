import Foundation
import TestSupport
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

/// Status List Tokens fetched: checked by `verify`'s loader against the key set just fetched,
/// their `sub` equal to the URL; a list that fails never replaces a good one.
@Suite struct FetchStatusListTests {
    static let now = Int64(Date().timeIntervalSince1970)

    /// A list at `uri` signed by `key`, entry 3 set to `status`.
    static func list(
        _ key: SigningKey, uri: String, status: UInt8 = 0, issuedAt: Int64 = now - 60,
        format: TokenFormat = .jws, timeToLive: Int64? = nil
    ) throws -> String {
        try StatusListIssuer(key: key).sign(
            uri: uri, bits: 2, size: 64, statuses: status == 0 ? [:] : [3: status],
            format: format, issuedAt: issuedAt, timeToLive: timeToLive)
    }

    /// Publishes the key set (`ed` and `es`) and a first good list, fetches both, and returns
    /// the fetcher and the two targets.
    private func start(_ fixture: FetchFixture) throws -> (Fetcher, keys: FetchTarget, list: FetchTarget) {
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        let list = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try fixture.publisher.publish("list", try Self.list(fixture.ed, uri: list.url))
        let keys = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher()
        let reports = fetcher.fetch([list, keys])
        #expect(reports.map(\.target) == [keys, list])
        #expect(reports.map(\.outcome) == [.updated("2 keys"), .updated("status list, 64 entries of 2 bits")])
        return (fetcher, keys, list)
    }

    @Test(arguments: [TokenFormat.jws, .cwt])
    func aListIsCheckedAgainstTheKeySetFetchedInTheSameRound(format: TokenFormat) throws {
        let fixture = try FetchFixture()
        let (fetcher, keys, list) = try start(fixture)
        // A new key in the key set and a list signed by it, published together.
        let rotated = SigningKey.generate(algorithm: .es256, keyID: "es-2")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, rotated))
        let next = try Self.list(rotated, uri: list.url, status: 1, issuedAt: Self.now - 30, format: format)
        try fixture.publisher.publish("list", next)
        #expect(fetcher.fetch([list, keys]).map(\.outcome.isUpdated) == [true, true])
        #expect(fixture.file(list) == next)
        let loaded = try StatusListToken.load(
            bytes: Array(next.utf8), source: "list",
            keys: KeySet.load(files: ["\(fixture.out)/keys/\(keys.fileName)"]).0)
        #expect(loaded.status(at: 3) == 1)
    }

    /// Each forged or broken list, published after a good one: refused with `why`, the good one kept.
    @Test func aListThatVerifyWouldRefuseKeepsTheOldFile() throws {
        let fixture = try FetchFixture()
        let (fetcher, _, list) = try start(fixture)
        let good = fixture.file(list)
        let revoking = try Self.list(fixture.ed, uri: list.url, status: 1, issuedAt: Self.now - 30)
        let parts = revoking.split(separator: ".").map(String.init)
        var signature = Array(parts[2].utf8)
        signature[10] = signature[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let claims = String(decoding: Base64URL.decode(Array(parts[1].utf8))!, as: UTF8.self)
        let stranger = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")  // the same kid, another key
        let cases: [(name: String, body: String, why: String)] = [
            (
                "bad signature",
                [parts[0], parts[1], String(decoding: signature, as: UTF8.self)].joined(separator: "."),
                "signature"
            ),
            (
                "wrong typ",
                fixture.ed.sign(
                    header: Array(#"{"alg":"EdDSA","kid":"ed-1","typ":"JWT"}"#.utf8),
                    claims: Array(claims.utf8)), "typ"
            ),
            (
                "sub is another URL", try Self.list(fixture.ed, uri: fixture.publisher.url("other"), status: 1),
                "its sub is \"\(fixture.publisher.url("other"))\", not the URL it was fetched from"
            ),
            ("signed by a key not in the set", try Self.list(stranger, uri: list.url, status: 1), "signature"),
            ("not a list", "{\"keys\":[]}", "not a status list verify would load"),
        ]
        for forged in cases {
            try fixture.publisher.publish("list", forged.body)
            let failure = fetchOne(fetcher, list).outcome.failure
            #expect(failure?.contains(forged.why) == true, "\(forged.name): \(String(describing: failure))")
            #expect(fixture.file(list) == good, "\(forged.name)")
        }
        // A good revoking list, cut short or sent with a 500: kept out too.
        try fixture.publisher.publish("list", revoking)
        for mode in ["truncate", "status 500"] {
            try fixture.publisher.setMode("list", mode)
            #expect(fetchOne(fetcher, list).outcome.failure != nil, "\(mode)")
            #expect(fixture.file(list) == good, "\(mode)")
        }
        try fixture.publisher.setMode("list", nil)
        #expect(fetchOne(fetcher, list).outcome.isUpdated)
        #expect(fixture.file(list) == revoking)
        #expect(fixture.dotfiles().isEmpty)
    }

    @Test func aListWithoutAKeySetIsRefused() throws {
        let fixture = try FetchFixture()
        let list = try FetchTarget(kind: .statusList, url: fixture.publisher.url("list"))
        try fixture.publisher.publish("list", try Self.list(fixture.ed, uri: list.url))
        let failure = fetchOne(try fixture.fetcher(), list).outcome.failure
        #expect(failure?.hasPrefix("no key set in \(fixture.out)/keys") == true, "\(String(describing: failure))")
    }

    @Test func theWatchScheduleFollowsTTLWithinItsBoundsAndBeforeExp() throws {
        let schedule = WatchSchedule(interval: 300, minInterval: 10, maxInterval: 600)
        let target = try FetchTarget(kind: .statusList, url: "https://op.example/sl/1")
        func report(ttl: Double?, exp: Double?, _ outcome: FetchReport.Outcome = .updated("")) -> FetchReport {
            FetchReport(
                target: target, outcome: outcome,
                statusList: StatusListSummary(
                    uri: target.url, issuedAt: 0, expiresAt: exp, timeToLive: ttl,
                    description: ""))
        }
        let fixed: () -> Double = { 0.5 }
        #expect(schedule.delay(after: report(ttl: 120, exp: nil), failures: 0, now: 0, random: fixed) == 120)
        #expect(schedule.delay(after: report(ttl: 1, exp: nil), failures: 0, now: 0, random: fixed) == 10)
        #expect(schedule.delay(after: report(ttl: 86400, exp: nil), failures: 0, now: 0, random: fixed) == 600)
        #expect(schedule.delay(after: report(ttl: nil, exp: nil), failures: 0, now: 0, random: fixed) == 600)
        #expect(schedule.delay(after: report(ttl: 500, exp: 200), failures: 0, now: 0, random: fixed) == 180)
        #expect(schedule.delay(after: report(ttl: 500, exp: 5), failures: 0, now: 0, random: fixed) == 10)
        let keys = FetchReport(
            target: try FetchTarget(kind: .keys, url: "https://op.example/jwks"),
            outcome: .unchanged(""), statusList: nil)
        #expect(schedule.delay(after: keys, failures: 0, now: 0, random: fixed) == 300)
        // Failures: 1, 2, 4, … seconds with jitter in [½, 1) of that, never beyond the ordinary delay.
        let failed = report(ttl: 120, exp: nil, .failed("HTTP 500"))
        #expect(
            (1...8).map { schedule.delay(after: failed, failures: $0, now: 0, random: { 0 }) }
                == [0.5, 1, 2, 4, 8, 16, 32, 60])
        #expect(schedule.delay(after: failed, failures: 3, now: 0, random: { 0.999 }) < 4)
    }
}
