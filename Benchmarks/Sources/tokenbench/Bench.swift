import ArgumentParser
import Foundation
import Histogram
import TokenGen
import TokenBenchReport
import TokenVerifier

/// Runs scenarios, generating each token set once and keeping it for the scenarios that share it.
final class Bench {
    let settings: TokenBench
    let workDirectory: String
    private var sets: [String: GeneratedTokenSet] = [:]
    /// Measured Ed25519 throughput (the reference for the revocation scenario).
    private var ed25519Throughput: Double?
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
    private func tokenSet(_ name: String, _ make: () -> TokenSetSpec) -> GeneratedTokenSet {
        if let set = sets[name] { return set }
        let start = Date()
        let set = TokenSetGenerator.generate(make())
        log("  generated \(set.requests.count) \(name) requests in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        sets[name] = set
        return set
    }

    private var ed25519Set: GeneratedTokenSet {
        tokenSet("ed25519") {
            var spec = TokenSetSpec(count: settings.count, seed: settings.seed)
            spec.es256Share = 0
            return spec
        }
    }

    private var es256Set: GeneratedTokenSet {
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
            var result = try throughput(scenario, set.requests, set.expected, keys: set.keySet, revocations: set.revocations, esShare: 0)
            ed25519Throughput = result.throughput
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .es256:
            let set = es256Set
            var result = try throughput(scenario, set.requests, set.expected, keys: set.keySet, revocations: set.revocations, esShare: 1)
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .mixed:
            // Alternating lines of the two sets (same seed, so the same key set).
            let ed = ed25519Set, es = es256Set
            var requests: [String] = [], expected: [Reason?] = []
            for index in 0..<settings.count {
                let set = index % 2 == 0 ? ed : es
                requests.append(set.requests[index])
                expected.append(set.expected[index])
            }
            var result = try throughput(scenario, requests, expected, keys: ed.keySet, revocations: ed.revocations + es.revocations, esShare: 0.5)
            result.latency = openLoop(ed, throughput: result.throughput!)
            return result
        case .realistic:
            let set = tokenSet("realistic") {
                TokenSetSpec.realistic(count: settings.count, seed: settings.seed)
            }
            let signed = set.expected.filter { $0 == nil || $0 == .badSignature || $0 == .commandNotPermitted }.count
            var result = try throughput(scenario, set.requests, set.expected, keys: set.keySet, revocations: set.revocations, esShare: 0.5)
            result.notes["shareReachingSignature"] = Double(signed) / Double(set.expected.count)
            result.latency = openLoop(set, throughput: result.throughput!)
            return result
        case .revocations:
            return try largeRevocationList()
        case .repeatedCached, .repeatedUncached:
            let set = ed25519Set
            let distinct = max(1, settings.count / 10)
            var requests: [String] = [], expected: [Reason?] = []
            for round in 0..<10 {
                for index in 0..<distinct where round * distinct + index < settings.count {
                    requests.append(set.requests[index])
                    expected.append(set.expected[index])
                }
            }
            let cached = scenario == .repeatedCached
            var result = try throughput(scenario, requests, expected, keys: set.keySet, revocations: set.revocations, esShare: 0,
                                        cacheSlots: cached ? 1 << 18 : 0)
            if cached { cachedRepeatThroughput = result.throughput } else { uncachedRepeatThroughput = result.throughput }
            if let cachedRepeatThroughput, let uncachedRepeatThroughput {
                result.notes["speedupOverUncached"] = cachedRepeatThroughput / uncachedRepeatThroughput
            }
            return result
        case .instructions, .efficiency, .scaling:
            throw ValidationError("\(scenario.rawValue) is run by GateScenarios")
        case .closedLoop:
            let set = ed25519Set
            let verifier = try makeVerifier(keys: set.keySet, revocations: set.revocations)
            let lines = (0..<settings.closedLoopRequests).map { Array(set.requests[$0 % set.requests.count].utf8) }
            let (histogram, _) = StreamRunner.latency(verifier: verifier, lines: lines, rate: nil, threads: settings.threads)
            var latency = Report.Latency(mode: "closed-loop", histogram: histogram)
            let floor = StreamRunner.floorLatency(lines: lines, rate: nil, algorithm: .ed25519, messageLength: signingInputLength(set.requests[0]))
            latency.floorP50Microseconds = Double(floor.valueAtPercentile(50)) / 1000
            latency.floorP99Microseconds = Double(floor.valueAtPercentile(99)) / 1000
            return Report.Scenario(name: Scenario.closedLoop.rawValue, tokens: lines.count, threads: settings.threads, latency: latency)
        }
    }

    private func makeVerifier(keys: String, revocations: RevocationList, cacheSlots: Int = 1 << 18) throws -> TokenVerifier {
        let keySet = try KeySet.parse(Array(keys.utf8)).0
        return TokenVerifier(keys: keySet, revocations: revocations,
                             options: VerificationOptions(checkTime: 1_800_000_000, signatureCacheSlots: cacheSlots))
    }

    private func makeVerifier(keys: String, revocations: [String], cacheSlots: Int = 1 << 18) throws -> TokenVerifier {
        let list = try RevocationList.parse(Array(revocations.joined(separator: "\n").utf8))
        return try makeVerifier(keys: keys, revocations: list, cacheSlots: cacheSlots)
    }

    /// Writes the requests to a file, streams them through the engine, checks every verdict,
    /// and measures the raw rate of the same mix right before and after.
    private func throughput(_ scenario: Scenario, _ requests: [String], _ expected: [Reason?], keys: String,
                            revocations: [String], esShare: Double, cacheSlots: Int = 1 << 18) throws -> Report.Scenario {
        let verifier = try makeVerifier(keys: keys, revocations: revocations, cacheSlots: cacheSlots)
        return try throughput(scenario, requests, expected, verifier: verifier, esShare: esShare)
    }

