import ArgumentParser
import Foundation
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify status-list`: entries in, a signed Status List Token out (spec §7).
    struct StatusList: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status-list",
            abstract: "Build and sign a Status List Token: {\"idx\":I,\"status\":V} lines in, the token out.",
            discussion: """
                Every entry the input does not name is 0x00 (VALID); 0x01 is INVALID, 0x02 SUSPENDED, 0x03 and 0x0C–0x0F application-specific. The list (draft-ietf-oauth-status-list: `bits` bits an entry, least significant bits first, ZLIB-compressed) is signed as a JWS with typ statuslist+jwt, or with --format cwt as a COSE_Sign1 under tag 18 with typ application/statuslist+cwt, written as base64url. Tokens refer to an entry with the claim "status":{"status_list":{"idx":I,"uri":U}} (CWT: claim 65535). An index named twice takes its last value.

                With --chain PEM (certificates leaf first; the root may be left out) the token carries the chain in place of the kid: x5c in the JWS header, x5chain (label 33) in the CWT protected header (spec §3b). The leaf certificate must hold the signing key, and --iss is required: one of the leaf's URIs or DNS names, which verify binds the list to.
                """
        )

        @Option(name: .long, help: ArgumentHelp("The private JWK to sign with.", valueName: "file"))
        var key: String

        @Option(name: .long, help: "With a file of private keys, one a line: the kid of the key to sign with.")
        var kid: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "The list's URI (its sub): what tokens name in status.status_list.uri.", valueName: "uri"))
        var uri: String

        @Option(name: .long, help: "Bits per entry: 1, 2, 4 or 8.")
        var bits: Int = 1

        @Option(name: .long, help: ArgumentHelp("Number of entries.", valueName: "count"))
        var size: Int

        @Option(name: .long, help: "jws or cwt.")
        var format: TokenFormat = .jws

        @Option(
            name: .long, help: ArgumentHelp("Issued at: NumericDate or RFC 3339 (default: now).", valueName: "time"))
        var iat: String?

        @Option(name: .long, help: ArgumentHelp("Expires at: NumericDate or RFC 3339.", valueName: "time"))
        var exp: String?

        @Option(
            name: .long,
            help: ArgumentHelp("Seconds the list may be cached before it is fetched again.", valueName: "seconds"))
        var ttl: Int64?

        @Option(
            name: .long, help: ArgumentHelp("The list's issuer (its iss claim); needed with --chain.", valueName: "iss")
        )
        var iss: String?

        @Option(name: .long, help: chainHelp)
        var chain: String?

        @Argument(
            help: ArgumentHelp("Files of {\"idx\":I,\"status\":V} lines (default: standard input).", valueName: "file"))
        var files: [String] = []

        func validate() throws {
            guard [1, 2, 4, 8].contains(bits) else { throw ValidationError("--bits must be 1, 2, 4 or 8") }
            guard size > 0, size <= 1 << 34 else { throw ValidationError("--size must be between 1 and 2^34 entries") }
            if let ttl, ttl <= 0 || Double(ttl) > NumericDate.latest {
                throw ValidationError(
                    "--ttl must be a positive number of seconds, at most \(Int64(NumericDate.latest))")
            }
            if chain != nil, iss == nil {
                throw ValidationError(
                    "--chain needs --iss: a list signed under a certificate chain names its issuer, one of the leaf's URIs or DNS names (spec §3b)"
                )
            }
            for (name, value) in [("--iat", iat), ("--exp", exp)] {
                try TimeOptionRules.validate(time: value, name)
            }
        }

        func run() throws {
            let signingKey = loadSigningKey(path: key, kid: kid)
            let tokenChain = chain.map { loadChain(path: $0, signingKey: signingKey) }
            var statuses: [Int: UInt8] = [:]
            for (name, bytes) in inputs() {
                for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
                    .enumerated()
                {
                    let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                    if text.isEmpty { continue }
                    guard let (index, value) = Self.entry(text) else {
                        ConfigurationError(
                            description:
                                "\(name):\(number + 1): expected {\"idx\": I, \"status\": V} with 0 ≤ I and 0 ≤ V ≤ 255"
                        ).exit()
                    }
                    statuses[index] = value
                }
            }
            // Within years 1 to 9999 (validate): whole seconds that fit an Int64.
            let issued = iat.map(TimeOptionRules.time) ?? Date().timeIntervalSince1970.rounded(.down)
            do {
                let token = try StatusListIssuer(key: signingKey, chain: tokenChain).sign(
                    uri: uri, bits: bits, size: size, statuses: statuses, format: format, issuedAt: Int64(issued),
                    expiresAt: exp.map { Int64(TimeOptionRules.time($0)) }, timeToLive: ttl, issuer: iss)
                print(token)
            } catch {
                ConfigurationError(description: error.description).exit()
            }
        }

        /// One `{"idx": I, "status": V}` line.
        static func entry(_ text: String) -> (Int, UInt8)? {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                object.count == 2,
                let index = object["idx"] as? Int, index >= 0, let value = object["status"] as? Int,
                (0...255).contains(value)
            else { return nil }
            return (index, UInt8(value))
        }

        private func inputs() -> [(String, [UInt8])] {
            if files.isEmpty || files == ["-"] {
                return [("<stdin>", [UInt8](FileHandle.standardInput.readDataToEndOfFile()))]
            }
            return files.map { file in
                guard let data = FileManager.default.contents(atPath: file) else {
                    ConfigurationError(description: "\(file): cannot read").exit()
                }
                return (file, [UInt8](data))
            }
        }
    }
}
