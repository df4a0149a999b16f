import ArgumentParser
import Foundation
import Histogram
import TokenBenchReport
import TokenGen
import TokenVerifier

/// Runs scenarios, generating each token set once (streamed to disk by the same generator as
/// `tokenverify gen`) and keeping it for the scenarios that share it.
final class Bench {
    let settings: TokenBench
    let workDirectory: String
    private var sets: [String: SetOnDisk] = [:]
    /// Measured Ed25519 throughput (the reference for the revocation scenario).
    private var ed25519Throughput: Double?
    /// Measured ES256 throughput (the reference for the CWT ES256 scenario).
    private var es256Throughput: Double?
    private var uncachedRepeatThroughput: Double?
    private var cachedRepeatThroughput: Double?

    init(settings: TokenBench) {
        self.settings = settings
        workDirectory = NSTemporaryDirectory() + "tokenbench-\(getpid())"
        try? FileManager.default.createDirectory(atPath: workDirectory, withIntermediateDirectories: true)
    }

    func cleanUp() {
        try? FileManager.default.removeItem(atPath: workDirectory)
    }

    /// A generated set, made on first use.
    private func tokenSet(_ name: String, _ make: () -> TokenSetSpec) -> SetOnDisk {
        if let set = sets[name] { return set }
        let set = try! SetOnDisk.generate(
            make(), name: name, into: workDirectory + "/set-" + name, threads: settings.threads)
        sets[name] = set
        return set
    }

    /// The Ed25519 set (the status-list scenario's tokens without a status claim).
    var ed25519SetForStatusList: SetOnDisk { ed25519Set }

    private var ed25519Set: SetOnDisk {
        tokenSet("ed25519") {
            var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
            spec.es256Share = 0
            return spec
        }
    }

    private var es256Set: SetOnDisk {
        tokenSet("es256") {
            var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
            spec.es256Share = 1
            return spec
        }
    }

    func run(_ scenario: Scenario) throws -> Report.Scenario {
        switch scenario {
        case .ed25519:
            let set = ed25519Set
            var result = try throughput(scenario, set, esShare: 0)
            ed25519Throughput = result.throughput
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .es256:
            let set = es256Set
            var result = try throughput(scenario, set, esShare: 1)
            es256Throughput = result.throughput
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .cwtEd25519, .cwtES256:
            // The same streams as ed25519 and es256, every token a CWT.
            let esShare = scenario == .cwtES256 ? 1.0 : 0.0
            let set = tokenSet(scenario.rawValue) {
                var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
                spec.es256Share = esShare
                spec.cwtShare = 1
                return spec
            }
            var result = try throughput(scenario, set, esShare: esShare)
            if let jws = esShare == 1 ? es256Throughput : ed25519Throughput {
                result.notes["throughputVsJWS"] = result.throughput! / jws
            }
            return result
        case .mixed:
            // Half ES256, half Ed25519, drawn line by line.
            let set = tokenSet("mixed") {
                var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
                spec.es256Share = 0.5
                return spec
            }
            var result = try throughput(scenario, set, esShare: 0.5)
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .realistic:
            let set = tokenSet("realistic") {
                TokenSetSpec.realistic(count: settings.count, seed: settings.seed)
            }
            var result = try throughput(scenario, set, esShare: 0.5)
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .revocations:
            return try largeRevocationList()
        case .statusList:
            return try statusListScale()
        case .chain:
            return try chainCost()
        case .chainMemory:
            return try chainMemory()
        case .repeatedCached, .repeatedUncached:
            return try repeated(scenario)
        case .instructions, .efficiency, .scaling:
            throw ValidationError("\(scenario.rawValue) is run by GateScenarios")
        case .closedLoop:
            return try closedLoop()
        }
    }

    /// `count/10` Ed25519 tokens each coming back 10 times, with the signature cache off or on.
    private func repeated(_ scenario: Scenario) throws -> Report.Scenario {
        let set = ed25519Set
        let distinct = max(1, settings.count / 10)
        let requests = workDirectory + "/repeated.jsonl"
        let expected = workDirectory + "/repeated.expected.jsonl"
        try LineFile.repeatPrefix(
            sources: [set.requests, set.expected], targets: [requests, expected],
            distinct: distinct, rounds: 10, total: settings.count)
        defer {
            try? FileManager.default.removeItem(atPath: requests)
            try? FileManager.default.removeItem(atPath: expected)
        }
        let cached = scenario == .repeatedCached
        let verifier = try makeVerifier(
            keys: set.keySet, revocations: set.revocations, cacheSlots: cached ? 1 << 18 : 0)
        var result = try throughput(
            scenario, requests: requests, expected: expected, verifier: verifier, esShare: 0)
        if cached {
            cachedRepeatThroughput = result.throughput
        } else {
            uncachedRepeatThroughput = result.throughput
        }
        if let cachedRepeatThroughput, let uncachedRepeatThroughput {
            result.notes["speedupOverUncached"] = cachedRepeatThroughput / uncachedRepeatThroughput
        }
        return result
    }

