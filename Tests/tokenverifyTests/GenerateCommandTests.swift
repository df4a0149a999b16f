import Foundation
import TestSupport
import Testing
import TokenGen

/// `gen` streaming: the same files whatever the threads and counts, order, the
/// realistic mix, a committed fingerprint, bad `--out`, and an interrupted run.
@Suite struct GenerateCommandTests {
    static let setFiles = [
        "keys.jwks", "signing-keys.jwk", "revocations.jsonl", "tokens.txt", "requests.jsonl", "expected.jsonl",
    ]

    /// 64-bit FNV-1a over the set's files (names and bytes), as 16 hex digits.
    static func fingerprint(_ directory: String) throws -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for name in setFiles {
            for byte in Array(name.utf8) + [0]
                + [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
            {
                hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
            }
        }
        return String(hash, radix: 16)
    }

    static func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .dropLast()
    }

    /// 9000 lines: three blocks of 4096, the last one short.
    @Test func sameFilesOnOneThreadAndManyAndAFingerprint() throws {
        let space = try Workspace()
        let one = space.path("one")
        let many = space.path("many")
        let first = try Tool.run([
            "gen", "--count", "9000", "--seed", "7", "--realistic", "--threads", "1", "--out", one,
        ])
        let second = try Tool.run([
            "gen", "--count", "9000", "--seed", "7", "--realistic", "--threads", "4", "--out", many,
        ])
        #expect(first.status == 0 && second.status == 0)
        for name in Self.setFiles {
            let a = try Data(contentsOf: URL(fileURLWithPath: one + "/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: many + "/" + name))
            #expect(!a.isEmpty && a == b, "\(name) differs between 1 and 4 threads")
        }
        // Ed25519 and ES256 tokens alike are byte-reproducible (RFC 6979 nonces): a set made by
        // this generator on any machine has this fingerprint.
        #expect(try Self.fingerprint(one) == "3c9dce024fae2f30")
        let esTokens = try Self.lines(one + "/tokens.txt").filter { $0.hasPrefix("eyJhbGciOiJFUzI1NiIs") }
        #expect(esTokens.count > 3000)
    }

    /// A smaller count gives the first lines of a larger one.
    @Test func aSmallerCountIsAPrefix() throws {
        let space = try Workspace()
        let small = space.path("small")
        let large = space.path("large")
        #expect(try Tool.run(["gen", "--count", "5000", "--seed", "3", "--realistic", "--out", small]).status == 0)
        #expect(try Tool.run(["gen", "--count", "8200", "--seed", "3", "--realistic", "--out", large]).status == 0)
        for name in ["tokens.txt", "requests.jsonl", "expected.jsonl"] {
            let a = try Self.lines(small + "/" + name)
            let b = try Self.lines(large + "/" + name)
            #expect(a.count == 5000 && b.count == 8200)
            #expect(Array(b.prefix(5000)) == a, "\(name) of 5000 is not the start of 8200")
        }
        let revokedSmall = try Self.lines(small + "/revocations.jsonl")
        let revokedLarge = try Self.lines(large + "/revocations.jsonl")
        #expect(!revokedSmall.isEmpty && Array(revokedLarge.prefix(revokedSmall.count)) == revokedSmall)
    }

    /// The in-memory generator (library API) gives the same lines as the files of `gen`.
    @Test func inMemorySetMatchesTheFiles() throws {
        let space = try Workspace()
        let out = space.path("set")
        #expect(try Tool.run(["gen", "--count", "5000", "--seed", "3", "--realistic", "--out", out]).status == 0)
        let set = TokenSetGenerator.generate(.realistic(count: 5000, seed: 3), threads: 3)
        #expect(try Self.lines(out + "/requests.jsonl").map(String.init) == set.requests)
        #expect(try Self.lines(out + "/tokens.txt").map(String.init) == set.tokens)
        #expect(try Self.lines(out + "/expected.jsonl").map(String.init) == set.expectedLines)
        #expect(try Self.lines(out + "/revocations.jsonl").map(String.init) == set.revocations)
        #expect(try String(contentsOfFile: out + "/keys.jwks", encoding: .utf8) == set.keySet + "\n")
    }

    /// Lines in order, ids and line numbers counting up, and the realistic shares within tolerance.
    @Test func orderAndRealisticMix() throws {
        let space = try Workspace()
        let out = space.path("set")
        #expect(try Tool.run(["gen", "--count", "12000", "--seed", "11", "--realistic", "--out", out]).status == 0)
        let requests = try Self.lines(out + "/requests.jsonl")
        let expected = try Self.lines(out + "/expected.jsonl")
        let tokens = try Self.lines(out + "/tokens.txt")
        #expect(requests.count == 12000 && expected.count == 12000 && tokens.count == 12000)
        var counts: [String: Int] = [:]
        var seen = Set<Substring>()
        var repeated = 0
        for index in 0..<12000 {
            #expect(requests[index].hasPrefix("{\"id\":\(index + 1),\"token\":\"\(tokens[index])\""))
            #expect(expected[index].hasPrefix("{\"line\":\(index + 1),"))
            let object = try JSONSerialization.jsonObject(with: Data(expected[index].utf8)) as! [String: Any]
            counts[object["reason"] as? String ?? "valid", default: 0] += 1
            if !seen.insert(tokens[index]).inserted { repeated += 1 }
        }
        func share(_ name: String) -> Double { Double(counts[name] ?? 0) / 12000 }
        // Repeats copy an earlier line's verdict, so each share of the rest is scaled by 0.9 ± noise.
        #expect(abs(share("expired") - 0.05) < 0.012)
        #expect(abs(share("revoked_token") - 0.05) < 0.012)
        #expect(abs(share("bad_signature") - 0.03) < 0.01)
        #expect(abs(share("command_not_permitted") - 0.07) < 0.015)
        #expect(abs(Double(repeated) / 12000 - 0.1) < 0.015)
        let es = tokens.filter { $0.hasPrefix("eyJhbGciOiJFUzI1NiIs") }.count
        #expect(abs(Double(es) / 12000 - 0.5) < 0.03)
    }

    @Test func badOutStopsBeforeAnyWork() throws {
        let space = try Workspace()
        let file = try space.write("a-file", "x")
        let onFile = try Tool.run(["gen", "--count", "10", "--out", file])
        #expect(onFile.status == 2 && onFile.stderr.contains("is a file, not a directory"))

        let full = space.path("full")
        try FileManager.default.createDirectory(atPath: full, withIntermediateDirectories: true)
        try space.write("full/notes.txt", "mine")
        let notEmpty = try Tool.run(["gen", "--count", "10", "--out", full])
        #expect(notEmpty.status == 2 && notEmpty.stderr.contains("not empty") && notEmpty.stderr.contains("--force"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: full) == ["notes.txt"])
        let forced = try Tool.run(["gen", "--count", "10", "--force", "--out", full])
        #expect(forced.status == 0)
        #expect(try Self.lines(full + "/expected.jsonl").count == 10)

        // Not writable: a 0555 directory, as an unprivileged user when the tests run as root.
        let locked = space.path("locked")
        try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: true)
        chmod(locked, 0o555)
        defer { chmod(locked, 0o755) }
        let arguments = ["gen", "--count", "10", "--out", locked]
        let denied =
            getuid() == 0
            ? try Self.run(
                "/usr/bin/setpriv",
                ["--reuid", "65534", "--regid", "65534", "--clear-groups", Tool.binary.path] + arguments)
            : try Self.run(Tool.binary.path, arguments)
        #expect(denied.status == 2 && denied.stderr.contains("is not writable"), "\(denied.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: locked).isEmpty)
    }

    /// Runs `executable` to the end: exit status and stderr.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try ProcessRunner.run(URL(fileURLWithPath: executable), arguments)
        return (result.status, String(decoding: result.stderr, as: UTF8.self))
    }

    /// SIGINT, SIGTERM or SIGHUP while writing: exit 130 and no set file left, complete-looking
    /// or partial (the one stop-signal mechanism of TokenConcurrency; for gen a hang-up stops).
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func interruptedRunLeavesNoSet(signal: Int32) throws {
        let space = try Workspace()
        let out = space.path("set")
        let gen = try LiveTool(["gen", "--count", "5000000", "--seed", "5", "--out", out])
        let partial = out + "/tokens.txt.partial"
        let written = eventually(within: 60) {
            ((try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0) >= 100_000
        }
        #expect(written, "gen wrote nothing within a minute")
        kill(gen.process.processIdentifier, signal)
        #expect(gen.finish().status == 130)
        #expect(gen.process.terminationReason == .exit, "gen ended by the signal itself, not by its own stop")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out) == [])
    }
}
