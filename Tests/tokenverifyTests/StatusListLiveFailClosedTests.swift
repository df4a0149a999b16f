import Foundation
import Testing
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
import TestSupport
#endif

/// spec §4c "Status fails closed, never open", over watched folders of a running `verify`: key
/// rotations, lists waiting for their key, ties, other issuers and stale rewrites never make a
/// token that the newest list of its issuer revokes answer valid. Before the fail-closed index,
/// the rotation, retry, tie and issuer tests answered `valid` where these expect otherwise.
@Suite struct StatusListLiveFailClosedTests {
    static let uri = "https://op.example/sl/7"
    let keyA = SigningKey.generate(algorithm: .ed25519, keyID: "list-a")
    let keyB = SigningKey.generate(algorithm: .es256, keyID: "list-b")

    struct Folders {
        let space: Workspace
        let keys: String
        let lists: String
    }

    func folders() throws -> Folders {
        let space = try Workspace()
        let folders = Folders(space: space, keys: space.path("keys"), lists: space.path("lists"))
        for folder in [folders.keys, folders.lists] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        return folders
    }

    func list(_ key: SigningKey, revoked: Bool, issuedAt: Int64) throws -> String {
        try StatusListIssuer(key: key).sign(
            uri: Self.uri, bits: 1, size: 64, statuses: revoked ? [3: 1] : [:], format: .jws, issuedAt: issuedAt)
    }

    /// Writes `text` under a hidden name in `directory`, then renames it into place.
    func install(_ text: String, as name: String, in directory: String) throws {
        let temporary = directory + "/." + name + ".partial"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, directory + "/" + name) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    func jwks(_ keys: SigningKey...) -> String { "{\"keys\":[\(keys.map(\.publicJWK).joined(separator: ","))]}" }

    func start(_ folders: Folders) throws -> LiveTool {
        try LiveTool([
            "verify", "--keys", folders.keys, "--status-lists", folders.lists, "--at", Workspace.checkTime,
            "--reload-interval", "0.05",
        ])
    }

    func token(_ space: Workspace, key: SigningKey? = nil, issuer: String = "operator-a") -> String {
        space.token(
            key,
            claims: Workspace.claims([
                "iss": "\"\(issuer)\"", "status": #"{"status_list":{"idx":3,"uri":"\#(Self.uri)"}}"#,
            ]))
    }

    /// One answer for `line`.
    func answer(_ live: LiveTool, _ line: String) -> String {
        live.send(line + "\n")
        return live.readLine() ?? "(no answer)"
    }

    /// Waits (5 s at most) until stderr has a line containing `text`, from line `start` on.
    func waitForError(_ live: LiveTool, _ text: String, from start: Int = 0) -> Bool {
        live.waitForErrorLine(containing: text, from: start, timeout: 5) != nil
    }

    /// Asks until the answer contains `text` (5 s at most); every answer meanwhile must not be valid.
    func askNeverValid(_ live: LiveTool, _ line: String, until text: String) -> (reached: Bool, sawValid: Bool) {
        var sawValid = false
        let reached = eventually(within: 5) {
            let got = answer(live, line)
            if got.contains("\"valid\":true") { sawValid = true }
            return got.contains(text)
        }
        return (reached, sawValid)
    }

