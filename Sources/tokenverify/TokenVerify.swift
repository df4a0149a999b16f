import ArgumentParser
import LineProtocol
import TokenVerifier

#if canImport(Glibc)
import Glibc
#endif

/// `tokenverify`: verify signed access tokens for digital car keys, in bulk and in streams.
@main
struct TokenVerify: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokenverify",
        abstract: "Verify signed access tokens for digital car keys, in bulk and in streams.",
        discussion: """
            Tokens let one device send certain commands to one object over certain channels for a time window. Two formats, checked by the same rules: JWS/JWT compact tokens (three base64url segments) and CWTs (base64url of a COSE_Sign1 message, no dot, spec §2b), signed with Ed25519, EdDSA or ES256. `verify` reads tokens or JSON requests, one a line, and answers one JSON line each (or an Arrow stream with --output-format arrow).

            Keys: --keys takes JWKS key sets (files or folders), the key found by kid. --trust-anchors takes root certificates (PEM): a token that carries its certificate chain (x5c, x5chain) is verified with its leaf's key when the chain validates to an anchor (spec §3b). `certificate` issues roots, intermediates and leaves; `sign --chain` signs with one.

            Revocation: --revocations takes revocation lists, JSON lines that revoke a token, a device, an object, a grant or a key. --status-lists takes IETF Token Status Lists (JWS or CWT, spec §4c): a token whose status claim names a list is checked against the list in force at its check time. `status-list` signs one.

            Staying current: verify reloads changed files (write a new file, rename it into place) and on SIGHUP. `fetch` downloads key sets and Status List Tokens over HTTPS into the folders verify follows, and with --watch keeps them current. --metrics-file writes Prometheus text metrics (verify, and fetch with --watch); --summary-file writes verify's end-of-run summary.

            Examples:
              tokenverify keys import public.pem > keys.jwks
              tokenverify verify --keys keys.jwks < requests.jsonl
              tokenverify verify --keys state/keys --status-lists state/status-lists
              tokenverify verify --trust-anchors roots.pem --metrics-file verify.prom
              tokenverify keygen --alg EdDSA --kid op-2026 --out op-2026
              tokenverify sign --key op-2026.private.jwk --format cwt < claims.jsonl
              tokenverify inspect tokens.txt
              tokenverify fetch --keys https://op.example/jwks --out state --watch
            """,
        version: "tokenverify \(Version.number)",
        subcommands: [
            Verify.self, Keys.self, Keygen.self, Sign.self, StatusList.self, Generate.self, Inspect.self, Fetch.self,
            IssueCertificate.self, Version.self,
        ]
    )

    /// Runs the command; usage and configuration errors exit with status 2 (spec §6).
    static func main() {
        if let problem = SubcommandSuggestion.problem(in: Array(CommandLine.arguments.dropFirst())) {
            printError("Error: \(problem)")
            Glibc.exit(2)
        }
        if case .failure(let problem) = SignaturePathCap.parse(
            getenv(SignaturePathCap.variable).map { String(cString: $0) })
        {
            printError("Error: \(problem)")
            Glibc.exit(2)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            if let exitCode = error as? ExitCode { Glibc.exit(exitCode.rawValue) }
            printError(fullMessage(for: error))
            if code == .validationFailure { Glibc.exit(2) }
            Glibc.exit(code.rawValue)
        }
    }
}

/// Writes a line to stderr.
func printError(_ message: String) {
    var text = message
    if !text.hasSuffix("\n") { text += "\n" }
    _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}

/// A configuration problem: the message goes to stderr and the run exits with status 2.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
}

extension ConfigurationError {
    /// Prints and exits 2.
    func exit() -> Never {
        printError("tokenverify: \(description)")
        Glibc.exit(2)
    }
}

extension Environment: ExpressibleByArgument {}
extension SignatureAlgorithm: ExpressibleByArgument {}
extension AnswerFormat: ExpressibleByArgument {}
