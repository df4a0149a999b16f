import Dispatch
import TokenConcurrency
import TokenTools
import TokenVerifier

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What a streamed set holds, for the summary line and the rate.
public struct TokenSetSummary: Sendable {
    public var lines = 0
    public var valid = 0
    /// Lines expected to be `step_required` (sets with a step share).
    public var stepRequired = 0
    public var revocations = 0
    /// Tokens signed (repeated lines reuse an earlier token) and, of those, ES256.
    public var signedTokens = 0
    public var signedES256 = 0
    /// Wall-clock seconds of the generation, keys to the last rename.
    public var seconds = 0.0
    /// CPU seconds the process used meanwhile (all threads, user and system).
    public var cpuSeconds = 0.0
}

/// Writes a generated set into a directory, streaming: chunks are made and signed in parallel
/// and written in order, so memory stays flat whatever the count. Every file is written under a
/// temporary name (`NAME.partial`, an ``AtomicFileWriter``) and committed (synced, renamed into
/// place) only once all of them are complete, so a run that is stopped or fails leaves no file
/// that looks complete.
public enum TokenSetFiles {
    /// The files of a set, in the order they are renamed into place (expected verdicts last).
    public static let names = [
        "keys.jwks", "signing-keys.jwk", "revocations.jsonl", "tokens.txt", "requests.jsonl", "expected.jsonl",
    ]

    /// The files a set with a step share adds (spec §4b): the policy and the steps devices did.
    public static let stepNames = ["step-policy.json", "device-steps.jsonl"]

    /// The status lists a set with a status share adds (spec §4c), in `status-lists/`: one for
    /// the JWS tokens, one for the CWTs.
    public static let statusListNames = ["status-lists/jws.statuslist.jwt", "status-lists/cwt.statuslist.cwt"]

    /// The trust anchor a set with a chain share adds (the root of ``GenChains``).
    public static let anchorsName = "anchors.pem"

    /// Suffix of the temporary files.
    public static let partialSuffix = ".partial"

