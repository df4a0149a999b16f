import Foundation
import TestSupport
import Testing
import TokenConcurrency
import TokenGen
import TokenTools

@testable import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// The live state of a running `verify` (docs/spec.md §3 key rotation, §4, §4b): key, revocation,
/// step-policy and device-steps files reloaded by rename or SIGHUP, swapped in as one snapshot,
/// broken files kept out with the old state serving.
@Suite struct LiveReloadCommandTests {
    func jwks(_ keys: [SigningKey]) -> String { "{\"keys\":[" + keys.map(\.publicJWK).joined(separator: ",") + "]}" }

    @Test func keysRotateByRenameAndABrokenSetIsKeptOut() throws {
        let space = try Workspace()
        let retiring = space.ed  // ed-1 leaves the set
        let oldES = space.es  // es-1 gets new material
        let newES = SigningKey.generate(algorithm: .es256, keyID: "es-1")
        let arriving = SigningKey.generate(algorithm: .ed25519, keyID: "ed-2")
        let live = try LiveTool(space.verifyArguments + ["--reload-interval", "0.05"])
        let oldESToken = space.token(oldES)
        for token in [space.token(retiring), oldESToken] {
            live.send(token + "\n")
            #expect(live.readLine()?.contains("\"valid\":true") == true)  // verified, and cached
        }
        live.send(space.token(arriving) + "\n")
        #expect(live.readLine()?.contains("unknown_key") == true)
        try space.replace("keys.jwks", jwks([newES, arriving, space.prod]))
        #expect(live.ask(space.token(arriving), until: "\"valid\":true"), "a new kid is valid within a reload interval")
        live.send(space.token(retiring) + "\n" + oldESToken + "\n" + space.token(newES) + "\n")
        #expect(live.readLine()?.contains("unknown_key") == true, "a retired kid is unknown_key")
        #expect(
            live.readLine()?.contains("bad_signature") == true, "changed key material is never valid from the cache")
        #expect(live.readLine()?.contains("\"valid\":true") == true)
        // A key set that fails a start-up check keeps the keys in force, and says why.
        try space.replace("keys.jwks", "{\"keys\":[\(arriving.publicJWK),\(arriving.publicJWK)]}")
        #expect(live.waitForErrorLine(containing: "keys not reloaded (file changed)") != nil, "the broken set is read")
        live.send(space.token(newES) + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)
        live.closeInput()
        let end = live.finish()
        #expect(end.status == 0, "the tool's stderr ends: \(end.stderr.suffix(4000))")
        #expect(end.stderr.contains("keys reloaded (file changed): 3 keys"))
        #expect(
            end.stderr.contains(
                "keys not reloaded (file changed), the previous key set stays in force: \(space.path("keys.jwks")): key \"ed-2\": duplicate kid"
            ), "\(end.stderr)")
    }

    @Test func keysRotateOnSIGHUP() throws {
        let space = try Workspace()
        let arriving = SigningKey.generate(algorithm: .ed25519, keyID: "ed-2")
        let live = try LiveTool(space.verifyArguments + ["--reload-interval", "0"])
        live.send(space.token() + "\n")
        #expect(live.readLine()?.contains("\"valid\":true") == true)  // started with the first key set
        let seen = try LiveTool.changeSeenByAPollingWitness(
            space.verifyArguments, probe: space.token(), reloaded: "keys reloaded (file changed)"
        ) { try space.replace("keys.jwks", jwks([arriving])) }
        #expect(seen, "a polling verifier on the same files brings the new set in")
        live.send(space.token(arriving) + "\n")
        #expect(live.readLine()?.contains("unknown_key") == true, "not polled")
        kill(live.process.processIdentifier, SIGHUP)
        #expect(live.ask(space.token(arriving), until: "\"valid\":true"))
        live.send(space.token() + "\n")
        #expect(live.readLine()?.contains("unknown_key") == true)
        live.closeInput()
        #expect(live.finish().stderr.contains("keys reloaded (SIGHUP): 1 key"))
    }

    @Test(arguments: [
        (#"["unlock"]"#, "must be one JSON object"),
        (#"{"unlock":"trustedPhone"}"#, "unlock"),
        (#"{"unlock":["trustedPhone",""]}"#, "unlock"),
        (#"{"unlock":["a"],"unlock":["b"]}"#, "duplicate"),
    ])
    func aBadStepPolicyStopsStartUp(_ policy: String, _ mention: String) throws {
        let space = try Workspace()
        let file = try space.write("policy.json", policy)
        let result = try Tool.run(space.verifyArguments + ["--step-policy", file], input: space.token() + "\n")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty, "nothing is read")
        #expect(result.stderr.contains(file) && result.stderr.contains(mention), "\(result.stderr)")
    }

    @Test func aBadDeviceStepsLineStopsStartUpNamingTheLine() throws {
        let space = try Workspace()
        let policy = try space.write("policy.json", #"{"*":["trustedPhone"]}"#)
        let steps = try space.write(
            "steps.jsonl",
            "{\"sub\":\"phone-1\",\"done\":[\"trustedPhone\"]}\n\n{\"sub\":\"phone-2\",\"done\":\"trustedPhone\"}\n")
        let result = try Tool.run(
            space.verifyArguments + ["--step-policy", policy, "--device-steps", steps], input: space.token() + "\n")
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(steps):3:"), "\(result.stderr)")
    }

    @Test func stepsFollowTheirFiles() throws {
        let space = try Workspace()
        let policy = try space.write(
            "policy.json", #"{"unlock":["trustedPhone","deviceActivation"],"*":["trustedPhone"]}"#)
        let steps = try space.write("steps.jsonl", #"{"sub":"phone-1","done":["trustedPhone"]}"# + "\n")
        let live = try LiveTool(
            space.verifyArguments + ["--step-policy", policy, "--device-steps", steps, "--reload-interval", "0.05"])
        let unlock = #"{"token":"\#(space.token())","command":"unlock"}"#
        live.send(unlock + "\n" + #"{"token":"\#(space.token())","command":"lock"}"# + "\n" + space.token() + "\n")
        #expect(
            live.readLine()?.contains(
                #""detail":"command \"unlock\" needs step \"deviceActivation\" of device \"phone-1\" for object \"car-1\"""#
            ) == true)
        #expect(live.readLine()?.contains("\"valid\":true") == true, "the \"*\" rule: trustedPhone is done")
        #expect(live.readLine()?.contains("\"valid\":true") == true, "a bare token is not checked for steps")
        try space.replace(
            "steps.jsonl", #"{"sub":"phone-1","aud":"car-1","done":["trustedPhone","deviceActivation"]}"# + "\n")
        #expect(live.ask(unlock, until: "\"valid\":true"))
        try space.replace("policy.json", #"{"unlock":["trustedPhone","deviceActivation","mediumCarKey"]}"#)
        #expect(live.ask(unlock, until: #"needs step \"mediumCarKey\""#))
        try space.replace("policy.json", #"{"unlock":"#)
        #expect(live.waitForErrorLine(containing: "step policy not reloaded (file changed)") != nil)
        live.send(unlock + "\n")
        #expect(live.readLine()?.contains("mediumCarKey") == true, "a broken policy keeps the old one")
        live.closeInput()
        let end = live.finish()
        #expect(
            end.stderr.contains(
                "step policy not reloaded (file changed), the previous policy stays in force: \(policy)"),
            "\(end.stderr)")
    }
}

/// Two complete live states, A and B, swapped back and forth under a running stream (all four
/// files renamed into place, then SIGHUP): every answer must be the one state A or state B gives
/// that line, computed in process with the library. The probes are chosen so that a mixture
/// answers differently: keys of one state with revocations of the other make a revoked token
/// valid; a policy with the other state's device steps makes a valid request `step_required`.
/// And snapshots are taken in line order (docs/spec.md §4): the answers change state at most once a swap.
@Suite struct LiveStateSwapTests {
    struct State {
        let keys: [SigningKey]
        let revocations: String
        let policy: String
        let steps: String
    }

    @Test func everyAnswerComesFromOneWholeSnapshot() throws {
        let space = try Workspace()
        let edA = space.ed
        let edB = SigningKey.generate(algorithm: .ed25519, keyID: "ed-1")
        let es = space.es
        let states = [
            State(
                keys: [edA, es], revocations: #"{"jti":"ra"}"#, policy: #"{"unlock":["s1"]}"#,
                steps: #"{"sub":"phone-1","done":["s1"]}"#),
            State(
                keys: [edB, es], revocations: #"{"jti":"rb"}"#, policy: #"{"unlock":["s2"]}"#,
                steps: #"{"sub":"phone-1","done":["s2"]}"#),
        ]
        func install(_ state: State) throws {
            try space.replace("keys.jwks", "{\"keys\":[" + state.keys.map(\.publicJWK).joined(separator: ",") + "]}")
            try space.replace("revocations.jsonl", state.revocations + "\n")
            try space.replace("policy.json", state.policy)
            try space.replace("steps.jsonl", state.steps + "\n")
        }
        // Each probe: a request line (id set later) and its answer under A and under B.
        let tokens = [
            space.token(edA), space.token(edB),
            space.token(edA, claims: Workspace.claims(["jti": #""ra""#])),
            space.token(edB, claims: Workspace.claims(["jti": #""rb""#])),
            space.token(es), space.token(es, claims: Workspace.claims(["jti": #""ra""#])),
            space.token(es, claims: Workspace.claims(["jti": #""rb""#])),
        ]
        let expected: [[Reason?]] = try states.map { state in
            let keys = try KeySet.parse(
                Array(("{\"keys\":[" + state.keys.map(\.publicJWK).joined(separator: ",") + "]}").utf8)
            ).0
            let verifier = Verifier(
                keys: keys, revocations: try RevocationList.parse(Array(state.revocations.utf8)),
                steps: SecuritySteps(
                    policy: try StepPolicy.parse(Array(state.policy.utf8)),
                    done: try DeviceSteps.parse(Array(state.steps.utf8))),
                options: VerificationOptions(checkTime: 1_800_000_000))
            return tokens.map { verifier.verify(VerificationRequest(token: $0, command: "unlock")).reason }
        }
        #expect(expected[0] == [nil, .badSignature, .revokedToken, .badSignature, nil, .revokedToken, nil])
        #expect(expected[1] == [.badSignature, nil, .badSignature, .revokedToken, nil, nil, .revokedToken])

        try install(states[0])
        let live = try LiveTool([
            "verify", "--keys", space.path("keys.jwks"), "--revocations", space.path("revocations.jsonl"),
            "--step-policy", space.path("policy.json"), "--device-steps", space.path("steps.jsonl"),
            "--at", Workspace.checkTime, "--reload-interval", "0", "--threads", "2",
        ])
        var generator = SplitMix64(UInt64.random(in: 0...UInt64.max))
        let lines = (0..<30_000).map { index -> (probe: Int, text: String) in
            let probe = Int(generator.next() % UInt64(tokens.count))
            return (probe, #"{"id":\#(index),"token":"\#(tokens[probe])","command":"unlock"}"#)
        }
        // The feeder sends about six batches of 500 lines per swap (waiting up to 200 ms a batch
        // for the next swap), so that the stream does not outrun the reloads however fast or slow
        // the machine (or the build) is, and never stalls.
        let swapsDone = LockedBox(0)
        let feeder = Thread {
            for (batch, start) in stride(from: 0, to: lines.count, by: 500).enumerated() {
                _ = swapsDone.wait(within: 0.2) { $0 >= batch / 6 }
                live.send(lines[start..<min(start + 500, lines.count)].map { $0.text + "\n" }.joined())
            }
        }
        feeder.start()
        func reason(of answer: String) -> Reason? {
            answer.contains("\"valid\":true")
                ? nil
                : Reason(rawValue: String(answer.split(separator: "\"reason\":\"")[1].prefix { $0 != "\"" }))
        }
        var answers: [String] = []
        var swaps = 0
        // The next generation of files is written only once the reload of the last one has ended
        // (its last group, device steps, is logged after the swap): files renamed while a reload
        // is reading them would be a mixture on disk, which no verifier could tell from a
        // consistent set. An answer only the new state gives is no such proof: states alternate,
        // so an answer against the state before last (a later line answered against an older
        // snapshot) looks the same, and a reload may take long at its low priority.
        var reloads = 0
        var stderrLinesRead = 0
        while answers.count < lines.count {
            for line in live.errorLines(from: stderrLinesRead) {
                stderrLinesRead += 1
                if line.contains("device steps reloaded (SIGHUP)") { reloads += 1 }
                if line.contains("not reloaded") { Issue.record("a consistent set of files failed to load: \(line)") }
            }
            if reloads == swaps, answers.count > swaps * 500 {
                swaps += 1
                try install(states[swaps % 2])
                kill(live.process.processIdentifier, SIGHUP)
                swapsDone.set(swaps)
            }
            guard let line = live.readLine(timeout: 20) else { break }
            answers.append(line)
        }
        live.closeInput()
        _ = live.finish()
        #expect(answers.count == lines.count, "one answer per line")
        var fromA = 0
        var fromB = 0
        // The state of the last answer only one state gives, and how often that changed.
        var lastState = 0
        var changes: [Int] = []
        for (index, answer) in answers.enumerated() where index < lines.count {
            #expect(answer.hasPrefix("{\"line\":\(index + 1),\"id\":\(index),"))
            let probe = lines[index].probe
            let a = reason(of: answer) == expected[0][probe]
            let b = reason(of: answer) == expected[1][probe]
            #expect(a || b, "line \(index + 1), probe \(probe): \(answer)")
            if a && !b { fromA += 1 }
            if b && !a { fromB += 1 }
            if a != b, lastState != (a ? 0 : 1) {
                lastState = a ? 0 : 1
                changes.append(index + 1)
            }
        }
        #expect(changes.count <= swaps, "\(swaps) swaps, but the state changed at lines \(changes.prefix(20))")
        #expect(swaps >= 3, "the files were swapped \(swaps) times")
        #expect(fromA > 0 && fromB > 0, "both states were seen (A only: \(fromA), B only: \(fromB))")
    }
}
