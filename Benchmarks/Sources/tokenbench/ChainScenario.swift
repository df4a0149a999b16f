import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenVerifier

/// The chain scenario (spec §3b "Cost"): tokens (half Ed25519, half ES256) carrying a
/// 3-certificate chain (leaf + intermediate in the header, the root an anchor; `--chain-leaves`
/// leaves per algorithm, so a few hundred distinct chains, repeated) and their signing key's
/// `kid`, streamed in interleaved runs and compared by CPU seconds per token, signature cache off
/// (every signature verified), each measured on a verifier's second pass over its set (every
/// chain cached, every key's tables built):
/// - `cpuPerTokenChainOverKid`: the set verified by its chains (with the anchors, default cache of
///   4096 slots) over the same set verified by `kid` (without anchors): the same bytes parsed and
///   hashed, so the ratio is what finding the key in a cached chain costs over a `kid` lookup;
/// - `cpuPerTokenChainOverShortKid`: the chained set over a set of the same claims signed by `kid`
///   alone (tokens 4.5 times shorter: the header's chain is parsed and hashed with the rest);
/// - `instructionsChainOverKid` (with valgrind): the same comparison in instructions per token,
///   counted by callgrind on a fixed set (``InstructionCount/chainAgainstKid(workDirectory:)``);
/// - `firstSightingMicroseconds`: the CPU a validation adds, from runs whose cache has 2 slots
///   (nearly every token validates its chain) over the set's first 600 lines, less the cached
///   runs, per token;
/// - `residentGrowthMiB…`: resident memory gained while streaming a set whose every few tokens
///   bring a new chain (`--chain-distinct-leaves` per algorithm) through the default cache,
///   against the few-hundred-chain set: the cache's slots bound it, not the chains seen.
extension Bench {
    func chainCost() throws -> Report.Scenario {
        func spec(chainShare: Double, leaves: Int) -> TokenSetSpec {
            var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
            spec.es256Share = 0.5
            spec.chainShare = chainShare
            spec.chainLeaves = leaves
            spec.chainKeyIDs = true
            return spec
        }
        let plain = try SetOnDisk.generate(
            spec(chainShare: 0, leaves: 1), name: "chain-kid", into: workDirectory + "/set-chain-kid",
            threads: settings.threads)
        let chained = try SetOnDisk.generate(
            spec(chainShare: 1, leaves: settings.chainLeaves), name: "chain", into: workDirectory + "/set-chain",
            threads: settings.threads)
        let anchorsPath = chained.directory + "/" + TokenSetFiles.anchorsName
        let anchors = try TrustAnchors.load([(anchorsPath, .integration)])
        let keySet = try KeySet.parse(Array(plain.keySet.utf8)).0
        func verifier(anchors: TrustAnchors?, cacheEntries: Int = 4096) -> Verifier {
            let verifier = Verifier(
                keys: keySet, trustAnchors: anchors,
                options: VerificationOptions(
                    checkTime: 1_800_000_000, signatureCacheSlots: 0, chainCacheEntries: cacheEntries))
            verifier.waitForKeyTables()
            return verifier
        }
        let prefix = try chained.prefix(600, into: workDirectory + "/set-chain-prefix")
        defer { try? FileManager.default.removeItem(atPath: prefix.directory) }
        var runs = ChainRuns()
        for _ in 0..<max(3, settings.repetitions) {
            runs.shortKid.append(try cpuPerToken(plain, verifier(anchors: nil), warmed: true).cpu)
            runs.kid.append(try cpuPerToken(chained, verifier(anchors: nil), warmed: true).cpu)
            let cached = try cpuPerToken(chained, verifier(anchors: anchors), warmed: true)
            runs.cached.append(cached.cpu)
            runs.cachedRates.append(cached.rate)
            runs.miss.append(try cpuPerToken(prefix, verifier(anchors: anchors, cacheEntries: 2)).cpu)
        }
        var result = Report.Scenario(
            name: Scenario.chain.rawValue, tokens: settings.count, threads: settings.threads,
            throughput: ChainRuns.median(runs.cachedRates))
        result.notes["distinctChains"] = Double(2 * settings.chainLeaves)
        runs.note(into: &result)
        if InstructionCount.valgrindVersion() != nil {
            let instructions = try InstructionCount.chainAgainstKid(workDirectory: workDirectory)
            result.notes["instructionsPerTokenKid"] = instructions.kid
            result.notes["instructionsPerTokenChain"] = instructions.chain
            result.notes["instructionsChainOverKid"] = instructions.chain / instructions.kid
        }
        try? FileManager.default.removeItem(atPath: plain.directory)
        if settings.chainDistinctLeaves > 0 {
            try distinctChainsMemory(into: &result, spec: spec(chainShare: 1, leaves: settings.chainDistinctLeaves)) {
                verifier(anchors: $0)
            }
        }
        return result
    }

    /// Resident memory gained by a fresh verifier streaming `chained` (few chains) and then a set
    /// with `spec`'s many distinct chains, each with the default chain cache.
    private func distinctChainsMemory(
        into result: inout Report.Scenario, spec: TokenSetSpec, verifier: (TrustAnchors) -> Verifier
    ) throws {
        let many = try SetOnDisk.generate(
            spec, name: "chain-distinct", into: workDirectory + "/set-chain-distinct", threads: settings.threads)
        defer { try? FileManager.default.removeItem(atPath: many.directory) }
        let anchors = try TrustAnchors.load([(many.directory + "/" + TokenSetFiles.anchorsName, .integration)])
        let before = Resident.currentBytes()
        let run = try cpuPerToken(many, verifier(anchors))
        let grown = Resident.currentBytes() - before
        result.notes["distinctChainsStreamed"] = Double(min(many.lines, 2 * spec.chainLeaves))
        result.notes["distinctChainsMicrosecondsPerToken"] = run.cpu * 1e6
        result.notes["residentGrowthMiBDistinctChains"] = Double(grown) / 1_048_576
        result.notes["chainCacheSlots"] = 4096
    }

