import ArgumentParser
import Foundation
import TokenBenchReport
import TokenVerifier

/// Measures a user's own set (`--requests … --keys …`) with the figures of a generated
/// scenario: throughput and efficiency per CPU second from interleaved raw/verifier
/// repetitions, open-loop latency percentiles, and instructions per token when valgrind is
/// present (all of them, the signature library's included). The raw rate is that of the set's
/// own algorithm mix.
struct OwnSet {
    let settings: TokenBench
    let workDirectory: String

    var options: OwnSetOptions { settings.ownSet }

    func measure() throws -> [Report.Scenario] {
        let state = try options.load()
        let requests = try joinedRequests()
        let profile = OwnSetProfile.read(requests, keys: state.keys)
        guard profile.lines > 0 else { throw ValidationError("--requests: the files hold no request lines") }
        log("\(options.setName): \(profile.lines) requests, \(profile.describeMix)")
        let workload = Interleaved.Workload(
            mix: profile.mix, requests: requests, lines: profile.lines,
            messageLength: profile.messageLength, keys: state.keys,
            revocations: state.revocations, steps: state.steps, options: state.options)
        let interleaved = Interleaved(
            workDirectory: workDirectory, count: profile.lines,
            rawSeconds: min(settings.rawSeconds, 0.5), rawVariants: settings.rawVariants)
        var scenario = try interleaved.measure(
            workload, name: options.setName, threads: settings.threads,
            repetitions: settings.repetitions, perCPUSecond: true)
        scenario.latency = openLoop(workload, lines: profile.lines, throughput: scenario.throughput ?? 1)
        for (algorithm, share) in profile.mix { scenario.notes["share-\(algorithm.rawValue)"] = share }
        scenario.notes["peakResidentMiB"] = Double(Resident.peakMiB())
        if let version = InstructionCount.valgrindVersion() {
            // Your set's cost is the whole token's: the signature library's instructions count
            // too (what the cache saves is there), unlike the generated scenarios' figure.
            scenario.instructions = try instructions(requests, lines: profile.lines).map {
                var counted = $0
                counted.perToken += counted.signatureLibraryPerToken
                return counted
            }
            scenario.notes["instructionsIncludeSignatureLibrary"] = 1
            log("  \(version)")
        } else {
            log("  valgrind is not installed: no instruction counts")
        }
        return [scenario]
    }

    /// The child's work under callgrind: this set over one verifier thread, answers to /dev/null.
    static func streamChild(_ options: OwnSetOptions) throws {
        let state = try options.load()
        let verifier = Verifier(
            keys: state.keys, revocations: state.revocations, steps: state.steps, options: state.options)
        verifier.waitForKeyTables()  // every token through the same path, whatever the scheduling
        let run = StreamRunner.throughput(
            verifier: verifier, input: options.requests[0], output: "/dev/null", threads: 1)
        log("streamed \(run.lines) lines")
    }

    /// One request file: the only one given, or all of them joined in order.
    private func joinedRequests() throws -> String {
        if options.requests.count == 1 { return options.requests[0] }
        let path = workDirectory + "/own-set-requests.jsonl"
        FileManager.default.createFile(atPath: path, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? output.close() }
        for file in options.requests {
            var chunk: [UInt8] = []
            try LineFile.forEach(file) { line in
                chunk += line + [0x0A]
                if chunk.count > 1 << 20 {
                    try output.write(contentsOf: chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
            try output.write(contentsOf: chunk)
        }
        return path
    }

    /// Open-loop latency at `--open-loop-load` of the measured throughput over the set's first lines.
    private func openLoop(_ workload: Interleaved.Workload, lines: Int, throughput: Double) -> Report.Latency {
        let rate = throughput * settings.openLoopLoad
        let count = max(10, min(lines, Int(rate * settings.openLoopSeconds)))
        var first: [[UInt8]] = []
        LineFile.forEach(workload.requests, limit: count) { if !$0.isEmpty { first.append($0) } }
        let (histogram, lateness) = StreamRunner.latency(
            verifier: workload.freshVerifier(), lines: first, rate: rate, threads: settings.threads)
        var latency = Report.Latency(mode: "open-loop at \(Int(rate))/s", histogram: histogram)
        latency.senderLatenessP99Microseconds = lateness.map { Double($0.valueAtPercentile(99)) / 1000 }
        return latency
    }

    /// Instructions per token over the set's first 200 and 1000 lines (fewer for a smaller set).
    private func instructions(_ requests: String, lines: Int) throws -> Report.Instructions? {
        let sizes = [min(InstructionCount.sizes[0], lines / 5), min(InstructionCount.sizes[1], lines)]
        guard sizes[0] >= 1, sizes[1] > sizes[0] else {
            log("  too few lines for an instruction count")
            return nil
        }
        let directory = workDirectory + "/instructions-own-set"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let files = try sizes.map { size in
            let path = directory + "/requests-\(size).jsonl"
            var text: [UInt8] = []
            LineFile.forEach(requests, limit: size) { text += $0 + [0x0A] }
            try Data(text).write(to: URL(fileURLWithPath: path))
            return path
        }
        let executable = try InstructionCount.strippedExecutable(workDirectory: workDirectory)
        return try InstructionCount.perToken(
            options.setName, executable: executable, directory: directory, sizes: sizes,
            requests: files, childArguments: options.childArguments)
    }
}

/// What a set's lines say about its cost: how many there are, the share of each algorithm
/// (by the key a token names, else its header's alg), and the signing input's mean length.
struct OwnSetProfile {
    var lines = 0
    var mix: [RawRate.Algorithm: Double] = [:]
    var messageLength = 300

    /// Lines whose algorithm is read (the rest are only counted).
    static let sampled = 50_000

    static func read(_ path: String, keys: KeySet) -> OwnSetProfile {
        var profile = OwnSetProfile()
        var counts: [RawRate.Algorithm: Int] = [:]
        var lengths = 0
        LineFile.forEach(path) { line in
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { return }
            profile.lines += 1
            guard profile.lines <= sampled, let token = token(in: line),
                let algorithm = algorithm(of: token, keys: keys)
            else { return }
            counts[algorithm, default: 0] += 1
            lengths += token.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false).prefix(2).map(
                \.utf8.count
            ).reduce(1, +)
        }
        let known = counts.values.reduce(0, +)
        guard known > 0 else {
            log("tokenbench: warning: no token names a known algorithm; the raw rate is Ed25519's")
            profile.mix = [.ed25519: 1]
            return profile
        }
        profile.mix = counts.mapValues { Double($0) / Double(known) }
        profile.messageLength = lengths / known
        return profile
    }

    var describeMix: String {
        mix.sorted { $0.key.rawValue < $1.key.rawValue }.map {
            "\($0.key.rawValue) \(Int(($0.value * 100).rounded()))%"
        }.joined(separator: ", ")
    }

    /// The token of a request line: its "token" member, or the whole line.
    private static func token(in line: [UInt8]) -> String? {
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
        guard text.hasPrefix("{") else { return text }
        let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        return object?["token"] as? String
    }

    private static func algorithm(of token: String, keys: KeySet) -> RawRate.Algorithm? {
        guard let segment = token.split(separator: ".", omittingEmptySubsequences: false).first else { return nil }
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let header = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        let named = (header["kid"] as? String).flatMap { keys[$0]?.algorithm }
        guard let algorithm = named ?? (header["alg"] as? String).flatMap(SignatureAlgorithm.init(rawValue:)) else {
            return nil
        }
        return algorithm.keyType == .ed25519 ? .ed25519 : .es256
    }
}