    /// One request at a time through a pipe, and the floor of a minimal server.
    private func closedLoop() throws -> Report.Scenario {
        let set = ed25519Set
        let verifier = try makeVerifier(keys: set.keySet, revocations: set.revocations)
        let lines = set.firstRequests(settings.closedLoopRequests)
        let (histogram, _) = StreamRunner.latency(
            verifier: verifier, lines: lines, rate: nil, threads: settings.threads)
        var latency = Report.Latency(mode: "closed-loop", histogram: histogram)
        let floor = StreamRunner.floorLatency(
            lines: lines, rate: nil, algorithm: .ed25519, messageLength: signingInputLength(set.firstRequest))
        latency.floorP50Microseconds = Double(floor.valueAtPercentile(50)) / 1000
        latency.floorP99Microseconds = Double(floor.valueAtPercentile(99)) / 1000
        return Report.Scenario(
            name: Scenario.closedLoop.rawValue, tokens: lines.count, threads: settings.threads, latency: latency)
    }

    private func makeVerifier(
        keys: String, revocations: RevocationList, cacheSlots: Int = 1 << 18
    ) throws -> Verifier {
        let keySet = try KeySet.parse(Array(keys.utf8)).0
        let verifier = Verifier(
            keys: keySet, revocations: revocations,
            options: VerificationOptions(checkTime: 1_800_000_000, signatureCacheSlots: cacheSlots))
        verifier.waitForKeyTables()  // the steady state: every key on its table path, whatever the scheduling
        return verifier
    }

    private func makeVerifier(keys: String, revocations path: String, cacheSlots: Int = 1 << 18) throws -> Verifier {
        try makeVerifier(keys: keys, revocations: try RevocationList.load(files: [path]), cacheSlots: cacheSlots)
    }

    /// Streams a set's requests through the engine, checks every verdict, and measures the raw
    /// rate of the same mix right before and after.
    private func throughput(_ scenario: Scenario, _ set: SetOnDisk, esShare: Double) throws -> Report.Scenario {
        let verifier = try makeVerifier(keys: set.keySet, revocations: set.revocations)
        return try throughput(
            scenario, requests: set.requests, expected: set.expected, verifier: verifier, esShare: esShare)
    }

    private func throughput(
        _ scenario: Scenario, requests input: String, expected: String, verifier: Verifier,
        esShare: Double
    ) throws -> Report.Scenario {
        let output = workDirectory + "/\(scenario.rawValue).answers.jsonl"
        var firstRequest = ""
        LineFile.forEach(input, limit: 1) { firstRequest = String(decoding: $0, as: UTF8.self) }
        let messageLength = signingInputLength(firstRequest)
        let before = rawRate(esShare: esShare, messageLength: messageLength)
        let run = StreamRunner.throughput(verifier: verifier, input: input, output: output, threads: settings.threads)
        let after = rawRate(esShare: esShare, messageLength: messageLength)
        let reachingSignature = try checkVerdicts(output, expected, scenario)
        try? FileManager.default.removeItem(atPath: output)
        let raw = (before + after) / 2
        var result = Report.Scenario(
            name: scenario.rawValue, tokens: run.lines, threads: settings.threads, seconds: run.seconds,
            throughput: run.rate, rawRate: raw, efficiency: run.rate / raw)
        result.notes["rawSpread"] = abs(before - after) / raw
        if scenario == .realistic {
            result.notes["shareReachingSignature"] = Double(reachingSignature) / Double(max(1, run.lines))
        }
        result.notes["peakResidentMiB"] = Double(Resident.peakMiB())
        return result
    }

    /// Raw verifies per second for a mix with `esShare` ES256: each back end timed on all
    /// threads, combined as the time one token of the mix takes.
    private func rawRate(esShare: Double, messageLength: Int) -> Double {
        let ed =
            esShare < 1
            ? RawRate.measure(
                .ed25519, threads: settings.threads, seconds: settings.rawSeconds,
                messageLength: messageLength, variants: settings.rawVariants) : 0
        let es =
            esShare > 0
            ? RawRate.measure(
                .es256, threads: settings.threads, seconds: settings.rawSeconds,
                messageLength: messageLength, variants: settings.rawVariants) : 0
        let secondsPerToken = (esShare > 0 ? esShare / es : 0) + (esShare < 1 ? (1 - esShare) / ed : 0)
        return 1 / secondsPerToken
    }

