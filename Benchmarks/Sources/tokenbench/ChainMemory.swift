import ArgumentParser
import Foundation
import TokenBenchReport
import TokenVerifier

/// The chain-memory scenario (spec §3b "Cost", issue 46: memory with 1,000,000 distinct chains
/// bounded by the chain cache's size): `--chains` tokens, each signed by a leaf key of its own
/// under a leaf certificate of its own (``ChainMemoryIssuer``: half Ed25519, half P-256; half JWS
/// `x5c`, half CWT `x5chain`; leaf + intermediate in the header, the root the anchor), made in
/// batches of `--chain-batch` on the bench's threads and verified through one `Verifier` (no key
/// set, default options but `--chain-cache-entries`) with `verify([VerificationRequest])`. No more
/// than one batch is held; every verdict must be valid, and per batch one token with another
/// token's signature must be refused (else the run fails).
///
/// Resident memory (VmRSS) is sampled after the first (warm-up) batch, then every 100,000 chains
/// (every tenth of the run when shorter) and at the end. Notes: `chainsStreamed`,
/// `chainCacheSlots`, `residentMiBFirst`, `residentGrowthMiBToMax` and `residentGrowthMiBToLast`
/// (from the first sample), `residentGrowthMiBAfter<N>` per sample, and the CPU µs per chain
/// (after the warm-up batch, all threads) of making its key, certificate and token
/// (`generateMicrosecondsPerChain`) and of verifying it (`verifyMicrosecondsPerChain`).
///
///     tokenbench --scenario chain-memory --chains 1000000 --format table
///     tokenbench --scenario chain-memory --chains 300000 --chain-cache-entries 65536
extension Bench {
    func chainMemory() throws -> Report.Scenario {
        let checkTime: Int64 = 1_800_000_000
        let issuer = try ChainMemoryIssuer(seed: settings.seed, checkTime: checkTime)
        let anchors = try TrustAnchors.parse(
            pem: Array(issuer.root.pem.utf8), environment: .integration, file: "chain-memory")
        let verifier = Verifier(
            keys: try KeySet(keys: []), trustAnchors: anchors,
            options: VerificationOptions(
                checkTime: Double(checkTime), chainCacheEntries: settings.chainCacheEntries))
        let total = settings.chains
        let batch = min(settings.chainBatch, total)
        let sampleEvery = max(batch, min(100_000, total / 10) / batch * batch)
        var run = ChainMemoryRun()
        let started = Date()
        while run.chains < total {
            let range = run.chains..<min(total, run.chains + batch)
            let cpuStart = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            let requests = try issuer.requests(range, threads: settings.threads)
            let cpuMade = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            let results = verifier.verify(requests, threads: settings.threads)
            let refused = Self.controlRefused(requests, verifier)
            let cpuDone = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID)
            run.count(results, expected: requests.count, controlRefused: refused)
            if run.chains > batch {
                run.add(generate: cpuMade - cpuStart, verify: cpuDone - cpuMade, chains: range.count)
            }
            if run.chains == batch || run.chains % sampleEvery == 0 || run.chains == total {
                run.sample()
            }
        }
        guard run.mismatches == 0, run.controlsAccepted == 0 else {
            throw ValidationError(
                "chain-memory: \(run.mismatches) of \(run.chains) chained tokens not valid (first: \(run.firstMismatch ?? "")), \(run.controlsAccepted) forged controls accepted"
            )
        }
        return run.report(
            threads: settings.threads, seconds: Date().timeIntervalSince(started),
            slots: Self.slots(settings.chainCacheEntries))
    }

    /// Whether the verifier refuses the batch's first token with the signature of its fifth (both
    /// Ed25519 JWS, their chains now cached): the signature is checked, not only the chain.
    private static func controlRefused(_ requests: [VerificationRequest], _ verifier: Verifier) -> Bool {
        guard requests.count > 4, let cut = requests[0].token.lastIndex(of: "."),
            let other = requests[4].token.lastIndex(of: ".")
        else { return true }
        let forged = String(requests[0].token[..<cut] + requests[4].token[other...])
        return !verifier.verify(VerificationRequest(token: forged)).isValid
    }

    /// The chain cache's slot count for `entries` (a power of two, at least 2, as it rounds).
    static func slots(_ entries: Int) -> Int {
        var count = 2
        while count < entries { count <<= 1 }
        return count
    }
}

/// What a chain-memory run has counted so far.
struct ChainMemoryRun {
    var chains = 0
    var mismatches = 0
    var firstMismatch: String?
    var controlsAccepted = 0
    var generateCPU = 0.0
    var verifyCPU = 0.0
    var measuredChains = 0
    /// Chains streamed and resident bytes, per sample.
    var samples: [(chains: Int, bytes: Int)] = []

    mutating func count(_ results: [VerificationResult], expected: Int, controlRefused: Bool) {
        chains += expected
        mismatches += expected - results.count
        for result in results where !result.isValid {
            mismatches += 1
            if firstMismatch == nil { firstMismatch = "\(result.reason?.rawValue ?? "?"): \(result.detail ?? "")" }
        }
        if !controlRefused { controlsAccepted += 1 }
    }

    mutating func add(generate: Double, verify: Double, chains: Int) {
        generateCPU += generate
        verifyCPU += verify
        measuredChains += chains
    }

    mutating func sample() {
        let bytes = Resident.currentBytes()
        samples.append((chains, bytes))
        let growth = samples.count > 1 ? " (+\(Self.mib(bytes - samples[0].bytes)) MiB)" : " (first sample)"
        log("  chain-memory: \(chains) chains, resident \(Self.mib(bytes)) MiB\(growth)")
    }

    func report(threads: Int, seconds: Double, slots: Int) -> Report.Scenario {
        var result = Report.Scenario(
            name: Scenario.chainMemory.rawValue, tokens: chains, threads: threads, seconds: seconds,
            throughput: Double(chains) / seconds)
        let first = samples.first?.bytes ?? 0
        result.notes["chainsStreamed"] = Double(chains)
        result.notes["chainCacheSlots"] = Double(slots)
        result.notes["residentMiBFirst"] = Self.mib(first)
        result.notes["residentGrowthMiBToMax"] = Self.mib((samples.map(\.bytes).max() ?? first) - first)
        result.notes["residentGrowthMiBToLast"] = Self.mib((samples.last?.bytes ?? first) - first)
        for sample in samples.dropFirst() {
            result.notes["residentGrowthMiBAfter\(sample.chains)"] = Self.mib(sample.bytes - first)
        }
        if measuredChains > 0 {
            result.notes["generateMicrosecondsPerChain"] = generateCPU / Double(measuredChains) * 1e6
            result.notes["verifyMicrosecondsPerChain"] = verifyCPU / Double(measuredChains) * 1e6
        }
        return result
    }

    static func mib(_ bytes: Int) -> Double { (Double(bytes) / 1_048_576 * 10).rounded() / 10 }
}
