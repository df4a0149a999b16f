import ArgumentParser
import Foundation
import TokenConcurrency
import TokenFormats
import TokenGen
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify gen`: a large, reproducible token set, streamed to disk in bounded memory.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gen",
            abstract: "Generate a reproducible token set with its keys, revocations and expected verdicts.",
            discussion: """
                Writes into --out: keys.jwks (public), signing-keys.jwk (private, one a line), revocations.jsonl, tokens.txt (bare tokens), requests.jsonl (JSON requests with context) and expected.jsonl (the verdict for each line of requests.jsonl when checked at --at); with --step-share, also step-policy.json and device-steps.jsonl (verify with --step-policy and --device-steps); with --chain-share, also anchors.pem, the root the chained tokens validate to (verify with --trust-anchors int=SET/anchors.pem).

                Tokens are made in blocks signed in parallel and written in order, so memory stays flat whatever --count is; every file is written as NAME.partial and renamed when all are complete. The same seed gives the same files on any machine and thread count (ES256 nonces follow RFC 6979).

                Example:
                  tokenverify gen --count 100000 --seed 7 --realistic --out set
                  tokenverify verify --keys set/keys.jwks --at 1800000000 \\
                    --revocations set/revocations.jsonl set/requests.jsonl
                """
        )

        @Option(name: .long, help: "Number of tokens.") var count: Int
        @Option(name: .long, help: "Seed: the same seed gives the same set.") var seed: UInt64 = 1
        @Option(
            name: .long,
            help: ArgumentHelp(
                "Directory to write into (created if missing; must be empty unless --force).", valueName: "dir"))
        var out: String
        @Flag(name: .long, help: "Replace the set files in a directory that is not empty.") var force = false
        @Flag(
            name: .long,
            help: "Use a realistic mix (5% expired, 5% revoked, 3% tampered, 7% wrong context, 10% repeated).")
        var realistic = false
        @Option(name: .long, help: "Share of ES256 tokens (0...1).") var es256Share: Double = 0.5
        @Option(name: .long, help: "Share of expired tokens.") var expiredShare: Double?
        @Option(name: .long, help: "Share of revoked tokens.") var revokedShare: Double?
        @Option(name: .long, help: "Share of tampered tokens.") var tamperedShare: Double?
        @Option(name: .long, help: "Share of requests outside the token's grant.") var wrongContextShare: Double?
        @Option(name: .long, help: "Share of lines repeating an earlier token (from the same block of 4096 lines).")
        var repeatShare: Double?
        @Option(name: .long, help: "The alg of Ed25519 tokens: Ed25519 or EdDSA.") var edAlg: String = "Ed25519"
        @Option(
            name: .long,
            help:
                "Share of device–object pairs with security steps still todo (spec §4b): adds step-policy.json and device-steps.jsonl, and step_required verdicts."
        )
        var stepShare: Double = 0

        @Option(
            name: .long,
            help: "Share of tokens written as CWTs (spec §2b: COSE_Sign1, base64url, no dot) instead of JWS.")
        var cwtShare: Double = 0
        @Option(
            name: .long,
            help:
                "Share of tokens with a status claim (spec §4c): adds status-lists/ (a JWS list for the JWS tokens, a CWT list for the CWTs; verify with --status-lists SET/status-lists)."
        )
        var statusShare: Double = 0
        @Option(name: .long, help: "Of the tokens with a status claim, the share whose entry is 0x01 INVALID.")
        var statusInvalidShare: Double = 0.05
        @Option(name: .long, help: "Of the tokens with a status claim, the share whose entry is 0x02 SUSPENDED.")
        var statusSuspendedShare: Double = 0.02
        @Option(
            name: .long,
            help:
                "Share of tokens carrying a certificate chain (JWS x5c, CWT x5chain: leaf + intermediate) in place of a kid (spec §3b): adds anchors.pem (the root); verify with --trust-anchors int=SET/anchors.pem."
        )
        var chainShare: Double = 0
        @Option(name: .long, help: "Distinct leaf certificates per algorithm for --chain-share (1...65536).")
        var chainLeaves: Int = 256
        @Flag(
            name: .long,
            help:
                "Chained JWS tokens also carry their signing key's kid: verified by the chain with --trust-anchors, by the kid without (the same tokens both ways)."
        )
        var chainKids = false
        @Option(name: .long, help: "Extra revocation entries that match no token.") var revocationPadding: Int = 0
        @Option(name: .long, help: "Check time the verdicts assume (NumericDate).") var at: Double = 1_800_000_000
        @Option(name: .long, help: "Signing threads (default: all cores). The output does not depend on it.")
        var threads: Int?
        @Flag(
            name: .long,
            help:
                "Also measure the raw signing rate of libsodium and OpenSSL on the same threads (1 s each, before and after) and print the ratio."
        )
        var compareRaw = false
        @Flag(name: .long, help: "No summary or progress on stderr.") var quiet = false

        func validate() throws {
            if count < 0 { throw ValidationError("--count must not be negative") }
            if revocationPadding < 0 { throw ValidationError("--revocation-padding must not be negative") }
            if let threads, threads < 1 || threads > 512 {
                throw ValidationError("--threads must be between 1 and 512")
            }
            let shares = [
                es256Share, expiredShare ?? 0, revokedShare ?? 0, tamperedShare ?? 0, wrongContextShare ?? 0,
                repeatShare ?? 0, stepShare, cwtShare, chainShare,
                statusShare, statusInvalidShare, statusSuspendedShare,
            ]
            if shares.contains(where: { !(0...1).contains($0) }) {
                throw ValidationError("shares must be between 0 and 1")
            }
            if statusInvalidShare + statusSuspendedShare > 1 {
                throw ValidationError("--status-invalid-share and --status-suspended-share add up to more than 1")
            }
            if !(1...65536).contains(chainLeaves) { throw ValidationError("--chain-leaves must be 1 to 65536") }
            if edAlg != "Ed25519" && edAlg != "EdDSA" { throw ValidationError("--ed-alg must be Ed25519 or EdDSA") }
            // The set's certificates are valid a year on each side of --at, its tokens a month
            // after it: all of it within the times the engine represents (spec §2).
            let margin = 366 * 86_400.0
            guard at >= NumericDate.earliest + margin, at <= NumericDate.latest - margin else {
                throw ValidationError(
                    "--at must be a NumericDate from \(Int64(NumericDate.earliest + margin)) to \(Int64(NumericDate.latest - margin)) (a year inside \(NumericDate.rangeText)), not \(at)"
                )
            }
        }

        private var spec: TokenSetSpec {
            var spec =
                realistic ? TokenSetSpec.realistic(count: count, seed: seed) : TokenSetSpec(count: count, seed: seed)
            spec.es256Share = es256Share
            if let expiredShare { spec.expiredShare = expiredShare }
            if let revokedShare { spec.revokedShare = revokedShare }
            if let tamperedShare { spec.tamperedShare = tamperedShare }
            if let wrongContextShare { spec.wrongContextShare = wrongContextShare }
            if let repeatShare { spec.repeatShare = repeatShare }
            spec.revocationPadding = revocationPadding
            spec.stepShare = stepShare
            spec.cwtShare = cwtShare
            spec.chainShare = chainShare
            spec.chainLeaves = chainLeaves
            spec.chainKeyIDs = chainKids
            spec.statusShare = statusShare
            spec.statusInvalidShare = statusInvalidShare
            spec.statusSuspendedShare = statusSuspendedShare
            spec.ed25519Algorithm = edAlg == "EdDSA" ? .edDSA : .ed25519
            spec.checkTime = at
            return spec
        }

        func run() throws {
            let threads = self.threads ?? activeProcessorCount()
            do { try OutputDirectory.prepare(out, force: force) } catch {
                ConfigurationError(description: error.description).exit()
            }
            let spec = self.spec
            // SIGINT, SIGTERM and SIGHUP stop the generator, which removes its temporary files.
            ProcessSignals.install(reloadOnHangUp: false)
            let rawBefore = compareRaw ? RawSigningRate(es256Share: spec.es256Share, threads: threads) : nil
            let showProgress = !quiet && isatty(2) == 1
            let progress = showProgress ? GenerationProgress(total: count) : nil
            let summary: TokenSetSummary?
            do {
                summary = try TokenSetFiles.write(
                    spec, to: out, threads: threads,
                    progress: progress.map { meter in { meter.update($0, $1) } },
                    shouldStop: { ProcessSignals.stopRequested })
            } catch {
                progress?.clear()
                ConfigurationError(description: error.description).exit()
            }
            progress?.clear()
            guard let summary else {
                printError("tokenverify: gen stopped by signal; no set was written into \(out)")
                throw ExitCode(130)
            }
            if quiet { return }
            let rate = summary.seconds > 0 ? Double(summary.lines) / summary.seconds : 0
            let steps = stepShare > 0 ? ", \(summary.stepRequired) step_required" : ""
            printError(
                "tokenverify: wrote \(counted(summary.lines, "token", "tokens")) (\(summary.valid) valid at \(Int(at))\(steps)), \(counted(summary.revocations, "revocation", "revocations")) into \(out) in \(String(format: "%.1f", summary.seconds)) s: \(Int(saturating: rate)) tokens/s on \(counted(threads, "thread", "threads"))"
            )
            if let rawBefore {
                let rawAfter = RawSigningRate(es256Share: spec.es256Share, threads: threads)
                let raw = (rawBefore.mix.perSecond + rawAfter.mix.perSecond) / 2
                let rawPerCPU = (rawBefore.mix.perCPUSecond + rawAfter.mix.perCPUSecond) / 2
                let signedRate = Double(summary.signedTokens) / summary.seconds
                let signedPerCPU = Double(summary.signedTokens) / summary.cpuSeconds
                func ratio(_ value: Double) -> String { String(format: "%.2f", value) }
                printError(
                    "tokenverify: raw signing rate for this mix (\(Int(spec.es256Share * 100))% ES256) on \(threads) threads: \(Int(saturating: raw))/s "
                        + "(Ed25519 \(Int(saturating: (rawBefore.ed25519.perSecond + rawAfter.ed25519.perSecond) / 2))/s, ES256 \(Int(saturating: (rawBefore.es256.perSecond + rawAfter.es256.perSecond) / 2))/s, before and after); "
                        + "gen signed \(Int(saturating: signedRate)) tokens/s = \(ratio(signedRate / raw)) of raw (\(ratio(rate / raw)) counting repeated lines); "
                        + "per CPU second: gen \(Int(saturating: signedPerCPU)) signed, raw \(Int(saturating: rawPerCPU)) = \(ratio(signedPerCPU / rawPerCPU))"
                )
            }
        }
    }
}

/// The raw signing rates around a run, for `--compare-raw`.
private struct RawSigningRate {
    var ed25519 = SigningRate.Rate(perSecond: 0, perCPUSecond: 0),
        es256 = SigningRate.Rate(perSecond: 0, perCPUSecond: 0)
    var mix: SigningRate.Rate

    init(es256Share: Double, threads: Int) {
        if es256Share < 1 { ed25519 = SigningRate.measure(es256: false, threads: threads, seconds: 1) }
        if es256Share > 0 { es256 = SigningRate.measure(es256: true, threads: threads, seconds: 1) }
        mix = SigningRate.Rate(
            perSecond: SigningRate.mixRate(
                es256Share: es256Share, ed25519Rate: ed25519.perSecond, es256Rate: es256.perSecond),
            perCPUSecond: SigningRate.mixRate(
                es256Share: es256Share, ed25519Rate: ed25519.perCPUSecond, es256Rate: es256.perCPUSecond))
    }
}
