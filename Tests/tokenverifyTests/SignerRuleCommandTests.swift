import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// spec §4c "A signer is a signer", "Issuer", "No step back", over the real binary: a status
/// list's signer is held to everything a token's signer is (in force, not revoked, of the token's
/// environment and issuer), and a group of lists never steps back to an older generation. Each
/// test answered otherwise before the signer rule (run a suite against an older build with
/// `TOKENVERIFY_BINARY=PATH swift test --skip-build --filter SignerRuleCommandTests`).
@Suite struct SignerRuleCommandTests {
    static let uri = "https://op.example/sl/9"
    let tokenKey = SigningKey.generate(algorithm: .ed25519, keyID: "token-a", issuer: "operator-a")
    let good = SigningKey.generate(algorithm: .ed25519, keyID: "list-good", issuer: "operator-a")
    let retired = SigningKey.generate(algorithm: .es256, keyID: "list-retired", issuer: "operator-a")

    /// A list of `key` in which entry 3 is INVALID (`revoked`) or VALID.
    func list(
        _ key: SigningKey, revoked: Bool, issuedAt: Int64, uri: String = uri, issuer: String? = nil
    ) throws
        -> String
    {
        try StatusListIssuer(key: key).sign(
            uri: uri, bits: 1, size: 64, statuses: revoked ? [3: 1] : [:], format: .jws, issuedAt: issuedAt,
            issuer: issuer)
    }

    /// A token of `key` for entry 3 of the list, as a request checked at `at`.
    func request(
        _ space: Workspace, _ key: SigningKey, issuer: String = "operator-a", at: Int = 1_800_000_000
    )
        -> String
    {
        let token = space.token(
            key,
            claims: Workspace.claims([
                "iss": "\"\(issuer)\"", "status": #"{"status_list":{"idx":3,"uri":"\#(Self.uri)"}}"#,
            ]))
        return #"{"token":"\#(token)","at":\#(at)}"#
    }

    /// `verify` over `keys`, the lists (file name, token) and `revocations`; the answers.
    func verify(
        _ space: Workspace, keys: [SigningKey], lists: [(String, String)], revocations: String = "",
        lines: [String], extra: [String] = []
    ) throws -> [String] {
        try space.write("keys.jwks", "{\"keys\":[\(keys.map(\.publicJWK).joined(separator: ","))]}")
        try space.write("revocations.jsonl", revocations)
        try FileManager.default.createDirectory(atPath: space.path("lists"), withIntermediateDirectories: true)
        for (name, text) in lists { try space.write("lists/" + name, text) }
        let run = try Tool.run(
            space.verifyArguments + ["--status-lists", space.path("lists")] + extra,
            input: lines.joined(separator: "\n") + "\n")
        #expect(run.status == 0, "\(run.stderr)")
        return run.stdout.split(separator: "\n").map(String.init)
    }

    /// The `spki#S256` of a key (its public JWK loaded as a key set).
    func spki(_ key: SigningKey) throws -> String {
        try KeySet.parse(Array("{\"keys\":[\(key.publicJWK)]}".utf8)).0.keys[0].keyThumbprint
    }

    /// Finding 7: a list signed by a key revoked with `{"kid":K}` or `{"spki#S256":…}` is out of
    /// force: its newer all-clear generation shadows the older revoking one, from `since` on.
    @Test(arguments: ["kid", "spki#S256"])
    func aRevokedKeyPublishesNoList(selector: String) throws {
        let space = try Workspace()
        let name = selector == "kid" ? retired.keyID : try spki(retired)
        let lists = [
            ("old.jwt", try list(good, revoked: true, issuedAt: 1_799_900_000)),
            ("new.jwt", try list(retired, revoked: false, issuedAt: 1_799_950_000)),
        ]
        let revocation = #"{"\#(selector)":"\#(name)","since":1799990000}"#
        let answers = try verify(
            space, keys: [tokenKey, good, retired], lists: lists, revocations: revocation + "\n",
            lines: [request(space, tokenKey, at: 1_799_980_000), request(space, tokenKey)])
        #expect(answers[0].contains("\"valid\":true"), "before since, the list is in force: \(answers[0])")
        #expect(answers[1].contains("status_unavailable") && answers[1].contains("is revoked"), "\(answers[1])")
    }