    /// Why a set could not be written.
    public struct WriteError: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Generates `spec` into `directory` (which must exist) on `threads` workers. `progress` is
    /// called after each chunk with the lines written so far; `shouldStop` is asked after each
    /// chunk, and when it answers true the run stops, removes its temporary files and returns nil.
    /// Without `writeTokens`, `tokens.txt` is left out (the benchmark reads only the requests).
    public static func write(
        _ spec: TokenSetSpec, to directory: String, threads: Int = activeProcessorCount(),
        writeTokens: Bool = true,
        progress: ((_ lines: Int, _ seconds: Double) -> Void)? = nil,
        shouldStop: () -> Bool = { false }
    ) throws(WriteError) -> TokenSetSummary? {
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = SigningRate.processCPUSeconds()
        func elapsed() -> Double { Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        var files: [String: AtomicFileWriter] = [:]
        defer { for file in files.values { file.discard() } }
        var names =
            (spec.stepShare > 0 ? Self.stepNames : []) + (spec.chainShare > 0 ? [Self.anchorsName] : [])
            + (writeTokens ? Self.names : Self.names.filter { $0 != "tokens.txt" })
        for name in names {
            files[name] = try partialFile(directory + "/" + name)
        }
        let keys = spec.signingKeys()
        try files["keys.jwks"]!.append(Array("{\"keys\":[\(keys.ed25519.publicJWK),\(keys.es256.publicJWK)]}\n".utf8))
        try files["signing-keys.jwk"]!.append(Array("\(keys.ed25519.privateJWK)\n\(keys.es256.privateJWK)\n".utf8))
        try files["step-policy.json"]?.append(Array((TokenSetSpec.stepPolicy + "\n").utf8))
        var summary = TokenSetSummary()
        var statusEntries: [TokenFormat: [Int: UInt8]] = [.jws: [:], .cwt: [:]]
        let chains = try Self.chains(spec, keys: keys)
        if let chains { try files[Self.anchorsName]!.append(Array(chains.anchorsPEM.utf8)) }
        let completed = try OrderedChunks.run(spec, keys: keys, chains: chains, threads: threads) {
            (chunk) throws(WriteError) -> Bool in
            for entry in chunk.statusEntries { statusEntries[entry.format]![entry.index] = entry.value }
            try files["tokens.txt"]?.append(chunk.tokens)
            try files["requests.jsonl"]!.append(chunk.requests)
            try files["expected.jsonl"]!.append(chunk.expected)
            try files["revocations.jsonl"]!.append(chunk.revocations)
            try files["device-steps.jsonl"]?.append(chunk.deviceSteps)
            summary.lines += chunk.lineCount
            summary.valid += chunk.validLines
            summary.stepRequired += chunk.stepRequiredLines
            summary.revocations += chunk.revocationCount
            summary.signedTokens += chunk.signedTokens
            summary.signedES256 += chunk.signedES256
            progress?(summary.lines, elapsed())
            return !shouldStop()
        }
        guard completed else { return nil }
        var padding: [UInt8] = []
        padding.reserveCapacity(1 << 20)
        for index in 0..<spec.revocationPadding {
            TokenSetSpec.appendPaddingRevocation(index, to: &padding)
            if padding.count >= 1 << 20 {
                try files["revocations.jsonl"]!.append(padding)
                padding.removeAll(keepingCapacity: true)
                if shouldStop() { return nil }
            }
        }
        try files["revocations.jsonl"]!.append(padding)
        summary.revocations += spec.revocationPadding
        if shouldStop() { return nil }
        if spec.statusShare > 0 {
            try writeStatusLists(spec, keys: keys, entries: statusEntries, into: directory, files: &files)
            names.insert(contentsOf: Self.statusListNames, at: names.count - 1)  // before the expected verdicts
        }
        for name in names {
            do { try files[name]!.commit() } catch { throw WriteError(description: error.description) }
            files[name] = nil
        }
        summary.seconds = elapsed()
        summary.cpuSeconds = SigningRate.processCPUSeconds() - cpuStart
        return summary
    }
}

extension TokenSetFiles {
    /// Signs the set's two status lists (the JWS tokens' with the Ed25519 key as a JWS, the CWTs'
    /// with the ES256 key as a CWT) into `status-lists/` under temporary names.
    static func writeStatusLists(
        _ spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey),
        entries: [TokenFormat: [Int: UInt8]], into directory: String,
        files: inout [String: AtomicFileWriter]
    ) throws(WriteError) {
        let folder = directory + "/status-lists"
        if mkdir(folder, 0o755) != 0 && errno != EEXIST {
            throw WriteError(description: "cannot create \(folder): \(errnoText())")
        }
        for (name, format, key) in [
            (statusListNames[0], TokenFormat.jws, keys.ed25519), (statusListNames[1], .cwt, keys.es256),
        ] {
            let token: String
            do {
                token = try StatusListIssuer(key: key).sign(
                    uri: spec.statusListURI(format), bits: 2, size: max(1, spec.count),
                    statuses: entries[format] ?? [:],
                    format: format, issuedAt: spec.statusListIssuedAt)
            } catch {
                throw WriteError(description: "cannot make the status list: \(error.description)")
            }
            let file = try partialFile(directory + "/" + name)
            files[name] = file
            try file.append(Array((token + "\n").utf8))
        }
    }
}

extension TokenSetFiles {
    /// The temporary file `NAME.partial` for `path`.
    static func partialFile(_ path: String) throws(WriteError) -> AtomicFileWriter {
        do { return try AtomicFileWriter(replacing: path, temporary: .suffix(partialSuffix)) } catch {
            throw WriteError(description: error.description)
        }
    }
}

extension AtomicFileWriter {
    /// ``write(_:)``, its failure a ``TokenSetFiles/WriteError``.
    func append(_ bytes: [UInt8]) throws(TokenSetFiles.WriteError) {
        do { try write(bytes) } catch { throw TokenSetFiles.WriteError(description: error.description) }
    }
}

extension TokenSetFiles {
    /// The certificates of a set with a chain share, or nil.
    static func chains(
        _ spec: TokenSetSpec, keys: (ed25519: SigningKey, es256: SigningKey)
    ) throws(WriteError) -> GenChains? {
        guard spec.chainShare > 0 else { return nil }
        do {
            return try GenChains(spec, keys: keys)
        } catch {
            throw WriteError(description: "cannot make the set's certificates: \(error.description)")
        }
    }
}