    /// Latency at a share of the measured throughput (open loop), over the set's first lines.
    private func openLoop(_ set: SetOnDisk, throughput: Double) -> Report.Latency {
        let rate = throughput * settings.openLoopLoad
        let count = max(10, min(set.lines, Int(rate * settings.openLoopSeconds)))
        let verifier = try! makeVerifier(keys: set.keySet, revocations: set.revocations)
        let lines = set.firstRequests(count)
        let (histogram, lateness) = StreamRunner.latency(
            verifier: verifier, lines: lines, rate: rate, threads: settings.threads)
        var latency = Report.Latency(mode: "open-loop at \(Int(rate))/s", histogram: histogram)
        latency.senderLatenessP99Microseconds = lateness.map { Double($0.valueAtPercentile(99)) / 1000 }
        return latency
    }

    /// The 10-million-entry list: written as a file, loaded the way `verify` loads it (timed,
    /// with the memory it keeps), then the Ed25519 stream checked against it.
    private func largeRevocationList() throws -> Report.Scenario {
        let set = ed25519Set
        let path = workDirectory + "/revocations.jsonl"
        guard
            let file = FileHandle(forWritingAtPath: path)
                ?? {
                    FileManager.default.createFile(atPath: path, contents: nil)
                    return FileHandle(forWritingAtPath: path)
                }()
        else { throw ValidationError("cannot write \(path)") }
        var text = ""
        LineFile.forEach(set.revocations) { text += String(decoding: $0, as: UTF8.self) + "\n" }
        for index in 0..<settings.revocationEntries {
            switch index % 4 {
            case 0: text += "{\"jti\":\"pad-\(index)\"}\n"
            case 1: text += "{\"sub\":\"pad-phone-\(index)\"}\n"
            case 2: text += "{\"sub\":\"pad-phone-\(index)\",\"aud\":\"pad-car-\(index)\"}\n"
            default: text += "{\"aud\":\"pad-car-\(index)\",\"issued_before\":1700000000}\n"
            }
            if text.utf8.count > 1 << 20 {
                file.write(Data(text.utf8))
                text = ""
            }
        }
        file.write(Data(text.utf8))
        try file.close()

        let residentBefore = residentBytes()
        let start = Date()
        let list = try RevocationList.load(files: [path])
        let loadSeconds = Date().timeIntervalSince(start)
        let kept = residentBytes() - residentBefore
        try? FileManager.default.removeItem(atPath: path)
        let verifier = try makeVerifier(keys: set.keySet, revocations: list)
        var result = try throughput(
            .revocations, requests: set.requests, expected: set.expected, verifier: verifier, esShare: 0)
        result.notes["entries"] = Double(list.count)
        result.notes["loadSeconds"] = loadSeconds
        result.notes["bytesPerEntry"] = Double(list.storageBytes) / Double(max(1, list.count))
        result.notes["residentBytesPerEntry"] = Double(kept) / Double(max(1, list.count))
        if let ed25519Throughput {
            result.notes["throughputVsEd25519"] = result.throughput! / ed25519Throughput
        }
        withExtendedLifetime(list) {}
        return result
    }

    /// Compares each answer line with the expected verdict, streaming; a mismatch fails the run.
    /// Returns how many expected verdicts need the signature check.
    private func checkVerdicts(_ output: String, _ expected: String, _ scenario: Scenario) throws -> Int {
        let outcome = LineFile.compareVerdicts(answers: output, expected: expected)
        guard outcome.answers == outcome.expected, outcome.mismatches == 0 else {
            throw ValidationError(
                "\(scenario.rawValue): \(outcome.answers) answers for \(outcome.expected) requests, \(outcome.mismatches) unexpected verdicts"
            )
        }
        return outcome.reachingSignature
    }

    private func signingInputLength(_ request: String) -> Int {
        guard let start = request.range(of: "\"token\":\"") else { return 300 }
        let token = request[start.upperBound...].prefix { $0 != "\"" }
        let dots = token.utf8.indices.filter { token.utf8[$0] == UInt8(ascii: ".") }
        // A CWT signs its Sig_structure: about its CBOR less the signature (base64url is 4/3).
        if dots.isEmpty && token.utf8.count > 120 { return token.utf8.count * 3 / 4 - 55 }
        return dots.count >= 2 ? token.utf8.distance(from: token.utf8.startIndex, to: dots[1]) : 300
    }

    /// Resident memory of this process, from /proc/self/statm.
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