    /// Finding 7 for tokens too: `spki#S256` revokes a key of the key set (`revoked_key`), JWS and CWT.
    @Test(arguments: [TokenFormat.jws, .cwt])
    func aKeyThumbprintRevokesTokens(format: TokenFormat) throws {
        let space = try Workspace()
        try space.write("keys.jwks", "{\"keys\":[\(tokenKey.publicJWK)]}")
        try space.write("revocations.jsonl", #"{"spki#S256":"\#(try spki(tokenKey))"}"# + "\n")
        let claims = Workspace.claims()
        let token =
            format == .jws
            ? space.token(tokenKey, claims: claims)
            : try CWTSigner(key: tokenKey).sign(claims: Array(claims.utf8))
        let run = try Tool.run(space.verifyArguments, input: token + "\n")
        #expect(run.stdout.contains("\"reason\":\"revoked_key\"") && run.stdout.contains("spki#S256"), "\(run.stdout)")
    }

    /// Finding 8: without `--env`, a newer all-clear list signed by an INT key of the same issuer
    /// never answers for a PROD token; the PROD list does.
    @Test func listsOfTwoEnvironmentsNeverMix() throws {
        let space = try Workspace()
        let token = SigningKey.generate(
            algorithm: .ed25519, keyID: "tok", environment: .production, issuer: "operator-a")
        let prod = SigningKey.generate(
            algorithm: .ed25519, keyID: "prod", environment: .production, issuer: "operator-a")
        let int = SigningKey.generate(
            algorithm: .ed25519, keyID: "int", environment: .integration, issuer: "operator-a")
        let lists = [
            ("prod.jwt", try list(prod, revoked: true, issuedAt: 1_799_900_000)),
            ("int.jwt", try list(int, revoked: false, issuedAt: 1_799_950_000)),
        ]
        let answers = try verify(space, keys: [token, prod, int], lists: lists, lines: [request(space, token)])
        #expect(answers[0].contains("status_invalid"), "\(answers[0])")
    }

    /// Finding 15: a list whose key names `iss` answers for a token whose key names none and whose
    /// own `iss` is that issuer.
    @Test func aListAnswersForTokensOfItsIssuerWhoseKeyNamesNone() throws {
        let space = try Workspace()
        let plain = SigningKey.generate(algorithm: .ed25519, keyID: "plain")
        let answers = try verify(
            space, keys: [plain, good], lists: [("sl.jwt", try list(good, revoked: true, issuedAt: 1_799_900_000))],
            lines: [request(space, plain), request(space, plain, issuer: "operator-b")])
        #expect(answers[0].contains("status_invalid"), "\(answers[0])")
        #expect(answers[1].contains("status_unavailable"), "another issuer's token: \(answers[1])")
    }

    /// After a restart, the `iat` fetch recorded for a followed `DIR/status-lists` is the floor: a
    /// list file put back older answers nothing; a state file that does not parse stops start-up.
    @Test func fetchsRecordedIatIsTheFloorAfterARestart() throws {
        let space = try Workspace()
        try FileManager.default.createDirectory(
            atPath: space.path("out/status-lists"), withIntermediateDirectories: true)
        try space.write("keys.jwks", "{\"keys\":[\(tokenKey.publicJWK),\(good.publicJWK)]}")
        try space.write("out/status-lists/sl", try list(good, revoked: false, issuedAt: 1_799_900_000))
        let entry =
            #"{"file":"status-lists/sl","validators":{},"checkedAt":1799950000,"issuedAt":1799950000,"issuer":{"iss":"operator-a"}}"#
        try space.write("out/.fetch-state.json", #"{"entries":{"\#(Self.uri)":\#(entry)}}"#)
        let arguments = space.verifyArguments + ["--status-lists", space.path("out/status-lists")]
        let run = try Tool.run(arguments, input: request(space, tokenKey) + "\n")
        #expect(run.stdout.contains("status_unavailable") && run.stdout.contains("fetch's record"), "\(run.stdout)")
        try space.write("out/.fetch-state.json", "{not json")
        let bad = try Tool.run(arguments, input: "")
        #expect(bad.status == 2 && bad.stderr.contains(".fetch-state.json"), "\(bad.stderr)")
    }
}
