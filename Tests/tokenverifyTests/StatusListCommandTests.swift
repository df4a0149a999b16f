import Foundation
import Testing
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// Status lists through the command line (docs/spec.md §4c, §7): `status-list` and `inspect`, `verify
/// --status-lists` at start-up, and lists and keys followed in watched directories.
@Suite struct StatusListCommandTests {
    static let uri = "https://op.example/sl/7"

    func statusClaims(_ index: Int, uri: String = Self.uri) -> String {
        Workspace.claims(["status": #"{"status_list":{"idx":\#(index),"uri":"\#(uri)"}}"#])
    }

    func list(
        _ space: Workspace, key: SigningKey? = nil, statuses: [Int: UInt8], issuedAt: Int64 = 1_799_990_000,
        format: TokenFormat = .jws
    ) throws -> String {
        try StatusListIssuer(key: key ?? space.ed).sign(
            uri: Self.uri, bits: 2, size: 64, statuses: statuses, format: format,
            issuedAt: issuedAt)
    }

    /// Writes `text` into `directory` under a hidden name, then renames it into place.
    func install(_ text: String, as name: String, in directory: String) throws {
        let temporary = directory + "/." + name + ".partial"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, directory + "/" + name) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    @Test func statusListCommandAndInspect() throws {
        let space = try Workspace()
        let key = try space.write("ed.private.jwk", space.ed.privateJWK)
        for format in ["jws", "cwt"] {
            let made = try Tool.run(
                [
                    "status-list", "--key", key, "--uri", Self.uri, "--bits", "2", "--size", "100",
                    "--iat", "2026-11-20T08:00:00Z", "--exp", "1900000000", "--ttl", "600", "--format", format,
                ],
                input:
                    "{\"idx\":1993,\"status\":1}\n{\"idx\":3,\"status\":2}\n{\"idx\":5,\"status\":1}\n{\"idx\":5,\"status\":3}\n"
            )
            #expect(made.status == 2, "an index beyond --size is refused: \(made.stderr)")
            #expect(made.stderr.contains("index 1993 is outside the list's 100 entries"))
            let good = try Tool.run(
                [
                    "status-list", "--key", key, "--uri", Self.uri, "--bits", "2", "--size", "100",
                    "--iat", "2026-11-20T08:00:00Z", "--exp", "1900000000", "--ttl", "600", "--format", format,
                ],
                input: "{\"idx\":3,\"status\":2}\n\n{\"idx\":5,\"status\":1}\n{\"idx\":5,\"status\":3}\n")
            #expect(good.status == 0, "\(good.stderr)")
            let token = good.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.contains(".") == (format == "jws"))
            let list = try StatusListToken.load(
                bytes: Array(token.utf8), source: "made", keys: try KeySet.load(files: [space.path("keys.jwks")]).0)
            #expect(
                list.nonZeroEntries().map(\.index) == [3, 5] && list.status(at: 5) == 3,
                "the last value of an index wins")
            #expect(list.issuedAt == 1_795_161_600 && list.expiresAt == 1_900_000_000 && list.timeToLive == 600)
            let shown = try Tool.run(["inspect", token])
            #expect(
                shown.stdout.contains(
                    #""status_list_entries":{"uri":"https://op.example/sl/7","bits":2,"entries":100,"non_zero":[{"idx":3,"status":2},{"idx":5,"status":3}]}"#
                ), "\(shown.stdout)")
            #expect(shown.stdout.contains("UNVERIFIED"))
        }
        let bad = try Tool.run(
            ["status-list", "--key", key, "--uri", Self.uri, "--bits", "3", "--size", "10"], input: "")
        #expect(bad.status == 2 && bad.stderr.contains("--bits must be 1, 2, 4 or 8"))
        let badLine = try Tool.run(
            ["status-list", "--key", key, "--uri", Self.uri, "--size", "10"], input: "{\"idx\":-1,\"status\":1}\n")
        #expect(badLine.status == 2 && badLine.stderr.contains("<stdin>:1:"))
    }

    @Test func aBadListStopsStartUpNamingTheFile() throws {
        let space = try Workspace()
        let stranger = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
        let cases: [(String, String)] = [
            (try list(space, key: stranger, statuses: [:]), "the signature does not verify with key \"ed-1\""),
            (
                try list(space, key: SigningKey.generate(algorithm: .es256, keyID: "nobody"), statuses: [:]),
                "key \"nobody\" is not in the key set"
            ),
            (space.token(), "header typ must be \"statuslist+jwt\" (found \"JWT\")"),
        ]
        for (text, mention) in cases {
            let file = try space.write("bad.jwt", text)
            let result = try Tool.run(space.verifyArguments + ["--status-lists", file], input: space.token() + "\n")
            #expect(result.status == 2)
            #expect(result.stdout.isEmpty, "nothing is read")
            #expect(result.stderr.contains("\(file): \(mention)"), "\(result.stderr)")
        }
        let missing = try Tool.run(space.verifyArguments + ["--status-lists", space.path("none.jwt")], input: "")
        #expect(missing.status == 2 && missing.stderr.contains("none.jwt: cannot read the file"))
        let both = try Tool.run(
            space.verifyArguments + ["--status-lists", space.path("none.jwt"), "--skip-status-lists"], input: "")
        #expect(both.status == 2 && both.stderr.contains("contradict"))
        let skipped = try Tool.run(
            space.verifyArguments + ["--skip-status-lists"], input: space.token(claims: statusClaims(1)) + "\n")
        #expect(skipped.answers.first?["valid"] as? Bool == true)
        #expect(skipped.stderr.contains("status not checked (--skip-status-lists) for 1 token"), "\(skipped.stderr)")
    }

    /// A running stream follows a directory of lists: a new generation renamed in turns a token
    /// invalid, a broken replacement keeps the generation in force, a removed file takes its
    /// generation with it; and a directory of keys: a key file added brings its kid.
    @Test func listsAndKeysFollowTheirDirectories() throws {
        let space = try Workspace()
        let lists = space.path("lists")
        let keys = space.path("keys")
        try FileManager.default.createDirectory(atPath: lists, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        try install("{\"keys\":[\(space.ed.publicJWK)]}", as: "a.jwks", in: keys)
        try install(try list(space, statuses: [:]), as: "sl-7.jwt", in: lists)
        let live = try LiveTool([
            "verify", "--keys", keys, "--status-lists", lists, "--at", Workspace.checkTime, "--reload-interval", "0.05",
        ])
        let token = space.token(claims: statusClaims(1))
        live.send(token + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)
        try install(try list(space, statuses: [1: 1], issuedAt: 1_799_995_000), as: "sl-7.jwt", in: lists)
        #expect(
            live.ask(token, until: "\"reason\":\"status_invalid\""),
            "a new generation is in force within a reload interval")
        try install("not a list", as: "sl-7.jwt", in: lists)
        #expect(
            live.waitForErrorLine(containing: "its previous generation stays in force: \(lists)/sl-7.jwt") != nil,
            "the broken file is read")
        live.send(token + "\n")
        #expect(live.readLine()?.contains("status_invalid") == true, "a broken file keeps its previous generation")
        // A second file of the same URI, issued later, is a newer generation.
        try install(
            try list(space, statuses: [1: 2], issuedAt: 1_799_999_000, format: .cwt), as: "sl-7-next.cwt", in: lists)
        #expect(live.ask(token, until: "\"reason\":\"status_suspended\""))
        try FileManager.default.removeItem(atPath: lists + "/sl-7-next.cwt")
        try FileManager.default.removeItem(atPath: lists + "/sl-7.jwt")
        #expect(
            live.ask(token, until: "\"reason\":\"status_unavailable\""), "a removed file takes its generation with it")
        let esToken = space.token(space.es)
        live.send(esToken + "\n")
        #expect(live.readLine()?.contains("unknown_key") == true)
        try install("{\"keys\":[\(space.es.publicJWK)]}", as: "b.jwks", in: keys)
        #expect(live.ask(esToken, until: "\"valid\":true"), "a key file added to the directory")
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(
            end.stderr.contains("status list not reloaded, its previous generation stays in force: \(lists)/sl-7.jwt"),
            "\(end.stderr)")
        #expect(!end.stderr.contains(".partial"), "hidden files in a directory are not read")
    }

    /// A key rotation that takes away a list's key puts the list out of force at once (its tokens
    /// are status_unavailable, never valid), and says so on stderr.
    @Test func aRotationWithoutTheListsKeyPutsItOutOfForce() throws {
        let space = try Workspace()
        let keys = space.path("keys")
        try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
        try install("{\"keys\":[\(space.ed.publicJWK),\(space.es.publicJWK)]}", as: "a.jwks", in: keys)
        let list = try space.write("sl.cwt", try list(space, key: space.es, statuses: [1: 1], format: .cwt))
        let live = try LiveTool([
            "verify", "--keys", keys, "--status-lists", list, "--at", Workspace.checkTime, "--reload-interval", "0.05",
        ])
        let token = space.token(claims: statusClaims(1))
        live.send(token + "\n")
        #expect(live.readLine()?.contains("status_invalid") == true)
        try install("{\"keys\":[\(space.ed.publicJWK)]}", as: "a.jwks", in: keys)
        #expect(live.ask(token, until: "\"reason\":\"status_unavailable\""))
        live.closeInput()
        let end = live.finish()
        #expect(end.stderr.contains("status list \"\(Self.uri)\" is out of force: its key \"es-1\""), "\(end.stderr)")
    }
}
