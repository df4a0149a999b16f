import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The command-line side of spec §4c and §7's fail-closed rules: `fetch` honours the umask, and
/// `sign --format cwt` keeps integers exact from −2^64 to 2^64 − 1 (a status index above 2^53 was
/// written as a float, and verify then called the token malformed).
@Suite struct FailClosedCommandTests {
    /// Under `umask 077` the files and folders `fetch` creates are private (it wrote 0644 files).
    @Test func fetchHonoursTheUmask() throws {
        let publisher = try HTTPSPublisher()
        let workspace = try Workspace()
        try publisher.publish("keys.jwks", "{\"keys\":[\(workspace.ed.publicJWK)]}")
        let out = publisher.directory.appendingPathComponent("out").path
        let command = [
            "umask 077 && exec \"$0\" \"$@\"", Tool.binary.path, "fetch", "--keys", publisher.url("keys.jwks"),
            "--out", out, "--ca-file", publisher.caFile,
        ]
        let fetch = try External.run("/bin/sh", ["-c"] + command)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(out)/keys")
        try #require(names.count == 1, "\(names)")
        for (path, mode) in [
            ("\(out)/keys/\(names[0])", 0o600), ("\(out)/.fetch-state.json", 0o600), ("\(out)/.fetch.lock", 0o600),
            ("\(out)/keys", 0o700), ("\(out)/status-lists", 0o700),
        ] {
            var info = stat()
            try #require(stat(path, &info) == 0, "\(path)")
            #expect(Int(info.st_mode & 0o777) == mode, "\(path): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    /// `sign` in both formats keeps every integer exact; a status index beyond 2^53 is answered as
    /// an index (beyond the list), not as a malformed token.
    @Test(arguments: ["jws", "cwt"])
    func signKeepsIntegersExact(format: String) throws {
        let space = try Workspace()
        let key = try space.write("ed.private.jwk", space.ed.privateJWK)
        let extremes = #""big":18446744073709551615,"small":-18446744073709551616,"odd":9007199254740993"#
        let claims = Workspace.claims([
            "x": "{\(extremes)}",
            "status": #"{"status_list":{"idx":9007199254740993,"uri":"https://op.example/sl/7"}}"#,
        ])
        let signed = try Tool.run(["sign", "--key", key, "--format", format], input: Data((claims + "\n").utf8))
        #expect(signed.status == 0, "\(signed.stderr)")
        let token = signed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let inspected = try Tool.run(["inspect", token])
        #expect(inspected.stdout.contains(extremes), "\(inspected.stdout)")
        #expect(inspected.stdout.contains(#""idx":9007199254740993"#), "\(inspected.stdout)")
        let list = try StatusListIssuer(key: space.ed).sign(
            uri: "https://op.example/sl/7", bits: 1, size: 16, statuses: [:], format: .jws, issuedAt: 1_799_990_000)
        let lists = try space.write("sl.jwt", list)
        let verified = try Tool.run(
            space.verifyArguments + ["--status-lists", lists], input: Data((token + "\n").utf8))
        #expect(verified.stdout.contains("token index 9007199254740993 is beyond status list"), "\(verified.stdout)")
        for outside in ["18446744073709551616", "-18446744073709551617"] where format == "cwt" {
            let refused = try Tool.run(
                ["sign", "--key", key, "--format", format], input: Data("{\"n\":\(outside)}\n".utf8))
            #expect(refused.status != 0 && refused.stderr.contains("2^64"), "\(outside): \(refused.stderr)")
        }
    }
}
