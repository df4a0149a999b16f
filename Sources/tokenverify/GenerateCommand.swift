import ArgumentParser
import Foundation
import TokenGen
import TokenVerifier

extension TokenVerify {
    /// `tokenverify gen`: a large, reproducible token set.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "gen",
            abstract: "Generate a reproducible token set with its keys, revocations and expected verdicts.",
            discussion: """
                Writes into --out: keys.jwks (public), signing-keys.jwk (private, one a line), revocations.jsonl, tokens.txt (bare tokens), requests.jsonl (JSON requests with context) and expected.jsonl (the verdict for each line of requests.jsonl when checked at --at).

                Example:
                  tokenverify gen --count 100000 --seed 7 --realistic --out set
                  tokenverify verify --keys set/keys.jwks --at 1800000000 \\
                    --revocations set/revocations.jsonl set/requests.jsonl
                """
        )

        @Option(name: .long, help: "Number of tokens.") var count: Int
        @Option(name: .long, help: "Seed: the same seed gives the same set.") var seed: UInt64 = 1
        @Option(name: .long, help: ArgumentHelp("Directory to write into (created if missing).", valueName: "dir")) var out: String
        @Flag(name: .long, help: "Use a realistic mix (5% expired, 5% revoked, 3% tampered, 7% wrong context, 10% repeated).")
        var realistic = false
        @Option(name: .long, help: "Share of ES256 tokens (0...1).") var es256Share: Double = 0.5
        @Option(name: .long, help: "Share of expired tokens.") var expiredShare: Double?
        @Option(name: .long, help: "Share of revoked tokens.") var revokedShare: Double?
        @Option(name: .long, help: "Share of tampered tokens.") var tamperedShare: Double?
        @Option(name: .long, help: "Share of requests outside the token's grant.") var wrongContextShare: Double?
        @Option(name: .long, help: "Share of lines repeating an earlier token.") var repeatShare: Double?
        @Option(name: .long, help: "The alg of Ed25519 tokens: Ed25519 or EdDSA.") var edAlg: String = "Ed25519"
        @Option(name: .long, help: "Extra revocation entries that match no token.") var revocationPadding: Int = 0
        @Option(name: .long, help: "Check time the verdicts assume (NumericDate).") var at: Double = 1_800_000_000

        func validate() throws {
            if count < 0 { throw ValidationError("--count must not be negative") }
            let shares = [es256Share, expiredShare ?? 0, revokedShare ?? 0, tamperedShare ?? 0, wrongContextShare ?? 0, repeatShare ?? 0]
            if shares.contains(where: { !(0...1).contains($0) }) { throw ValidationError("shares must be between 0 and 1") }
            if edAlg != "Ed25519" && edAlg != "EdDSA" { throw ValidationError("--ed-alg must be Ed25519 or EdDSA") }
        }

        func run() throws {
            var spec = realistic ? TokenSetSpec.realistic(count: count, seed: seed) : TokenSetSpec(count: count, seed: seed)
            spec.es256Share = es256Share
            if let expiredShare { spec.expiredShare = expiredShare }
            if let revokedShare { spec.revokedShare = revokedShare }
            if let tamperedShare { spec.tamperedShare = tamperedShare }
            if let wrongContextShare { spec.wrongContextShare = wrongContextShare }
            if let repeatShare { spec.repeatShare = repeatShare }
            spec.revocationPadding = revocationPadding
            spec.ed25519Algorithm = edAlg == "EdDSA" ? .edDSA : .ed25519
            spec.checkTime = at
            let set = TokenSetGenerator.generate(spec)
            do {
                try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
                func write(_ name: String, _ lines: [String]) throws {
                    var text = lines.joined(separator: "\n")
                    if !lines.isEmpty { text += "\n" }
                    try Data(text.utf8).write(to: URL(fileURLWithPath: out).appendingPathComponent(name))
                }
                try write("keys.jwks", [set.keySet])
                try write("signing-keys.jwk", set.privateKeys)
                try write("revocations.jsonl", set.revocations)
                try write("tokens.txt", set.tokens)
                try write("requests.jsonl", set.requests)
                try write("expected.jsonl", set.expectedLines)
            } catch {
                ConfigurationError(description: "cannot write into \(out): \(error.localizedDescription)").exit()
            }
            let invalid = set.expected.filter { $0 != nil }.count
            printError("tokenverify: wrote \(counted(count, "token")) (\(count - invalid) valid at \(Int(at))), \(counted(set.revocations.count, "revocation")) into \(out)")
        }
    }
}
