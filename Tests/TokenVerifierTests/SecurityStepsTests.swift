import Foundation
import Testing
import TokenGen

@testable import TokenVerifier

/// The data layer of check 11b (spec §4b): the step policy, the device-steps snapshot and the
/// query combining them.
@Suite struct SecurityStepsTests {
    static let specPolicy =
        #"{"unlock":["trustedPhone","deviceActivation"],"engine_start":["trustedPhone","deviceActivation","mediumCarKey"],"*":["trustedPhone"]}"#

    func steps(_ policy: String?, _ done: String) throws -> SecuritySteps {
        SecuritySteps(
            policy: try policy.map { try StepPolicy.parse(Array($0.utf8)) },
            done: try DeviceSteps.parse(Array(done.utf8)))
    }

    /// A fresh temporary file holding `text`.
    func temporaryFile(_ text: String, _ name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("steps-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    // MARK: - Policy rules

    @Test func eachRuleAndTheWildcardFallback() throws {
        let checker = try steps(Self.specPolicy, #"{"sub":"p","aud":"car","done":["trustedPhone","deviceActivation"]}"#)
        #expect(checker.isActive)
        #expect(checker.firstMissing(command: "unlock", device: "p", objects: ["car"]) == nil)
        #expect(
            checker.firstMissing(command: "engine_start", device: "p", objects: ["car"])
                == MissingStep(step: "mediumCarKey", objectIndex: 0))
        // Not listed: the "*" rule.
        #expect(checker.firstMissing(command: "lock", device: "p", objects: ["car"]) == nil)
        #expect(
            checker.firstMissing(command: "lock", device: "q", objects: ["car"])
                == MissingStep(step: "trustedPhone", objectIndex: 0))
        // Commands compare by bytes: "Unlock" is not "unlock", so "*" applies.
        #expect(checker.firstMissing(command: "Unlock", device: "p", objects: ["car"]) == nil)
        #expect(checker.policy?.steps(for: "engine_start") == ["trustedPhone", "deviceActivation", "mediumCarKey"])
        #expect(checker.policy?.steps(for: "anything") == ["trustedPhone"])
    }

    @Test func noWildcardMeansUnlistedCommandsNeedNothing() throws {
        let checker = try steps(#"{"unlock":["trustedPhone"]}"#, "")
        #expect(checker.firstMissing(command: "lock", device: "p", objects: ["car"]) == nil)
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car"])
                == MissingStep(step: "trustedPhone", objectIndex: 0))
        #expect(checker.policy?.steps(for: "lock") == [])
    }

    @Test func noPolicyMeansNoCheck() throws {
        #expect(!SecuritySteps.none.isActive)
        #expect(SecuritySteps.none.firstMissing(command: "unlock", device: "p", objects: ["car"]) == nil)
        let checker = try steps(nil, #"{"sub":"p","done":[]}"#)
        #expect(checker.firstMissing(command: "unlock", device: "q", objects: ["car"]) == nil)
        let empty = try steps("{}", "")
        #expect(empty.isActive)
        #expect(empty.firstMissing(command: "unlock", device: "q", objects: ["car"]) == nil)
    }

    @Test func anEmptyArrayNeedsNothingAndOverridesTheWildcard() throws {
        let checker = try steps(#"{"lock":[],"*":["trustedPhone"]}"#, "")
        #expect(checker.firstMissing(command: "lock", device: "p", objects: ["car"]) == nil)
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car"])
                == MissingStep(step: "trustedPhone", objectIndex: 0))
        let emptyWildcard = try steps(#"{"*":[],"unlock":["a"]}"#, "")
        #expect(emptyWildcard.firstMissing(command: "lock", device: "p", objects: ["car"]) == nil)
        #expect(
            emptyWildcard.firstMissing(command: "unlock", device: "p", objects: ["car"])
                == MissingStep(step: "a", objectIndex: 0))
    }

    @Test func theFirstStepMissingInThePolicysOrder() throws {
        // The file lists the steps in another order; the policy's order decides.
        let checker = try steps(
            Self.specPolicy,
            """
            {"sub":"a","aud":"car","done":["mediumCarKey","deviceActivation"]}
            {"sub":"b","aud":"car","done":["mediumCarKey","trustedPhone"]}
            {"sub":"c","aud":"car","done":["deviceActivation","trustedPhone"]}
            """)
        #expect(checker.firstMissing(command: "engine_start", device: "a", objects: ["car"])?.step == "trustedPhone")
        #expect(
            checker.firstMissing(command: "engine_start", device: "b", objects: ["car"])?.step == "deviceActivation")
        #expect(checker.firstMissing(command: "engine_start", device: "c", objects: ["car"])?.step == "mediumCarKey")
        #expect(
            checker.firstMissing(command: "engine_start", device: "nobody", objects: ["car"])?.step == "trustedPhone")
    }