    private func throughput(_ scenario: Scenario, _ requests: [String], _ expected: [Reason?], verifier: TokenVerifier,
                            esShare: Double) throws -> Report.Scenario {
        let input = workDirectory + "/\(scenario.rawValue).jsonl"
        let output = workDirectory + "/\(scenario.rawValue).answers.jsonl"
        try Data((requests.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: input))
        let messageLength = signingInputLength(requests[0])
        let before = rawRate(esShare: esShare, messageLength: messageLength)
        let run = StreamRunner.throughput(verifier: verifier, input: input, output: output, threads: settings.threads)
        let after = rawRate(esShare: esShare, messageLength: messageLength)
        try checkVerdicts(output, expected, scenario)
        try? FileManager.default.removeItem(atPath: output)
        let raw = (before + after) / 2
        var result = Report.Scenario(name: scenario.rawValue, tokens: run.lines, threads: settings.threads, seconds: run.seconds,
                                     throughput: run.rate, rawRate: raw, efficiency: run.rate / raw)
        result.notes["rawSpread"] = abs(before - after) / raw
        return result
    }

    /// Raw verifies per second for a mix with `esShare` ES256: each back end timed on all
    /// threads, combined as the time one token of the mix takes.
    private func rawRate(esShare: Double, messageLength: Int) -> Double {
        let ed = esShare < 1 ? RawRate.measure(.ed25519, threads: settings.threads, seconds: settings.rawSeconds,
                                               messageLength: messageLength, variants: settings.rawVariants) : 0
        let es = esShare > 0 ? RawRate.measure(.es256, threads: settings.threads, seconds: settings.rawSeconds,
                                               messageLength: messageLength, variants: settings.rawVariants) : 0
        let secondsPerToken = (esShare > 0 ? esShare / es : 0) + (esShare < 1 ? (1 - esShare) / ed : 0)
        return 1 / secondsPerToken
    }

    /// Latency at a share of the measured throughput (open loop), over the set's first lines.
    private func openLoop(_ set: GeneratedTokenSet, throughput: Double) -> Report.Latency {
        let rate = throughput * settings.openLoopLoad
        let count = max(10, min(set.requests.count, Int(rate * settings.openLoopSeconds)))
        let verifier = try! makeVerifier(keys: set.keySet, revocations: set.revocations)
        let lines = (0..<count).map { Array(set.requests[$0 % set.requests.count].utf8) }
        let (histogram, lateness) = StreamRunner.latency(verifier: verifier, lines: lines, rate: rate, threads: settings.threads)
        var latency = Report.Latency(mode: "open-loop at \(Int(rate))/s", histogram: histogram)
        latency.senderLatenessP99Microseconds = lateness.map { Double($0.valueAtPercentile(99)) / 1000 }
        return latency
    }

    /// The 10-million-entry list: written as a file, loaded the way `verify` loads it (timed,
    /// with the memory it keeps), then the Ed25519 stream checked against it.
    private func largeRevocationList() throws -> Report.Scenario {
        let set = ed25519Set
        let path = workDirectory + "/revocations.jsonl"
        guard let file = FileHandle(forWritingAtPath: path) ?? {
            FileManager.default.createFile(atPath: path, contents: nil)
            return FileHandle(forWritingAtPath: path)
        }() else { throw ValidationError("cannot write \(path)") }
        var text = set.revocations.joined(separator: "\n") + "\n"
        for index in 0..<settings.revocationEntries {
            switch index % 4 {
            case 0: text += "{\"jti\":\"pad-\(index)\"}\n"
            case 1: text += "{\"sub\":\"pad-phone-\(index)\"}\n"
            case 2: text += "{\"sub\":\"pad-phone-\(index)\",\"aud\":\"pad-car-\(index)\"}\n"
            default: text += "{\"aud\":\"pad-car-\(index)\",\"issued_before\":1700000000}\n"
            }
            if text.utf8.count > 1 << 20 { file.write(Data(text.utf8)); text = "" }
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
        var result = try throughput(.revocations, set.requests, set.expected, verifier: verifier, esShare: 0)
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

    /// Compares each answer line with the expected verdict; a mismatch fails the run.
    private func checkVerdicts(_ output: String, _ expected: [Reason?], _ scenario: Scenario) throws {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: output)))
        var index = 0
        var mismatches = 0
        for line in bytes.split(separator: 0x0A) {
            let text = String(decoding: line, as: UTF8.self)
            let want = index < expected.count ? expected[index] : nil
            let ok = want.map { text.contains("\"reason\":\"\($0.rawValue)\"") } ?? text.contains("\"valid\":true")
            if !ok { mismatches += 1 }
            index += 1
        }
        guard index == expected.count, mismatches == 0 else {
            throw ValidationError("\(scenario.rawValue): \(index) answers for \(expected.count) requests, \(mismatches) unexpected verdicts")
        }
    }

    private func signingInputLength(_ request: String) -> Int {
        guard let start = request.range(of: "\"token\":\"") else { return 300 }
        let token = request[start.upperBound...].prefix { $0 != "\"" }
        let dots = token.utf8.indices.filter { token.utf8[$0] == UInt8(ascii: ".") }
        return dots.count >= 2 ? token.utf8.distance(from: token.utf8.startIndex, to: dots[1]) : 300
    }

    /// Resident memory of this process, from /proc/self/statm.
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }
}