    /// CPU seconds per token (all threads) of one streamed run, its rate, every verdict checked;
    /// `warmed`: measured on a second run of the same verifier (its chain cache filled by the first,
    /// the key tables the first asked for built).
    private func cpuPerToken(
        _ set: SetOnDisk, _ verifier: Verifier, warmed: Bool = false
    ) throws -> (cpu: Double, rate: Double) {
        if warmed {
            _ = try cpuPerToken(set, verifier)
            verifier.waitForKeyTables()  // the tables the first pass asked for (chains' leaf keys) are built
        }
        let output = workDirectory + "/chain.answers.jsonl"
        let cpu = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
        let run = StreamRunner.throughput(
            verifier: verifier, input: set.requests, output: output, threads: settings.threads)
        let perToken = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) / Double(max(1, run.lines))
        let outcome = LineFile.compareVerdicts(answers: output, expected: set.expected)
        try? FileManager.default.removeItem(atPath: output)
        guard outcome.mismatches == 0, outcome.answers == outcome.expected else {
            throw ValidationError("chain: \(outcome.mismatches) unexpected verdicts")
        }
        return (perToken, run.rate)
    }
}

/// CPU seconds per token of the chain scenario's interleaved runs.
private struct ChainRuns {
    var shortKid: [Double] = []
    var kid: [Double] = []
    var cached: [Double] = []
    var miss: [Double] = []
    var cachedRates: [Double] = []

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

    /// The ratios of paired runs (median, min, max) and the medians per token, as notes.
    func note(into result: inout Report.Scenario) {
        let ratios = zip(cached, kid).map { $0 / $1 }.sorted()
        let shortRatios = zip(cached, shortKid).map { $0 / $1 }.sorted()
        result.notes["cpuPerTokenChainOverKid"] = ratios[ratios.count / 2]
        result.notes["cpuRatioMin"] = ratios.first!
        result.notes["cpuRatioMax"] = ratios.last!
        result.notes["cpuPerTokenChainOverShortKid"] = shortRatios[shortRatios.count / 2]
        result.notes["kidMicrosecondsPerToken"] = Self.median(kid) * 1e6
        result.notes["shortKidMicrosecondsPerToken"] = Self.median(shortKid) * 1e6
        result.notes["chainMicrosecondsPerToken"] = Self.median(cached) * 1e6
        result.notes["firstSightingMicroseconds"] = (Self.median(miss) - Self.median(cached)) * 1e6
    }
}

extension SetOnDisk {
    /// The set's first `count` requests and expected verdicts, as a set in `directory`.
    func prefix(_ count: Int, into directory: String) throws -> SetOnDisk {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let lines = min(count, self.lines)
        try LineFile.repeatPrefix(
            sources: [requests, expected], targets: [directory + "/requests.jsonl", directory + "/expected.jsonl"],
            distinct: lines, rounds: 1, total: lines)
        return SetOnDisk(directory: directory, lines: lines, keySet: keySet)
    }
}

extension InstructionCount {
    /// Instructions per token (tokenverify's and the signature libraries' together, as
    /// ``perToken(_:executable:directory:sizes:requests:childArguments:)`` counts them) of one
    /// fixed set of chained tokens that also carry their key's `kid` (8 distinct chains), verified
    /// by `kid` (no anchors) and by their cached chains (anchors), each run after a warm pass over
    /// the first 200 lines (every chain validated, every key's table built): the deterministic
    /// side of the chain scenario's CPU ratio.
    static func chainAgainstKid(workDirectory: String) throws -> (kid: Double, chain: Double) {
        var spec = TokenSetSpec(count: sizes[1], seed: 7)
        spec.es256Share = 0.5
        spec.chainShare = 1
        spec.chainLeaves = 4
        spec.chainKeyIDs = true
        let set = TokenSetGenerator.generate(spec)
        let directory = workDirectory + "/instructions-chain"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = ["keys.jwks": set.keySet, "revocations.jsonl": "", "anchors.pem": set.anchors ?? ""]
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name)) }
        let requests = try sizes.map { size in
            let path = directory + "/requests-\(size).jsonl"
            try Data((set.requests.prefix(size).joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: path))
            return path
        }
        let executable = try strippedExecutable(workDirectory: workDirectory)
        func count(anchors: Bool) throws -> Double {
            let figures = try perToken(
                anchors ? "chain" : "chain-by-kid", executable: executable, directory: directory, sizes: sizes,
                requests: requests
            ) {
                [
                    "--stream-file", $0, "--keys-file", directory + "/keys.jwks", "--revocations-file",
                    directory + "/revocations.jsonl", "--warm-file", requests[0],
                ]
                    + (anchors ? ["--anchors-file", directory + "/anchors.pem"] : [])
            }
            return figures.perToken + figures.signatureLibraryPerToken
        }
        return (try count(anchors: false), try count(anchors: true))
    }
}
