import Foundation
import TestSupport
import Testing
import TokenConcurrency
import TokenGen
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// Faults around a running `tokenverify verify`: signals at random moments, revocation files
/// replaced or broken under a stream, key files that cannot be read.
@Suite struct FaultTests {
    /// Line numbers of `stdout`'s answers; every answer must be one complete JSON object.
    private func lineNumbers(_ stdout: String) -> [Int] {
        stdout.split(separator: "\n").map { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["line"] as? Int ?? -1
        }
    }

    @Test(arguments: [SIGTERM, SIGINT], [UInt64(1), 2, 3])
    func signalAtARandomMomentLosesNoAnswerAndRepeatsNone(_ signal: Int32, _ seed: UInt64) throws {
        let space = try Workspace()
        let token = space.token()
        var random = SplitMix64(seed &* 31 &+ UInt64(signal))
        let live = try LiveTool(space.verifyArguments)
        let batch = String(repeating: token + "\n", count: 1_000)
        let feeder = Thread {
            for _ in 0..<200 where live.send(batch) {}
            live.closeInput()
        }
        feeder.start()
        #expect(live.readLine()?.contains("\"line\":1,") == true)  // it is running (handlers set)
        // A random moment: once 2 to 8,000 answers are written.
        live.waitForOutputLines(2 + Int(random.next() % 7_999))
        kill(live.process.processIdentifier, signal)
        let end = live.finish()
        let numbers = lineNumbers(end.stdout)
        // Answers 1…k, each once and in order: no line read was dropped, none answered twice.
        #expect(numbers == Array(2..<(numbers.count + 2)))
        #expect(numbers.count + 1 < 200_000, "the run stopped before the end of its input")
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(end.stderr.contains("\(numbers.count + 1) answered"), "\(end.stderr)")
        #expect(end.stderr.contains("stopped by signal"))
        #expect(!end.stderr.contains("Fatal") && !end.stderr.contains("crashed"))
    }

