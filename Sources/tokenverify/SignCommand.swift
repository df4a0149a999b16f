import ArgumentParser
import Foundation
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify sign`: claims JSON lines in, compact tokens out.
    struct Sign: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign claims: JSON lines in, JWS or CWT tokens out; claims verify calls malformed are refused.",
            discussion: """
                The header is {"alg": <the key's alg>, "kid": <the key's kid>, "typ": "JWT"}. The claims are signed exactly as written on the line (after trimming). A line that is not a JSON object, or whose token verify would answer malformed_token (a required claim missing, a claim of the wrong type, a time outside 0001-01-01 … 9999-12-31; spec §2, §2b), is reported on stderr naming the line and the claim, and skipped; the exit status is then 1. --allow-malformed signs such claims anyway (for test sets).

                With --format cwt each line becomes a CWT (spec §2b): a COSE_Sign1 message under tag 18, written as base64url of its CBOR bytes (no dot). Its protected header is {1: alg (-19 Ed25519, -8 EdDSA, -7 ES256), 4: kid as a byte string}; the claims become a CBOR map in which iss, sub, aud, exp, nbf, iat and jti are the keys 1 to 7 (jti as a text cti) and every other name stays a text key. ES256 signatures are deterministic (RFC 6979).

                With --chain PEM (certificates leaf first, as `tokenverify certificate` writes them; the root may be left out) the token carries the chain in place of the kid (spec §3b): the JWS header is {"alg", "typ": "JWT", "x5c": [standard base64 DER, leaf first]}, the CWT protected header {1: alg, 33: x5chain} (one byte string for one certificate, else an array of them). The leaf certificate must hold the signing key.
                """
        )

        @Option(name: .long, help: ArgumentHelp("The private JWK to sign with.", valueName: "file"))
        var key: String

        @Option(
            name: .long,
            help:
                "With a file of private keys, one a line (as gen writes signing-keys.jwk): the kid of the key to sign with."
        )
        var kid: String?

        @Option(name: .long, help: "jws (compact tokens) or cwt (base64url CWTs, COSE_Sign1).")
        var format: TokenFormat = .jws

        @Option(name: .long, help: chainHelp)
        var chain: String?

        @Flag(
            name: .long,
            help: "Sign claims that verify would answer malformed_token (for test sets of malformed tokens).")
        var allowMalformed = false

        @Argument(help: ArgumentHelp("Files of claims lines (default: standard input).", valueName: "file"))
        var files: [String] = []

        func run() throws {
            let signingKey = loadSigningKey(path: key, kid: kid)
            let tokenChain = chain.map { loadChain(path: $0, signingKey: signingKey) }
            let cwtSigner = CWTSigner(key: signingKey, chain: tokenChain)
            let jwsHeader = tokenChain?.jwsHeader(algorithm: signingKey.algorithm, type: "JWT")
            var failures = 0
            var output = ""
            for (name, text) in try inputs() {
                for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let claims = line.trimmingCharacters(in: .whitespaces.union(.init(charactersIn: "\r")))
                    if claims.isEmpty { continue }
                    if let problem = Self.objectProblem(claims) {
                        printError("tokenverify: \(name):\(index + 1): not a JSON object of claims: \(problem)")
                        failures += 1
                        continue
                    }
                    let token = try sign(Array(claims.utf8), cwtSigner: cwtSigner, jwsHeader: jwsHeader)
                    if !allowMalformed, let problem = Self.malformedProblem(token) {
                        printError("tokenverify: \(name):\(index + 1): verify would answer malformed_token: \(problem)")
                        failures += 1
                        continue
                    }
                    output += token + "\n"
                    if output.utf8.count > 1 << 16 {
                        FileHandle.standardOutput.write(Data(output.utf8))
                        output = ""
                    }
                }
            }
            FileHandle.standardOutput.write(Data(output.utf8))
            if failures > 0 { throw ExitCode(1) }
        }

        /// One token over `claims`: a CWT, or a JWS with the standard header or `jwsHeader`.
        private func sign(_ claims: [UInt8], cwtSigner: CWTSigner, jwsHeader: [UInt8]?) throws(JSONError) -> String {
            if format == .cwt { return try cwtSigner.sign(claims: claims) }
            guard let jwsHeader else { return cwtSigner.key.sign(claims: claims) }
            return cwtSigner.key.sign(header: jwsHeader, claims: claims)
        }

        private func inputs() throws -> [(String, String)] {
            if files.isEmpty || files == ["-"] {
                return [("<stdin>", String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self))]
            }
            return files.map { file in
                guard let data = FileManager.default.contents(atPath: file) else {
                    ConfigurationError(description: "\(file): cannot read").exit()
                }
                return (file, String(decoding: data, as: UTF8.self))
            }
        }

        /// Why `verify` would answer `token` `malformed_token` (the verifier's own parser: claims
        /// missing, of the wrong type or outside the times represented), or nil.
        static func malformedProblem(_ token: String) -> String? {
            guard case .failure(let error) = CompactToken.parse(token.utf8) else { return nil }
            return error.description
        }

        /// Why `text` is not a strict JSON object, or nil.
        static func objectProblem(_ text: String) -> String? {
            guard text.hasPrefix("{") else { return "it does not start with {" }
            return JSONValidation.problem(in: Array(text.utf8))
        }
    }
}

extension TokenFormat: ExpressibleByArgument {}