    // MARK: - Device steps

    @Test func audLessEntriesCountForEveryObject() throws {
        let checker = try steps(
            Self.specPolicy,
            """
            {"sub":"p","done":["trustedPhone"]}
            {"sub":"p","aud":"car-1","done":["deviceActivation"]}
            """)
        #expect(checker.firstMissing(command: "unlock", device: "p", objects: ["car-1"]) == nil)
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car-2"])
                == MissingStep(step: "deviceActivation", objectIndex: 0))
        #expect(checker.firstMissing(command: "lock", device: "p", objects: ["any-car"]) == nil)
        // A per-object entry counts for its object only; another device gets nothing.
        #expect(checker.firstMissing(command: "unlock", device: "q", objects: ["car-1"])?.step == "trustedPhone")
        #expect(checker.done.hasDone("trustedPhone", device: "p", object: "x"))
        #expect(!checker.done.hasDone("deviceActivation", device: "p", object: "x"))
    }

    @Test func entriesAddUpAcrossLinesAndFiles() throws {
        let first = try temporaryFile(
            """
            {"sub":"p","aud":"car","done":["trustedPhone"]}

            {"sub":"q","done":["trustedPhone"]}
            """, "a.jsonl")
        let second = try temporaryFile(
            """
            {"aud":"car","done":["deviceActivation"],"sub":"p"}
            {"sub":"p","aud":"car","done":["mediumCarKey","mediumCarKey"]}
            {"sub":"q","aud":"car","done":["deviceActivation"]}
            """, "b.jsonl")
        let done = try DeviceSteps.load(files: [first, second])
        #expect(done.count == 5)
        #expect(done.keyCount == 3)
        let checker = SecuritySteps(policy: try StepPolicy.parse(Array(Self.specPolicy.utf8)), done: done)
        #expect(checker.firstMissing(command: "engine_start", device: "p", objects: ["car"]) == nil)
        #expect(checker.firstMissing(command: "unlock", device: "q", objects: ["car"]) == nil)
        #expect(checker.firstMissing(command: "engine_start", device: "q", objects: ["car"])?.step == "mediumCarKey")
        #expect(checker.firstMissing(command: "unlock", device: "q", objects: ["boat"])?.step == "deviceActivation")
    }

    @Test func everyAudienceMustSatisfyWithoutARequestObject() throws {
        let checker = try steps(
            Self.specPolicy,
            """
            {"sub":"p","done":["trustedPhone"]}
            {"sub":"p","aud":"car-1","done":["deviceActivation"]}
            {"sub":"p","aud":"car-3","done":["deviceActivation"]}
            """)
        #expect(checker.firstMissing(command: "unlock", device: "p", objects: ["car-1", "car-3"]) == nil)
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car-1", "car-2", "car-3"])
                == MissingStep(step: "deviceActivation", objectIndex: 1))
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car-4", "car-1"])
                == MissingStep(step: "deviceActivation", objectIndex: 0))
        // The request's object alone.
        #expect(checker.firstMissing(command: "unlock", device: "p", objects: ["car-3"]) == nil)
    }

    @Test func idsCompareByBytesAfterUnescapingAndKeysAreUnambiguous() throws {
        let checker = try steps(
            #"{"unlock":["caf\u00e9"]}"#,
            """
            {"sub":"ph\\u006fne","aud":"ab","done":["café"]}
            """)
        #expect(checker.firstMissing(command: "unlock", device: "phone", objects: ["ab"]) == nil)
        // ("phone","ab") is not ("phonea","b"), nor the decomposed spelling of the step.
        #expect(checker.firstMissing(command: "unlock", device: "phonea", objects: ["b"]) != nil)
        let decomposed = try steps(#"{"unlock":["cafe\u0301"]}"#, #"{"sub":"p","aud":"a","done":["café"]}"#)
        let missing = try #require(decomposed.firstMissing(command: "unlock", device: "p", objects: ["a"]))
        #expect(Array(missing.step.utf8) == [0x63, 0x61, 0x66, 0x65, 0xCC, 0x81])
    }

    @Test func moreThanSixtyFourDistinctStepNames() throws {
        let names = (0..<70).map { "step-\($0)" }
        var lines = [#"{"sub":"filler","done":[\#(names.map { "\"\($0)\"" }.joined(separator: ","))]}"#]
        lines.append(#"{"sub":"p","aud":"car","done":["step-69","step-3"]}"#)
        lines.append(#"{"sub":"p","done":["step-66"]}"#)
        lines.append(#"{"sub":"p","aud":"car","done":["unrequired-\#(names.count)"]}"#)
        let done = try DeviceSteps.parse(Array(lines.joined(separator: "\n").utf8))
        #expect(done.stepNames.count == 71)
        #expect(done.hasDone("step-69", device: "p", object: "car"))
        #expect(done.hasDone("step-66", device: "p", object: "boat"))
        #expect(!done.hasDone("step-69", device: "p", object: "boat"))
        #expect(!done.hasDone("step-67", device: "p", object: "car"))
        let policy = try StepPolicy(rules: [
            ("unlock", ["step-69", "step-3", "step-66", "step-68"]), ("lock", ["step-66", "step-69", "step-3"]),
        ])
        let checker = SecuritySteps(policy: policy, done: done)
        #expect(
            checker.firstMissing(command: "unlock", device: "p", objects: ["car"])
                == MissingStep(step: "step-68", objectIndex: 0))
        #expect(checker.firstMissing(command: "lock", device: "p", objects: ["car"]) == nil)
        #expect(
            checker.firstMissing(command: "lock", device: "p", objects: ["car", "boat"])
                == MissingStep(step: "step-69", objectIndex: 1))
        #expect(checker.firstMissing(command: "unlock", device: "filler", objects: ["car"]) == nil)
    }

    @Test func aLargeSnapshotKeepsAtMostSixtyFourBytesPerEntry() throws {
        let lines = (0..<100_000).map { index in
            index % 4 == 0
                ? #"{"sub":"phone-\#(index)","done":["trustedPhone"]}"#
                : #"{"sub":"phone-\#(index)","aud":"car-\#(index % 1000)","done":["trustedPhone","deviceActivation"]}"#
        }
        let done = try DeviceSteps.parse(Array(lines.joined(separator: "\n").utf8))
        #expect(done.count == 100_000)
        #expect(done.storageBytes <= 64 * done.count, "\(done.storageBytes / done.count) bytes per entry")
        #expect(done.hasDone("deviceActivation", device: "phone-99999", object: "car-999"))
        #expect(!done.hasDone("deviceActivation", device: "phone-99999", object: "car-998"))
    }

    @Test func theTableGrowsWhenMoreKeysComeThanCounted() throws {
        let table = StepTable(expectedCount: 0)
        let hasher = KeyedHash()
        func key(_ index: Int) -> KeyedHash.Digest {
            withUTF8(of: "device-\(index)") { DeviceSteps.digest(device: $0, object: nil, hasher) }
        }
        for index in 0..<1000 { table.add(key(index), mask: UInt64(index % 7 + 1)) }
        for index in 0..<1000 where index % 2 == 0 { table.add(key(index), mask: 1 << 40) }
        table.add(key(7), mask: 1 << 50)
        table.finish()
        #expect(table.count == 1000)
        #expect(table.capacity >= 1000 * 5 / 3)
        for index in 0..<1000 {
            #expect(
                table.mask(key(index)) == UInt64(index % 7 + 1) | (index % 2 == 0 ? 1 << 40 : 0)
                    | (index == 7 ? 1 << 50 : 0))
        }
        #expect(table.mask(key(1000)) == nil)
        #expect(StepTable.key(KeyedHash.Digest(low: 0, high: 0)) != KeyedHash.Digest(low: 0, high: 0))
    }

    // MARK: - Refusals

    func policyError(_ text: String) throws -> SecurityStepsError {
        let path = try temporaryFile(text, "policy.json")
        let error = try #require(throws: SecurityStepsError.self) { try StepPolicy.load(file: path) }
        #expect(error.file == path)
        #expect(error.description.hasPrefix(path))
        return error
    }

    @Test func policyRefusals() throws {
        let cases: [(String, Int, String)] = [
            ("[]", 1, "must be one JSON object"),
            ("\"unlock\"", 1, "must be one JSON object"),
            ("{\n\"unlock\":\"trustedPhone\"}", 2, "command \"unlock\" must map to an array"),
            ("{\"unlock\":[\"a\",\n 1]}", 2, "must map to an array of non-empty step name strings"),
            ("{\"unlock\":[[\"a\"]]}", 1, "must map to an array"),
            ("{\"unlock\":null}", 1, "must map to an array"),
            ("{\"unlock\":[\"a\",\n\n\"\"]}", 3, "a step name must be a non-empty string"),
            ("{\"unlock\":[\"a\"],\n\"unlock\":[\"b\"]}", 2, "duplicate member \"unlock\""),
            ("{\"unlock\":[\"a\",\"b\",\n\"a\"]}", 2, "step \"a\" is listed twice"),
            ("{\"unlock\":[\"a\"]} x", 1, "unexpected byte"),
            ("{\"unlock\":[\"a\"],}", 1, "expected a member name"),
            ("", 1, "must be one JSON object"),
        ]
        for (text, line, words) in cases {
            let error = try policyError(text)
            #expect(error.line == line, "\(text)")
            #expect(error.message.contains(words), "\(text): \(error.message)")
        }
        let badUTF8 = try temporaryFile("", "bad.json")
        try Data([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x5B, 0x5D, 0x7D]).write(to: URL(fileURLWithPath: badUTF8))
        let error = try #require(throws: SecurityStepsError.self) { try StepPolicy.load(file: badUTF8) }
        #expect(error.file == badUTF8 && error.line == 1)
        let missing = try #require(throws: SecurityStepsError.self) {
            try StepPolicy.load(file: "/nonexistent/policy.json")
        }
        #expect(missing.description.contains("/nonexistent/policy.json") && missing.line == nil)
        #expect(throws: SecurityStepsError.self) { try StepPolicy(rules: [("unlock", ["a", "a"])]) }
        #expect(throws: SecurityStepsError.self) { try StepPolicy(rules: [("unlock", [""])]) }
    }

    @Test func deviceStepsRefusalsNameTheFileAndLine() throws {
        let good = #"{"sub":"p","done":["a"]}"#
        let cases: [(String, String)] = [
            (#"{"sub":"p","aud":"c","done":["a"],"extra":1}"#, "unknown member \"extra\""),
            (#"{"sub":1,"done":["a"]}"#, "\"sub\" must be a string"),
            (#"{"sub":"p","aud":["c"],"done":["a"]}"#, "\"aud\" must be a string"),
            (#"{"sub":"p","done":"a"}"#, "\"done\" must be an array"),
            (#"{"sub":"p","done":["a",2]}"#, "\"done\" must be an array of non-empty step name strings"),
            (#"{"sub":"p","done":["a",""]}"#, "non-empty"),
            (#"{"aud":"c","done":["a"]}"#, "missing \"sub\""),
            (#"{"sub":"p","aud":"c"}"#, "missing \"done\""),
            (#"["p"]"#, "must be a JSON object"),
            (#"{"sub":"p","sub":"q","done":[]}"#, "duplicate member \"sub\""),
            (#"{"sub":"p","done":["a"]"#, "unexpected end"),
        ]
        for (bad, words) in cases {
            let path = try temporaryFile("\(good)\n\n\(good)\n\(bad)\n\(good)\n", "steps.jsonl")
            let error = try #require(throws: SecurityStepsError.self) {
                try DeviceSteps.load(files: [try temporaryFile(good, "ok.jsonl"), path])
            }
            #expect(error.file == path, "\(bad)")
            #expect(error.line == 4, "\(bad)")
            #expect(error.message.contains(words), "\(bad): \(error.message)")
            #expect(error.description.hasPrefix("\(path):4: "))
        }
        let missing = try #require(throws: SecurityStepsError.self) {
            try DeviceSteps.load(files: ["/nonexistent/steps.jsonl"])
        }
        #expect(missing.file == "/nonexistent/steps.jsonl" && missing.line == nil)
        #expect(throws: SecurityStepsError.self) { try DeviceSteps(entries: [DeviceStepEntry(sub: "p", done: [""])]) }
    }

    // MARK: - Against a naive model

    struct Key: Hashable {
        var sub: String
        var aud: String?
    }

    /// Random entries, policies and queries against a dictionary of sets; seed 3 uses 90 step
    /// names, so that some ids live in the overflow set.
    @Test(arguments: [1, 2, 3] as [UInt64]) func agreesWithANaiveModel(seed: UInt64) throws {
        var random = SplitMix64(seed)
        let stepPool = (0..<(seed == 3 ? 90 : 8)).map { "step\($0)" }
        let devices = (0..<200).map { "device-\($0)" }
        let objects = (0..<8).map { "car-\($0)" }
        var model: [Key: Set<String>] = [:]
        var lines: [String] = []
        for _ in 0..<4000 {
            let sub = devices.randomElement(using: &random)!
            let aud = Int.random(in: 0..<10, using: &random) < 3 ? nil : objects.randomElement(using: &random)!
            let done = (0..<Int.random(in: 0...(seed == 3 ? 12 : 3), using: &random)).map { _ in
                stepPool.randomElement(using: &random)!
            }
            model[Key(sub: sub, aud: aud), default: []].formUnion(done)
            var members = ["\"sub\":\"\(sub)\"", "\"done\":[\(done.map { "\"\($0)\"" }.joined(separator: ","))]"]
            if let aud { members.append("\"aud\":\"\(aud)\"") }
            lines.append("{" + members.shuffled(using: &random).joined(separator: ",") + "}")
            if Int.random(in: 0..<50, using: &random) == 0 { lines.append("  ") }
        }
        let policySteps = Array(stepPool.shuffled(using: &random).prefix(12))
        var rules: [(command: String, steps: [String])] = []
        for command in ["c0", "c1", "c2", "c3", "c4", "*"]
        where Int.random(in: 0..<6, using: &random) > 0 || command == "c0" {
            rules.append(
                (command, Array(policySteps.shuffled(using: &random).prefix(Int.random(in: 0...4, using: &random)))))
        }
        let checker = SecuritySteps(
            policy: try StepPolicy(rules: rules), done: try DeviceSteps.parse(Array(lines.joined(separator: "\n").utf8))
        )
        #expect(checker.done.count == 4000)
        #expect(checker.done.keyCount == model.count)
        #expect(seed != 3 || checker.done.stepNames.count > 64)

        func reference(_ command: String, _ sub: String, _ queried: [String]) -> MissingStep? {
            let rule = rules.first { $0.command == command } ?? rules.first { $0.command == "*" }
            for (index, object) in queried.enumerated() {
                let done = model[Key(sub: sub, aud: nil), default: []].union(
                    model[Key(sub: sub, aud: object), default: []])
                if let step = rule?.steps.first(where: { !done.contains($0) }) {
                    return MissingStep(step: step, objectIndex: index)
                }
            }
            return nil
        }
        var answers = (satisfied: 0, missing: 0)
        for _ in 0..<4000 {
            let command = ["c0", "c1", "c2", "c3", "c4", "c5", "*"].randomElement(using: &random)!
            let sub = Int.random(in: 0..<20, using: &random) == 0 ? "stranger" : devices.randomElement(using: &random)!
            let queried = (0..<Int.random(in: 1...3, using: &random)).map { _ in
                (objects + ["boat"]).randomElement(using: &random)!
            }
            let expected = reference(command, sub, queried)
            #expect(
                checker.firstMissing(command: command, device: sub, objects: queried) == expected,
                "\(command) \(sub) \(queried)")
            if expected == nil { answers.satisfied += 1 } else { answers.missing += 1 }
        }
        // Both answers must be common, or the comparison proves little.
        #expect(answers.satisfied > 200 && answers.missing > 200, "\(answers)")
    }
}
