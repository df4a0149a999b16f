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
            Tokens are JWS/JWT (Ed25519, EdDSA or ES256) that let one device send certain commands to one object over certain channels for a time window. `verify` reads tokens or JSON requests, one a line, and answers one JSON line each.

            Examples:
              tokenverify keys import public.pem > keys.jwks
              tokenverify verify --keys keys.jwks < requests.jsonl
              tokenverify keygen --alg EdDSA --kid op-2026 --out op-2026
              tokenverify sign --key op-2026.private.jwk < claims.jsonl
              tokenverify inspect eyJhbGciOi...
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
