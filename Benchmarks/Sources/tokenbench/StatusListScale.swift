import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenTools
import TokenVerifier

/// The status-list scenario (spec §4c at scale): a Status List Token of `--status-list-entries`
/// entries (1 bit each, 100 million by default: 12.5 MB inflated) is written, loaded the way
/// `verify` loads it (timed, with the bytes it holds), and the same Ed25519 tokens are streamed
/// with and without a `status` claim naming an entry of it, in interleaved runs, by CPU time.
extension Bench {
    func statusListScale() throws -> Report.Scenario {
        let entries = settings.statusListEntries
        var withStatus = TokenSetSpec(count: settings.count, seed: settings.seed)
        withStatus.es256Share = 0
        withStatus.statusShare = 1
        let plain = ed25519SetForStatusList
        let claimed = try SetOnDisk.generate(
            withStatus, name: "status-list", into: workDirectory + "/set-status-list",
            threads: settings.threads)
        precondition(settings.count <= entries, "every token's index (its line) must be inside the list")

        // Every 1,000th entry past the tokens' is INVALID, so the list is not all zeros.
        var statuses: [Int: UInt8] = [:]
        for index in stride(from: settings.count + 7, to: entries, by: 1000) { statuses[index] = 1 }
        let keys = withStatus.signingKeys()
        let buildStart = Date()
        let token = try StatusListIssuer(key: keys.ed25519).sign(
            uri: withStatus.statusListURI(.jws), bits: 1, size: entries, statuses: statuses, format: .jws,
            issuedAt: Int64(withStatus.checkTime) - 3600)
        let buildSeconds = Date().timeIntervalSince(buildStart)
        let path = workDirectory + "/status-list.jwt"
        try Data(token.utf8).write(to: URL(fileURLWithPath: path))
        let fileBytes = token.utf8.count

        let keySet = try KeySet.parse(Array(claimed.keySet.utf8)).0
        let residentBefore = Resident.currentBytes()
        let loadStart = Date()
        let list = try StatusListToken.load(
            file: path, keys: keySet, options: VerificationOptions(checkTime: withStatus.checkTime))
        let loadSeconds = Date().timeIntervalSince(loadStart)
        let resident = Resident.currentBytes() - residentBefore
        try? FileManager.default.removeItem(atPath: path)
        let inflated = (entries + 7) / 8
        let held = list.entryBytes + list.signedBytes

        func verifier() -> Verifier {
            let verifier = Verifier(
                keys: keySet, statusLists: StatusListSet(lists: [list]),
                options: VerificationOptions(checkTime: withStatus.checkTime))
            verifier.waitForKeyTables()
            return verifier
        }
        let (plainCPU, claimedCPU, claimedRates) = try interleavedStatusRuns(plain: plain, claimed: claimed, verifier)
        let ratios = zip(claimedCPU, plainCPU).map { $0 / $1 }.sorted()
        var result = Report.Scenario(
            name: Scenario.statusList.rawValue, tokens: settings.count, threads: settings.threads,
            throughput: claimedRates.sorted()[claimedRates.count / 2])
        result.notes["entries"] = Double(entries)
        result.notes["fileBytes"] = Double(fileBytes)
        result.notes["buildSeconds"] = buildSeconds
        result.notes["loadSeconds"] = loadSeconds
        result.notes["inflatedBytes"] = Double(inflated)
        result.notes["heldBytes"] = Double(held)
        result.notes["heldOverInflated"] = Double(held) / Double(inflated)
        result.notes["residentOverInflated"] = Double(resident) / Double(inflated)
        result.notes["cpuPerTokenWithStatusOverWithout"] = ratios[ratios.count / 2]
        result.notes["cpuRatioMin"] = ratios.first!
        result.notes["cpuRatioMax"] = ratios.last!
        withExtendedLifetime(list) {}
        return result
    }

    /// One interleaved run: plain, claimed, plain, claimed, … by CPU seconds per token (every
    /// verdict checked), with the claimed runs' rates.
    private func interleavedStatusRuns(
        plain: SetOnDisk, claimed: SetOnDisk, _ verifier: () -> Verifier
    ) throws -> (plain: [Double], claimed: [Double], claimedRates: [Double]) {
        var plainCPU: [Double] = []
        var claimedCPU: [Double] = []
        var claimedRates: [Double] = []
        for _ in 0..<max(3, settings.repetitions) {
            for (set, isClaimed) in [(plain, false), (claimed, true)] {
                let output = workDirectory + "/status-list.answers.jsonl"
                let cpu = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
                let run = StreamRunner.throughput(
                    verifier: verifier(), input: set.requests, output: output, threads: settings.threads)
                let perToken = (cpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) / Double(max(1, run.lines))
                let outcome = LineFile.compareVerdicts(answers: output, expected: set.expected)
                try? FileManager.default.removeItem(atPath: output)
                guard outcome.mismatches == 0, outcome.answers == outcome.expected else {
                    throw ValidationError("status-list: \(outcome.mismatches) unexpected verdicts")
                }
                if isClaimed {
                    claimedCPU.append(perToken)
                    claimedRates.append(run.rate)
                } else {
                    plainCPU.append(perToken)
                }
            }
        }
        return (plainCPU, claimedCPU, claimedRates)
    }
}
