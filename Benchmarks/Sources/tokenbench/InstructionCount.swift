import ArgumentParser
import Foundation
import TokenBenchReport
import TokenGen
import TokenStream
import TokenVerifier

/// The deterministic cost figure: instructions per token outside libsodium and libcrypto (and
/// tokenverify's own table arithmetic, `signatureFunctions`), counted by valgrind's callgrind;
/// the keyed digests (tokenverify's own SipHash, `tv_siphash24_*`) are ours. tokenbench runs
/// itself under callgrind (`--stream-file`, one verifier thread) over the first `sizes[0]` and the first `sizes[1]` lines of one fixed
/// set, and divides the difference by the difference in lines: start-up, key loading and the
/// cache's allocation cancel out, and what is left is the work of one more token.
enum InstructionCount {
    /// The two set sizes (fixed whatever `--count` or `--smoke` say, so every run is comparable).
    static let sizes = [200, 1000]
    /// Objects whose instructions are the signature library's, not ours.
    static let signatureLibraries = ["libsodium", "libcrypto"]
    /// Functions of tokenverify's own that are signature arithmetic too: the ES256 per-key table
    /// path's inversion and scalars modulo n and its glue around OpenSSL's point arithmetic; the
    /// Ed25519 table path and the libsodium functions it links statically from libsodium.a.
    static let signatureFunctions = [
        "tv_order_", "tv_p256_table_", "tv_ed25519_", "ge25519_", "sc25519_", "fe25519_",
        "crypto_", "_crypto_", "sodium_", "_sodium_",
    ]

    /// The C library's allocator and copies count as the signature library's when the signature
    /// library calls them (OpenSSL's point arithmetic allocates its scratch on every ES256
    /// verify), and as ours when we do. (Functions that call nothing back, so never counted twice.)
    static func isCLibraryLeaf(objectFile: String, function: String) -> Bool {
        guard objectFile.hasPrefix("libc.so") || objectFile.hasPrefix("libc-") else { return false }
        return function.wholeMatch(of: cLibraryLeaves) != nil
    }

    /// The allocator's entry points, `memcpy` and its kin (and glibc's variants of them).
    nonisolated(unsafe) static let cLibraryLeaves = try! Regex(
        "malloc|free|calloc|realloc|posix_memalign|aligned_alloc|memalign"
            + "|_*mem(cpy|move|set|cmp)\\w*|_*explicit_bzero\\w*")

    /// Whether a function (in an object file of that name) is signature library code.
    static func isSignatureCode(objectFile: String, function: String) -> Bool {
        signatureLibraries.contains { objectFile.hasPrefix($0) }
            || signatureFunctions.contains { function.hasPrefix($0) }
    }