    /// The file alternates between a list that revokes the token's `jti` and one that revokes
    /// its device. A check that mixed the two snapshots (the jti looked up in one, the device
    /// in the other) would find nothing and call the token valid; every answer must name one of
    /// the two reasons. After the last replacement, its list is the one in force.
    @Test func revocationsReplacedAHundredTimesUnderAStream() throws {
        let minimumLines = Int(ProcessInfo.processInfo.environment["TOKENVERIFY_FAULT_LINES"] ?? "") ?? 100_000
        let space = try Workspace()
        let byToken = "{\"jti\":\"t-1\"}\n{\"jti\":\"padding-a\"}\n"
        let byDevice = "{\"sub\":\"phone-1\"}\n{\"jti\":\"padding-b\"}\n"
        try space.write("revocations.jsonl", byToken)
        let token = space.token()
        let live = try LiveTool(space.verifyArguments + ["--reload-interval", "0.005"])
        let replacementsDone = LockedValue(false)
        let sentLines = LockedValue(0)
        let feederDone = LockedBox(false)
        let batch = String(repeating: token + "\n", count: 1_000)
        let feeder = Thread {
            defer { feederDone.set(true) }
            while !replacementsDone.withLock({ $0 }) || sentLines.withLock({ $0 }) < minimumLines {
                guard live.send(batch) else { return }
                sentLines.withLock { $0 += 1_000 }
            }
        }
        feeder.start()
        // The first answer: the tool watches its files (a file replaced before that may go unseen).
        let first = try #require(live.readLine())
        // Each list is replaced once the tool has put the previous one in force (its reload line).
        for index in 0..<100 {
            try space.replace("revocations.jsonl", index % 2 == 0 ? byDevice : byToken)
            let seen = live.waitForErrorLines(containing: "revocations reloaded", count: index + 1)
            try #require(seen.count == index + 1, "replacement \(index + 1) not reloaded; stderr: \(seen.suffix(3))")
        }
        // The last list written (index 99), now in force, revokes by token id.
        replacementsDone.withLock { $0 = true }
        #expect(feederDone.wait(within: 60) { $0 }.met, "the feeder did not finish")
        live.send(token + "\n")
        live.closeInput()
        let end = live.finish()
        let lines = [Substring(first)] + end.stdout.split(separator: "\n")
        #expect(lines.count == sentLines.withLock { $0 } + 1)
        var counts: [String: Int] = [:]
        for line in lines {
            let reason =
                line.contains("\"reason\":\"revoked_token\"")
                ? "revoked_token"
                : line.contains("\"reason\":\"revoked_device\"") ? "revoked_device" : String(line)
            counts[reason, default: 0] += 1
        }
        #expect(
            Set(counts.keys) == ["revoked_token", "revoked_device"],
            "unexpected answers: \(counts.filter { $0.value < 10 })")
        #expect(lines.last?.contains("revoked_token") == true, "the last snapshot is in force at the end")
        let reloads = end.stderr.components(separatedBy: "revocations reloaded").count - 1
        #expect(reloads >= 100, "only \(reloads) reloads seen")
        #expect(!end.stderr.contains("not reloaded"))
    }

    @Test func aRevocationFileTruncatedOrBrokenInPlaceKeepsTheOldSnapshot() throws {
        let space = try Workspace()
        try space.write("revocations.jsonl", "{\"jti\":\"t-1\"}\n")
        let token = space.token()
        let live = try LiveTool(space.verifyArguments + ["--reload-interval", "0.2"])
        live.send(token + "\n")
        #expect(live.readLine()?.contains("revoked_token") == true)
        let broken = [
            "{\"jti\":\"t-",  // cut mid-entry
            "{\"jti\":\"t-2\"}\n{\"sub\":",  // cut mid-line after a good one
            "{\"jti\":\"t-2\"}\n\u{0}\u{0}\u{0}\n",  // zeros from a crashed writer
            "{\"jti\":\"t-2\",\"jti\":\"t-3\"}\n",  // a duplicate member
        ]
        for (index, text) in broken.enumerated() {
            // Written in place, not renamed: the reader sees the file as it is. Written over, then
            // cut to its length, so that no state in between is an empty (valid) list.
            let handle = try #require(FileHandle(forWritingAtPath: space.path("revocations.jsonl")))
            try handle.write(contentsOf: Data(text.utf8))
            try handle.truncate(atOffset: UInt64(text.utf8.count))
            try handle.close()
            // The reload that would have changed the answer is tried, and refused, first.
            let refusals = live.waitForErrorLines(containing: "previous list stays in force", count: index + 1)
            #expect(refusals.count == index + 1, "no refusal of \(text.debugDescription) on stderr")
            live.send(token + "\n")
            #expect(live.readLine()?.contains("revoked_token") == true, "after \(text.debugDescription)")
        }
        // An empty file is a valid, empty list.
        let handle = try #require(FileHandle(forWritingAtPath: space.path("revocations.jsonl")))
        try handle.truncate(atOffset: 0)
        try handle.close()
        #expect(live.ask(token, until: "\"valid\":true"))
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(end.stderr.components(separatedBy: "previous list stays in force").count - 1 >= broken.count)
    }

    @Test func keyFilesThatCannotBeReadStopStartUp() throws {
        let space = try Workspace()
        let cases: [(arguments: [String], mentions: String)] = [
            (["--keys", space.path("absent.jwks")], "absent.jwks"),
            (["--keys", space.directory.path], space.directory.lastPathComponent),  // a directory
            (["--keys", try space.write("empty.jwks", "")], "empty.jwks"),
            (["--keys", try space.write("truncated.jwks", "{\"keys\":[{\"kty\":\"OKP\"")], "truncated.jwks"),
            (["--keys", try space.write("binary.jwks", "\u{0}\u{1}\u{2}")], "binary.jwks"),
            (["--keys", space.path("keys.jwks"), "--revocations", space.path("absent.jsonl")], "absent.jsonl"),
        ]
        for (arguments, mentions) in cases {
            let output = try Tool.run(["verify"] + arguments, input: space.token() + "\n")
            #expect(output.status == 2, "\(arguments)")
            #expect(output.stdout.isEmpty, "nothing is read or answered")
            #expect(output.stderr.contains(mentions), "\(output.stderr)")
        }
    }
}
