import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenConcurrency
import TokenVerifier

@testable import TokenStream

#if canImport(Glibc)
import Glibc
#endif

/// Snapshots in line order (spec §4): once a line is answered against a new snapshot of the live
/// state, no later line is answered against an older one.
@Suite struct SnapshotOrderTests {
    /// Step policy number `generation`: every command needs the one step "g<generation>", so an
    /// answer's detail names the generation of the snapshot its line was checked against.
    static func policy(_ generation: Int) -> StepPolicy {
        try! StepPolicy(rules: [(command: "*", steps: ["g\(generation)"])])
    }

    /// The generation an answer line names (`needs step "g<n>"`), or nil.
    static func generation(of answer: Substring) -> Int? {
        guard let range = answer.range(of: #"needs step \"g"#) else { return nil }
        return Int(answer[range.upperBound...].prefix { $0.isNumber })
    }

    /// A line is answered against the snapshot it is given, not the one in force when it is
    /// answered: the plumbing from a chunk's snapshot to the batch engine.
    @Test func anAnswererChecksAgainstTheSnapshotItIsGiven() {
        let fixtures = Fixtures()
        let verifier = Verifier(
            keys: fixtures.keySet, steps: SecuritySteps(policy: Self.policy(1), done: .empty),
            options: VerificationOptions(checkTime: Fixtures.now))
        let answerer = LineAnswerer(verifier: verifier, maxLineBytes: 4096)
        let line = InputLine(
            number: 1, bytes: Array(#"{"token":"\#(Fixtures.token(fixtures.ed))","command":"unlock"}"#.utf8))
        let taken = verifier.snapshot
        verifier.apply(LiveStateUpdate(stepPolicy: Self.policy(2)))
        func generation(_ answer: (inout [UInt8]) -> [Reason?]) -> Int? {
            var bytes: [UInt8] = []
            #expect(answer(&bytes) == [.stepRequired])
            return Self.generation(of: Substring(decoding: bytes, as: UTF8.self))
        }
        #expect(generation { answerer.answer([line], against: taken, to: &$0) } == 1)
        #expect(generation { answerer.answer([line], to: &$0) } == 2, "without a snapshot: the one in force")
        #expect(generation { answerer.answer([line], against: verifier.snapshot, to: &$0) } == 2)
    }

    /// The pipeline's workers answer chunks while another thread puts generation after
    /// generation in force: the generations read off the answers never go down in line order.
    @Test func answersNeverGoBackToAnOlderSnapshot() throws {
        let fixtures = Fixtures()
        let verifier = Verifier(
            keys: fixtures.keySet,
            steps: SecuritySteps(policy: Self.policy(0), done: .empty),
            options: VerificationOptions(checkTime: Fixtures.now))
        let line = #"{"token":"\#(Fixtures.token(fixtures.ed))","command":"unlock"}"# + "\n"
        let lineCount = 30_000
        let input = try Fixtures.writeTemporary(String(repeating: line, count: lineCount), name: "input.jsonl")
        let outputPath = input + ".out"
        defer { try? FileManager.default.removeItem(atPath: (input as NSString).deletingLastPathComponent) }
        let inputDescriptor = open(input, O_RDONLY | O_CLOEXEC)
        let outputDescriptor = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        #expect(inputDescriptor >= 0 && outputDescriptor >= 0)

        // Small chunks of uneven work for four workers, while generations are put in force as
        // fast as one thread can.
        let done = LockedValue(false)
        let swapper = Thread {
            var generation = 0
            while !done.withLock({ $0 }) {
                generation += 1
                verifier.apply(LiveStateUpdate(stepPolicy: Self.policy(generation)))
            }
        }
        swapper.start()
        let pipeline = VerifyPipeline(verifier: verifier, configuration: .init(threads: 4, maxChunkLines: 7))
        let outcome = pipeline.run(inputs: [inputDescriptor], output: outputDescriptor, stopRequested: { false })
        done.withLock { $0 = true }
        close(inputDescriptor)
        close(outputDescriptor)

        #expect(outcome.summary.answered == lineCount)
        let answers = try String(contentsOfFile: outputPath, encoding: .utf8).split(separator: "\n")
        #expect(answers.count == lineCount)
        var newest = 0
        var seen = Set<Int>()
        var backwards: [String] = []
        for (index, answer) in answers.enumerated() {
            guard let generation = Self.generation(of: answer) else {
                Issue.record("line \(index + 1) names no generation: \(answer)")
                break
            }
            if generation < newest, backwards.count < 5 {
                backwards.append("line \(index + 1): generation \(generation) after \(newest)")
            }
            newest = max(newest, generation)
            seen.insert(generation)
        }
        #expect(backwards.isEmpty, "\(backwards)")
        #expect(seen.count > 10, "the state changed while lines were answered (\(seen.count) generations seen)")
    }
}
