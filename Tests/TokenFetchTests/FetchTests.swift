import Foundation
import TestSupport
import Testing
import TokenFetch
import TokenTools
import TokenVerifier

/// `fetch` against a real HTTPS publisher on 127.0.0.1: what is written, what is refused, and
/// that a refused download never replaces a good file.
@Suite struct FetchTests {
    @Test func firstDownloadIsWrittenWithItsValidatorsOutsideTheKeyFolder() throws {
        let fixture = try FetchFixture()
        let keys = FetchFixture.jwks(fixture.ed, fixture.es)
        try fixture.publisher.publish("keys.jwks", keys)
        let target = try fixture.keysTarget("keys.jwks")
        let report = fetchOne(try fixture.fetcher(), target)
        #expect(report.outcome == .updated("2 keys"))
        #expect(fixture.file(target) == keys)
        #expect(fixture.dotfiles().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(fixture.out)/keys") == [target.fileName])
        let state = try String(contentsOfFile: "\(fixture.out)/.fetch-state.json", encoding: .utf8)
        #expect(state.contains(target.url) && state.contains("etag"))
    }

    @Test func anUnchangedFileIsAskedForWithItsETagAndKept() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.setMode("keys.jwks", "etag-only")
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fetchOne(fetcher, target).outcome == .unchanged("304 Not Modified"))
        let requests = fixture.publisher.requests()
        #expect(requests.map { $0["status"] as? Int } == [200, 304])
        #expect(requests[0]["if_none_match"] is NSNull && requests[1]["if_none_match"] as? String != nil)
        #expect(requests[1]["if_modified_since"] is NSNull)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        #expect(fetchOne(fetcher, target).outcome == .updated("2 keys"))
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed, fixture.es))
    }

    @Test func anUnchangedFileIsAskedForWithItsLastModifiedAndKept() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.setMode("keys.jwks", "lm-only")
        try fixture.publisher.publish(
            "keys.jwks", FetchFixture.jwks(fixture.ed),
            modified: Date(timeIntervalSince1970: 1_700_000_000))
        let target = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fetchOne(fetcher, target).outcome == .unchanged("304 Not Modified"))
        let requests = fixture.publisher.requests()
        #expect(requests.map { $0["status"] as? Int } == [200, 304])
        #expect(requests[1]["if_modified_since"] as? String == "Tue, 14 Nov 2023 22:13:20 GMT")
        #expect(requests[1]["if_none_match"] is NSNull)
        try fixture.publisher.publish(
            "keys.jwks", FetchFixture.jwks(fixture.es),
            modified: Date(timeIntervalSince1970: 1_700_000_100))
        #expect(fetchOne(fetcher, target).outcome == .updated("1 key"))
    }

    @Test func theValidatorsOutliveARunInWhichEveryURLFailed() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        #expect(fetchOne(try fixture.fetcher(), target).outcome.isUpdated)
        try fixture.publisher.setMode("keys.jwks", "status 500")
        #expect(fetchOne(try fixture.fetcher(), target).outcome.failure == "HTTP 500")
        try fixture.publisher.setMode("keys.jwks", nil)
        #expect(fetchOne(try fixture.fetcher(), target).outcome == .unchanged("304 Not Modified"))
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.out).sorted()
        #expect(names == [".fetch-state.json", ".fetch.lock", "keys", "status-lists"])
    }

    @Test func oneFetcherAtATimeWritesAnOutputDirectory() throws {
        let fixture = try FetchFixture()
        do {
            let first = try fixture.fetcher()
            withExtendedLifetime(first) { _ = #expect(throws: FetchUsageError.self) { try fixture.fetcher() } }
        }
        #expect(throws: Never.self) { try fixture.fetcher() }  // the first one's lock went with it
    }

    @Test func aDeletedFileIsFetchedWithoutConditions() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        try FileManager.default.removeItem(atPath: "\(fixture.out)/keys/\(target.fileName)")
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        #expect(fixture.publisher.requests().map { $0["status"] as? Int } == [200, 200])
    }

    /// Publishes a good key set, fetches it, publishes another good key set (so that only the
    /// failure, never a check of the body, can keep it out), sets `mode`, and returns the report.
    private func refetch(
        mode: String, timeout: Double = 5,
        fixture: FetchFixture
    ) throws -> (FetchReport, FetchTarget) {
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher(timeout: timeout)
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed, fixture.es))
        try fixture.publisher.setMode("keys.jwks", mode)
        return (fetchOne(fetcher, target), target)
    }

    @Test(arguments: [500, 404, 403, 204])
    func anErrorStatusKeepsTheOldFile(status: Int) throws {
        let fixture = try FetchFixture()
        let (report, target) = try refetch(mode: "status \(status)", fixture: fixture)
        #expect(report.outcome.failure == "HTTP \(status)")
        #expect(report.line.contains(target.url))
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
        #expect(fixture.dotfiles().isEmpty)
    }

    @Test func aTruncatedBodyKeepsTheOldFile() throws {
        let fixture = try FetchFixture()
        let (report, target) = try refetch(mode: "truncate", fixture: fixture)
        let failure = try #require(report.outcome.failure)
        #expect(failure.contains("bytes remaining") || failure.contains("truncated"), "\(failure)")
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
        #expect(fixture.dotfiles().isEmpty)
    }

    @Test func aTimeoutKeepsTheOldFile() throws {
        let fixture = try FetchFixture()
        let start = Date()
        let (report, target) = try refetch(mode: "slow 10", timeout: 1, fixture: fixture)
        #expect(Date().timeIntervalSince(start) < 8)
        #expect(report.outcome.failure?.hasPrefix("timed out after 1 s") == true, "\(report.outcome)")
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
    }

    @Test func fiveRedirectsWithinHTTPSAreFollowed() throws {
        let fixture = try FetchFixture()
        let (report, target) = try refetch(mode: "redirect 5", fixture: fixture)
        #expect(report.outcome == .updated("2 keys"))
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed, fixture.es))
        #expect(fixture.publisher.requests().suffix(6).allSatisfy { $0["tls"] as? Bool == true })
    }

    @Test func aSixthRedirectIsRefused() throws {
        let fixture = try FetchFixture()
        let (report, target) = try refetch(mode: "redirect 6", fixture: fixture)
        #expect(report.outcome.failure?.hasPrefix("more than 5 redirects") == true, "\(report.outcome)")
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
    }

    @Test func aRedirectToPlainHTTPIsRefused() throws {
        let fixture = try FetchFixture()
        let (report, target) = try refetch(mode: "redirect-http", fixture: fixture)
        let failure = try #require(report.outcome.failure)
        #expect(failure.contains("http://127.0.0.1:\(fixture.publisher.httpPort)/") && failure.contains("not https"))
        #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
        #expect(!fixture.publisher.requests().contains { $0["tls"] as? Bool == false })
    }

    @Test func anInvalidKeySetKeepsTheOldFile() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        let fetcher = try fixture.fetcher()
        #expect(fetchOne(fetcher, target).outcome.isUpdated)
        let forged = [
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"ed-1","x":"AAAA"}]}"#,  // 3 bytes, not a key
            "{\"keys\":[\(fixture.ed.publicJWK),\(fixture.ed.publicJWK)]}",  // kid twice
            "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"r\",\"n\":\"AQAB\",\"e\":\"AQAB\"}]}",  // unsupported type
            "<html>maintenance</html>",
        ]
        for body in forged {
            try fixture.publisher.publish("keys.jwks", body)
            let failure = try #require(fetchOne(fetcher, target).outcome.failure)
            #expect(failure.hasPrefix("not a key set verify would load: "), "\(failure)")
            #expect(failure.contains(target.url))
            #expect(fixture.file(target) == FetchFixture.jwks(fixture.ed))
        }
        #expect(fixture.dotfiles().isEmpty)
    }

    @Test func aKidAlreadyInAnotherFetchedKeySetIsRefused() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("a.jwks", FetchFixture.jwks(fixture.ed))
        try fixture.publisher.publish("b.jwks", FetchFixture.jwks(fixture.es, fixture.ed))
        let (a, b) = (try fixture.keysTarget("a.jwks"), try fixture.keysTarget("b.jwks"))
        let reports = try fixture.fetcher().fetch([a, b])
        #expect(reports[0].outcome.isUpdated)
        #expect(
            reports[1].outcome.failure
                == "key \"ed-1\" is also in \(fixture.out)/keys/\(a.fileName): verify would refuse the folder")
        #expect(fixture.file(b) == nil)
    }

    @Test func oneFailedURLDoesNotStopTheOthers() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("a.jwks", FetchFixture.jwks(fixture.ed))
        try fixture.publisher.publish("b.jwks", FetchFixture.jwks(fixture.es))
        try fixture.publisher.setMode("a.jwks", "status 500")
        let (a, b) = (try fixture.keysTarget("a.jwks"), try fixture.keysTarget("b.jwks"))
        let missing = try fixture.keysTarget("missing.jwks")
        let reports = try fixture.fetcher().fetch([a, missing, b])
        #expect(reports.map(\.outcome) == [.failed("HTTP 500"), .failed("HTTP 404"), .updated("1 key")])
        #expect(fixture.file(a) == nil && fixture.file(missing) == nil && fixture.file(b) != nil)
    }

    @Test func aServerOfAnUnknownCAIsRefusedWithoutTheCAFile() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        let target = try fixture.keysTarget("keys.jwks")
        let failure = try #require(fetchOne(try fixture.fetcher(trustTestCA: false), target).outcome.failure)
        #expect(failure.lowercased().contains("certificate"), "\(failure)")
        #expect(fixture.file(target) == nil)
        #expect(fetchOne(try fixture.fetcher(), target).outcome.isUpdated)
    }

    @Test func theServerNameMustMatchItsCertificate() throws {
        let fixture = try FetchFixture()
        try fixture.publisher.publish("keys.jwks", FetchFixture.jwks(fixture.ed))
        // The certificate names localhost and 127.0.0.1; 127.0.0.2 reaches the same server.
        let target = try FetchTarget(kind: .keys, url: "https://127.0.0.2:\(fixture.publisher.httpsPort)/keys.jwks")
        let failure = try #require(fetchOne(try fixture.fetcher(), target).outcome.failure)
        #expect(failure.contains("127.0.0.2"), "\(failure)")
    }
}
