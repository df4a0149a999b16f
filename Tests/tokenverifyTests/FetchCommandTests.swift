import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// `tokenverify fetch` as a user runs it, against a local HTTPS publisher: usage errors, exit
/// statuses, and `fetch --watch` feeding a running `verify`.
@Suite struct FetchCommandTests {
    @Test func plainHTTPAndOtherUsageErrorsExitTwoBeforeAnyRequest() throws {
        let out = FileManager.default.temporaryDirectory
            .appendingPathComponent("tokenverify-fetch-\(UUID().uuidString)").path
        let url = "https://127.0.0.1:9/k"
        let cases: [([String], String)] = [
            (["--keys", "http://127.0.0.1:9/keys.jwks"], "only https URLs are fetched (plain http: is refused)"),
            (["--status-lists", "https://127.0.0.1:9/list", "http://127.0.0.1:9/list"], "plain http: is refused"),
            ([], "name at least one URL"),
            (["--keys", url, "--min-interval", "10", "--max-interval", "5"], "--min-interval must not exceed"),
            (["--keys", url, "--timeout", "0"], "--timeout must be a positive number"),
            (["--keys", url, "--ca-file", "/nonexistent.pem"], "--ca-file /nonexistent.pem: cannot be read"),
        ]
        for (arguments, message) in cases {
            let result = try Tool.run(["fetch", "--out", out] + arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test func aFailedURLExitsOneNamingItAndTheOthersAreWritten() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        try publisher.publish("a.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        try publisher.publish("b.jwks", "{\"keys\":[\(workspace.es.publicJWK)]}")
        let arguments = [
            "fetch", "--keys", publisher.url("a.jwks"), publisher.url("b.jwks"), "--out", out,
            "--ca-file", publisher.caFile,
        ]
        let first = try Tool.run(arguments)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(out)/keys").count == 2)
        let again = try Tool.run(arguments)
        #expect(again.status == 0 && again.stderr.contains("unchanged (304 Not Modified)"), "\(again.stderr)")

        try publisher.setMode("a.jwks", "status 500")
        try publisher.publish("b.jwks", "{\"keys\":[\(workspace.es.publicJWK),\(workspace.prod.publicJWK)]}")
        let failed = try Tool.run(arguments)
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("tokenverify: \(publisher.url("a.jwks")) failed: HTTP 500;"), "\(failed.stderr)")
        #expect(failed.stderr.contains("\(publisher.url("b.jwks")): wrote keys/"))
        let token = workspace.token(workspace.prod, claims: Workspace.claims(["env": "\"prod\""]))
        let verify = try Tool.run(
            ["verify", "--keys", "\(out)/keys", "--at", Workspace.checkTime, "--quiet"],
            input: token + "\n")
        #expect(verify.stdout.contains("\"valid\":true"), "\(verify.stdout) \(verify.stderr)")
    }

    @Test func withoutTheCAFileAPrivateCAIsRefused() throws {
        let publisher = try HTTPSPublisher()
        try publisher.publish("a.jwks", "{\"keys\":[\(try Workspace().ed.publicJWK)]}")
        let out = publisher.directory.appendingPathComponent("out").path
        let result = try Tool.run(["fetch", "--keys", publisher.url("a.jwks"), "--out", out])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(publisher.url("a.jwks")) failed:"), "\(result.stderr)")
        #expect(result.stderr.lowercased().contains("certificate"), "\(result.stderr)")
    }

    /// The pair the README shows: `fetch --watch` keeps the folders fresh, `verify` follows them;
    /// a token turns `status_invalid` within seconds of its publisher's change. Then SIGTERM ends
    /// `fetch` during a download, leaving no temporary file.
    @Test func watchFeedsARunningVerifyAndStopsCleanlyOnSIGTERM() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        let listURL = publisher.url("list-1")
        let checkTime = Int64(Workspace.checkTime)!  // verify runs --at it: both lists are issued before
        func list(status: UInt8, issuedAt: Int64) throws -> String {
            try StatusListIssuer(key: workspace.ed).sign(
                uri: listURL, bits: 1, size: 16,
                statuses: status == 0 ? [:] : [3: status],
                format: .jws, issuedAt: issuedAt, timeToLive: 1)
        }
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        try publisher.publish("list-1", try list(status: 0, issuedAt: checkTime - 7200))
        let fetch = try LiveTool([
            "fetch", "--keys", publisher.url("keys.jwks"), "--status-lists", listURL,
            "--out", out,
            "--ca-file", publisher.caFile, "--watch", "--interval", "1", "--min-interval", "1",
            "--max-interval", "2", "--timeout", "60",
            // The lists are issued before verify's --at, which lies after today: let their iat pass.
            "--leeway", "100000000",
        ])
        let listFolder = "\(out)/status-lists"
        func listFiles() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: listFolder)) ?? [] }
        try #require(eventually { listFiles().contains { !$0.hasPrefix(".") } }, "fetch --watch wrote no list")

        let verify = try LiveTool([
            "verify", "--keys", "\(out)/keys", "--status-lists", listFolder,
            "--at", Workspace.checkTime,
        ])
        let status = #"{"status_list":{"idx":3,"uri":"\#(listURL)"}}"#
        let token = workspace.token(claims: Workspace.claims(["status": status]))
        #expect(verify.ask(token, until: "\"valid\":true"))

        try publisher.publish("list-1", try list(status: 1, issuedAt: checkTime - 3600))
        let changed = Date()
        var invalid = false
        while !invalid && Date().timeIntervalSince(changed) < 15 {
            invalid = verify.ask(token, until: "status_invalid")
        }
        #expect(
            invalid && Date().timeIntervalSince(changed) < 15,
            "not status_invalid 15 s after the publisher's change")
        verify.closeInput()
        _ = verify.finish()

        // A download in flight (the publisher answers after 30 s), then SIGTERM.
        try publisher.setMode("list-1", "slow 30")
        #expect(
            eventually { listFiles().contains { $0.hasPrefix(".fetching-") } }, "no download in flight to interrupt")
        let stopping = Date()
        fetch.process.terminate()
        let result = fetch.finish()
        #expect(Date().timeIntervalSince(stopping) < 3)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(listFiles().allSatisfy { !$0.hasPrefix(".") }, "\(listFiles())")
        let keyFiles = (try? FileManager.default.contentsOfDirectory(atPath: "\(out)/keys")) ?? []
        #expect(keyFiles.allSatisfy { !$0.hasPrefix(".") })
    }

    @Test func sighupFetchesEveryURLAtOnce() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        let fetch = try LiveTool([
            "fetch", "--keys", publisher.url("keys.jwks"), "--out", out,
            "--ca-file", publisher.caFile, "--watch", "--interval", "3600",
        ])
        func keyFile() -> String? {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: "\(out)/keys")) ?? [])
                .filter { !$0.hasPrefix(".") }
            return names.first.flatMap { try? String(contentsOfFile: "\(out)/keys/\($0)", encoding: .utf8) }
        }
        func keyRequests() -> Int {
            publisher.requests().filter { ($0["path"] as? String)?.hasSuffix("keys.jwks") == true }.count
        }
        // The first fetch is written and reported; the next is due in an hour.
        try #require(fetch.waitForErrorLine(containing: "wrote keys/") != nil, "fetch --watch wrote no key set")
        try #require(keyFile() != nil)
        let rotated = "{\"keys\":[\(workspace.ed.publicJWK),\(workspace.es.publicJWK)]}"
        try publisher.publish("keys.jwks", rotated)
        // Nothing fetches the new set but the signal: one request so far, the old set on disk.
        #expect(keyRequests() == 1)
        #expect(keyFile() != rotated)
        kill(fetch.process.processIdentifier, SIGHUP)
        let changed = eventually(within: 5, observe: { keyFile() }, until: { $0 == rotated })
        #expect(changed.met, "after SIGHUP the key file is \(changed.last ?? "absent")")
        #expect(keyRequests() == 2)
        fetch.process.terminate()
        #expect(fetch.finish().status == 0)
    }

    @Test func aFailureIsRetriedSoonWhileWatching() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        try publisher.setMode("keys.jwks", "status 503")
        let fetch = try LiveTool([
            "fetch", "--keys", publisher.url("keys.jwks"), "--out", out,
            "--ca-file", publisher.caFile, "--watch", "--interval", "3600",
        ])
        func keyFiles() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "\(out)/keys")) ?? []).filter { !$0.hasPrefix(".") }
        }
        func refused() -> Bool { publisher.requests().contains { $0["status"] as? Int == 503 } }
        try #require(eventually(refused), "the publisher refused nothing")
        try publisher.setMode("keys.jwks", nil)
        // The first retries come after 0.5–1 s, then 1–2 s: well before the hour of --interval.
        let recovered = eventually(within: 10, observe: keyFiles, until: { !$0.isEmpty })
        #expect(recovered.last.count == 1 && recovered.waited < 5, "\(recovered.last) after \(recovered.waited) s")
        fetch.process.terminate()
        let result = fetch.finish()
        #expect(result.status == 0)
        #expect(result.stderr.contains("\(publisher.url("keys.jwks")) failed: HTTP 503;"), "\(result.stderr)")
    }

    /// A replayed key set that brings back a dropped kid: refused (exit 1, the file kept), counted
    /// by reason in `--metrics-file`, and let back on purpose with `--readmit-kid`. A state file that
    /// does not parse stops fetch (exit 2) naming it. Before these rules the key set was written.
    @Test func aReplayedKeySetIsRefusedCountedAndReadmittedOnPurpose() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        let out = publisher.directory.appendingPathComponent("out").path
        let url = publisher.url("keys.jwks")
        let arguments = ["fetch", "--keys", url, "--out", out, "--ca-file", publisher.caFile]
        let both = "{\"keys\":[\(workspace.ed.publicJWK),\(workspace.es.publicJWK)]}"
        try publisher.publish("keys.jwks", both)
        #expect(try Tool.run(arguments).status == 0)
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.es.publicJWK)]}")
        #expect(try Tool.run(arguments).status == 0)
        try publisher.publish("keys.jwks", both)
        let replay = try Tool.run(arguments)
        #expect(replay.status == 1)
        #expect(
            replay.stderr.contains("\(url) refused: the key set brings back key \"\(workspace.ed.keyID)\""),
            "\(replay.stderr)")

        let metrics = publisher.directory.appendingPathComponent("fetch.prom").path
        let watch = try LiveTool(arguments + ["--watch", "--metrics-file", metrics])
        #expect(watch.waitForErrorLine(containing: "\(url) refused:") != nil)
        watch.process.terminate()
        #expect(watch.finish().status == 0)
        let text = try String(contentsOfFile: metrics, encoding: .utf8)
        let counted = text.split(separator: "\n").filter {
            $0.hasPrefix("tokenverify_fetch_refusals_total{") && $0.contains("reason=\"retired_key\"")
        }
        #expect(counted.count == 1 && counted.first?.hasSuffix(" 1") == true, "\(text)")

        let readmitted = try Tool.run(arguments + ["--readmit-kid", workspace.ed.keyID])
        #expect(readmitted.status == 0 && readmitted.stderr.contains("\(url): wrote keys/"), "\(readmitted.stderr)")

        let state = "\(out)/.fetch-state.json"
        try "{".write(toFile: state, atomically: true, encoding: .utf8)
        let stopped = try Tool.run(arguments)
        #expect(stopped.status == 2 && stopped.stderr.contains("\(state) does not parse"), "\(stopped.stderr)")
    }
}