    /// Finding 1: G1 (key A, clean) and G2 (key B, revoking); key B leaves the watched key file:
    /// the token is status_unavailable (G2 shadows G1), never valid, and stderr says why.
    @Test func aRotationDoesNotBringBackAnOlderList() throws {
        let folders = try folders()
        let space = folders.space
        try install(jwks(space.ed, keyA, keyB), as: "keys.jwks", in: folders.keys)
        try install(try list(keyA, revoked: false, issuedAt: 1_799_980_000), as: "g1.jwt", in: folders.lists)
        try install(try list(keyB, revoked: true, issuedAt: 1_799_990_000), as: "g2.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space)
        #expect(answer(live, token).contains("status_invalid"))
        try install(jwks(space.ed, keyA), as: "keys.jwks", in: folders.keys)
        #expect(waitForError(live, "keys reloaded"))
        let got = askNeverValid(live, token, until: "status_unavailable")
        #expect(got.reached && !got.sawValid)
        #expect(answer(live, token).contains("out of force"))
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0)
        #expect(
            end.stderr.contains(
                "status list \"\(Self.uri)\" is out of force: its key \"list-b\" is no longer in the key set"),
            "\(end.stderr)")
        #expect(
            end.stderr.contains("g2.jwt") && end.stderr.contains("it shadows the older generation"), "\(end.stderr)")
    }

    /// Finding 2: G2 arrives before its key ("not loaded"); when the key arrives, the lists are
    /// loaded again with it and G2 answers, without a SIGHUP.
    @Test func aListWaitingForItsKeyIsTriedAgainWhenTheKeysChange() throws {
        let folders = try folders()
        let space = folders.space
        try install(jwks(space.ed, keyA), as: "a.jwks", in: folders.keys)
        try install(try list(keyA, revoked: false, issuedAt: 1_799_980_000), as: "g1.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space)
        #expect(answer(live, token).contains("\"valid\":true"))
        try install(try list(keyB, revoked: true, issuedAt: 1_799_990_000), as: "g2.jwt", in: folders.lists)
        #expect(waitForError(live, "status list not loaded"))
        try install(jwks(keyB), as: "b.jwks", in: folders.keys)
        #expect(waitForError(live, "status lists reloaded (key set changed)"))
        #expect(answer(live, token).contains("status_invalid"), "G2 is in force once its key is")
        live.closeInput()
        #expect(live.finish().status == 0)
    }

    /// Finding 6: a second file with the same iat and other entries makes every line they would
    /// answer status_unavailable, and stderr names both files, whichever name sorts first.
    @Test(arguments: [("a.jwt", "b.jwt"), ("b.jwt", "a.jwt")])
    func twoFilesWithOneIatAnswerNothing(revokedName: String, cleanName: String) throws {
        let folders = try folders()
        let space = folders.space
        try install(jwks(space.ed, keyA), as: "keys.jwks", in: folders.keys)
        try install(try list(keyA, revoked: true, issuedAt: 1_799_990_000), as: revokedName, in: folders.lists)
        let live = try start(folders)
        let token = token(space)
        #expect(answer(live, token).contains("status_invalid"))
        try install(try list(keyA, revoked: false, issuedAt: 1_799_990_000), as: cleanName, in: folders.lists)
        let got = askNeverValid(live, token, until: "status_unavailable")
        #expect(got.reached && !got.sawValid)
        live.closeInput()
        let end = live.finish()
        #expect(
            end.stderr.contains("with different entries, in \(folders.lists)/a.jwt and \(folders.lists)/b.jwt"),
            "\(end.stderr)")
        // At start-up too.
        let again = try Tool.run(
            ["verify", "--keys", folders.keys, "--status-lists", folders.lists, "--at", Workspace.checkTime],
            input: token + "\n")
        #expect(again.stdout.contains("status_unavailable") && again.stderr.contains("with different entries"))
    }

    /// Issuer binding: a newer all-clear list of issuer B for the same URI does not un-revoke
    /// issuer A's token.
    @Test func anotherIssuersListDoesNotAnswer() throws {
        let folders = try folders()
        let space = folders.space
        let tokenKey = SigningKey.generate(algorithm: .ed25519, keyID: "token-a", issuer: "operator-a")
        let listA = SigningKey.generate(algorithm: .ed25519, keyID: "list-a", issuer: "operator-a")
        let listB = SigningKey.generate(algorithm: .ed25519, keyID: "list-b", issuer: "operator-b")
        try install(jwks(tokenKey, listA, listB), as: "keys.jwks", in: folders.keys)
        try install(try list(listA, revoked: true, issuedAt: 1_799_980_000), as: "a.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space, key: tokenKey)
        #expect(answer(live, token).contains("status_invalid"))
        try install(try list(listB, revoked: false, issuedAt: 1_799_990_000), as: "b.jwt", in: folders.lists)
        #expect(waitForError(live, "status lists reloaded"))
        #expect(answer(live, token).contains("status_invalid"), "B's list never answers for A's token")
        #expect(answer(live, self.token(space, key: listB, issuer: "operator-b")).contains("\"valid\":true"))
        live.closeInput()
        #expect(live.finish().status == 0)
    }

    /// A file rewritten with an older generation of its list (a stale copy) never brings that
    /// generation back: the newer one, gone, still shadows it (spec §4c "No step back"), so the
    /// token is `status_unavailable` until a newer generation arrives.
    @Test func aFileRewrittenWithAnOlderGenerationLeavesTheListUnavailable() throws {
        let folders = try folders()
        let space = folders.space
        try install(jwks(space.ed, keyA), as: "keys.jwks", in: folders.keys)
        try install(try list(keyA, revoked: true, issuedAt: 1_799_990_000), as: "sl.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space)
        #expect(answer(live, token).contains("status_invalid"))
        try install(try list(keyA, revoked: false, issuedAt: 1_799_980_000), as: "sl.jwt", in: folders.lists)
        #expect(waitForError(live, "was loaded and is gone"))
        let stepBack = answer(live, token)
        #expect(stepBack.contains("status_unavailable") && stepBack.contains("only a newer generation withdraws it"))
        let seen = live.errorLines(from: 0).count
        try install(try list(keyA, revoked: false, issuedAt: 1_799_995_000), as: "sl.jwt", in: folders.lists)
        #expect(waitForError(live, "status lists reloaded (file changed): 1 list", from: seen))
        #expect(answer(live, token).contains("\"valid\":true"), "a newer generation answers")
        live.closeInput()
        #expect(live.finish().status == 0)
    }

    /// Finding 12: a watched file rewritten with another URI's list, then with an older generation
    /// (or one with the same `iat` and other entries), never brings an older answer back.
    @Test(arguments: [1_799_980_000, 1_799_990_000] as [Int64])
    func aFileRewrittenTwiceNeverStepsBack(issuedAt: Int64) throws {
        let folders = try folders()
        let space = folders.space
        try install(jwks(space.ed, keyA), as: "keys.jwks", in: folders.keys)
        try install(try list(keyA, revoked: true, issuedAt: 1_799_990_000), as: "sl.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space)
        #expect(answer(live, token).contains("status_invalid"))
        let other = try StatusListIssuer(key: keyA).sign(
            uri: "https://op.example/sl/other", bits: 1, size: 64, statuses: [:], format: .jws, issuedAt: 1_799_000_000)
        var seen = live.errorLines(from: 0).count
        try install(other, as: "sl.jwt", in: folders.lists)
        #expect(waitForError(live, "status lists reloaded", from: seen))
        seen = live.errorLines(from: 0).count
        try install(try list(keyA, revoked: false, issuedAt: issuedAt), as: "sl.jwt", in: folders.lists)
        #expect(waitForError(live, "status lists reloaded", from: seen))
        let got = answer(live, token)
        #expect(got.contains("status_unavailable"), "\(got)")
        live.closeInput()
        #expect(live.finish().status == 0)
    }

    /// Finding 13: a list whose key comes back naming another `iss` keeps shadowing its issuer's
    /// older generations when its file is touched (loaded again under the new issuer).
    @Test func aKeyThatReturnsUnderAnotherIssuerKeepsShadowingAfterATouch() throws {
        let folders = try folders()
        let space = folders.space
        let tokenKey = SigningKey.generate(algorithm: .ed25519, keyID: "token-a", issuer: "operator-a")
        let old = SigningKey.generate(algorithm: .ed25519, keyID: "list-old", issuer: "operator-a")
        let secret = [UInt8](repeating: 7, count: 32)
        let moving = try SigningKey.derive(
            algorithm: .ed25519, keyID: "list-moving", secret: secret, issuer: "operator-a")
        let moved = try SigningKey.derive(
            algorithm: .ed25519, keyID: "list-moving", secret: secret, issuer: "operator-b")
        try install(jwks(tokenKey, old, moving), as: "keys.jwks", in: folders.keys)
        try install(try list(old, revoked: false, issuedAt: 1_799_900_000), as: "a.jwt", in: folders.lists)
        let revoking = try list(moving, revoked: true, issuedAt: 1_799_950_000)
        try install(revoking, as: "b.jwt", in: folders.lists)
        let live = try start(folders)
        let token = token(space, key: tokenKey)
        #expect(answer(live, token).contains("status_invalid"))
        var seen = live.errorLines(from: 0).count
        try install(jwks(tokenKey, old, moved), as: "keys.jwks", in: folders.keys)
        #expect(waitForError(live, "status lists reloaded", from: seen))
        #expect(answer(live, token).contains("status_unavailable"))
        seen = live.errorLines(from: 0).count
        try install(revoking, as: "b.jwt", in: folders.lists)
        #expect(waitForError(live, "status lists reloaded", from: seen))
        let got = answer(live, token)
        #expect(got.contains("status_unavailable"), "the older generation never answers again: \(got)")
        live.closeInput()
        #expect(live.finish().status == 0)
    }
}