    /// `valgrind --version`, or nil when valgrind is not installed.
    static func valgrindVersion() -> String? {
        guard let output = try? runProcess("/usr/bin/env", ["valgrind", "--version"]), output.status == 0 else {
            return nil
        }
        return output.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One scenario per algorithm and format (`instructions-ed25519`, `instructions-es256`, and
    /// the same streams as CWTs: `instructions-cwt-ed25519`, `instructions-cwt-es256`).
    static func measure(workDirectory: String) throws -> [Report.Scenario] {
        let executable = try strippedExecutable(workDirectory: workDirectory)
        return try [("ed25519", 0.0, 0.0), ("es256", 1.0, 0.0), ("cwt-ed25519", 0.0, 1.0), ("cwt-es256", 1.0, 1.0)].map
        { name, esShare, cwtShare in
            var spec = TokenSetSpec(count: sizes[1], seed: 7)
            spec.es256Share = esShare
            spec.cwtShare = cwtShare
            let set = TokenSetGenerator.generate(spec)
            let directory = workDirectory + "/instructions-\(name)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data(set.keySet.utf8).write(to: URL(fileURLWithPath: directory + "/keys.jwks"))
            try Data((set.revocations.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: directory + "/revocations.jsonl"))
            let requests = try sizes.map { size in
                let requests = directory + "/requests-\(size).jsonl"
                try Data((set.requests.prefix(size).joined(separator: "\n") + "\n").utf8).write(
                    to: URL(fileURLWithPath: requests))
                return requests
            }
            var scenario = Report.Scenario(name: "instructions-\(name)", tokens: sizes[1], threads: 1)
            scenario.instructions = try perToken(
                name, executable: executable, directory: directory, sizes: sizes, requests: requests
            ) {
                [
                    "--stream-file", $0, "--keys-file", directory + "/keys.jwks", "--revocations-file",
                    directory + "/revocations.jsonl",
                ]
            }
            return scenario
        }
    }

    /// Instructions of one more token: `executable` run under callgrind with
    /// `childArguments(requests[i])` over each of the two request files (`sizes` lines each).
    static func perToken(
        _ name: String, executable: String, directory: String, sizes: [Int], requests: [String],
        childArguments: (String) -> [String]
    ) throws -> Report.Instructions {
        var ours: [Double] = []
        var library: [Double] = []
        for (size, requests) in zip(sizes, requests) {
            let profile = try callgrind(
                executable, requests: requests, directory: directory, childArguments: childArguments(requests))
            let signature =
                profile.instructions(inObjectsNamed: signatureLibraries)
                + profile.instructions(inFunctionsPrefixed: signatureFunctions, outsideObjectsNamed: signatureLibraries)
                + profile.instructions(calledFrom: isSignatureCode, into: isCLibraryLeaf)
            ours.append(Double(profile.total - signature))
            library.append(Double(signature))
            log(
                "  \(name), \(size) tokens: \(profile.total) instructions, \(signature) in libsodium/libcrypto and the table paths"
            )
        }
        let lines = Double(sizes[1] - sizes[0])
        return .init(
            perToken: (ours[1] - ours[0]) / lines, signatureLibraryPerToken: (library[1] - library[0]) / lines,
            setSizes: sizes)
    }

    /// Runs this executable under callgrind over one request file and reads the profile.
    private static func callgrind(
        _ executable: String, requests: String, directory: String, childArguments: [String]
    ) throws -> CallgrindProfile {
        let profilePath = requests + ".callgrind"
        let arguments =
            ["valgrind", "--tool=callgrind", "--callgrind-out-file=\(profilePath)", "--dump-line=no", executable]
            + childArguments
        // Swift's hashing is seeded at random per process: fixed, so a dictionary's probes are too.
        let run = try runProcess("/usr/bin/env", arguments, environment: ["SWIFT_DETERMINISTIC_HASHING": "1"])
        guard run.status == 0 else {
            throw ValidationError("callgrind run failed (\(run.status)): \(run.text.suffix(2000))")
        }
        let profile = try CallgrindProfile(parsing: String(contentsOfFile: profilePath, encoding: .utf8))
        if let keep = ProcessInfo.processInfo.environment["TOKENBENCH_KEEP_PROFILES"] {
            // For a look with callgrind_annotate: the profile and the files it was made from.
            try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
            _ = try? runProcess("/usr/bin/env", ["cp", "-r", directory, keep + "/"])
        }
        try? FileManager.default.removeItem(atPath: profilePath)
        return profile
    }

    /// A copy of this executable without its DWARF debug information, which valgrind 3.19 cannot
    /// read from Swift 6's compiler (it gives up on the whole run). The code is the same bytes.
    static func strippedExecutable(workDirectory: String) throws -> String {
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let copy = workDirectory + "/tokenbench-stripped"
        let run = try runProcess("/usr/bin/env", ["objcopy", "--strip-debug", executable, copy])
        guard run.status == 0 else { throw ValidationError("objcopy --strip-debug failed: \(run.text)") }
        return copy
    }

    /// The child's work under callgrind: stream `requests` through the engine on one verifier
    /// thread, answers to /dev/null (as `tokenverify verify` with the same keys, list and anchors);
    /// with `warm`, after streaming that file first and waiting for the tables its keys asked for
    /// (chains' leaf keys), so that both runs of a comparison count the same one-time work.
    static func streamChild(
        requests: String, keys: String, revocations: String, anchors: String?, warm: String? = nil
    ) throws {
        let keySet = try KeySet.load(files: [keys]).0
        let list = try RevocationList.load(files: [revocations])
        let verifier = Verifier(
            keys: keySet, revocations: list,
            trustAnchors: try anchors.map { try TrustAnchors.load([($0, .integration)]) },
            options: VerificationOptions(checkTime: 1_800_000_000))
        verifier.waitForKeyTables()  // every token through the same path, whatever the scheduling
        if let warm {
            _ = StreamRunner.throughput(verifier: verifier, input: warm, output: "/dev/null", threads: 1)
            verifier.waitForKeyTables()
        }
        let run = StreamRunner.throughput(verifier: verifier, input: requests, output: "/dev/null", threads: 1)
        log("streamed \(run.lines) lines")
    }

    /// Runs a command, its output and error merged.
    static func runProcess(
        _ path: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> (status: Int32, text: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
