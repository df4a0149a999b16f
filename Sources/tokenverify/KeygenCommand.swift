import ArgumentParser
import Foundation
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify keygen`: a private JWK for signing and its public JWKS entry.
    struct Keygen: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Generate a signing key: a private JWK and its public JWKS.",
            discussion: """
                Without --out, prints one JSON object: {"private_jwk": {…}, "public_jwks": {"keys": [{…}]}}. With --out NAME, writes NAME.private.jwk (mode 600) and NAME.jwks.

                EdDSA (RFC 8037) is the compatible choice: PyJWT 2.15 and jose 4 know EdDSA but not Ed25519 (RFC 9864), which names the same signature.
                """
        )

        @Option(name: .long, help: "The algorithm the key signs with.")
        var alg: SignatureAlgorithm

        @Option(name: .long, help: "The key id (default: a random one).")
        var kid: String?

        @Option(name: .long, help: "The key's environment.")
        var env: Environment?

        @Option(name: .long, help: "The key's issuer (tokens it verifies must carry this iss).")
        var iss: String?

        @Option(
            name: .long,
            help: ArgumentHelp("Write NAME.private.jwk and NAME.jwks instead of printing.", valueName: "name"))
        var out: String?

        func run() throws {
            let keyID = kid ?? "key-" + Base64URL.encodeString((0..<6).map { _ in UInt8.random(in: 0...255) })
            let key = SigningKey.generate(algorithm: alg, keyID: keyID, environment: env, issuer: iss)
            let publicJWKS = "{\"keys\":[\(key.publicJWK)]}"
            guard let out else {
                print("{\"private_jwk\":\(key.privateJWK),\"public_jwks\":\(publicJWKS)}")
                return
            }
            let privatePath = out + ".private.jwk"
            guard
                FileManager.default.createFile(
                    atPath: privatePath, contents: Data((key.privateJWK + "\n").utf8),
                    attributes: [.posixPermissions: 0o600])
            else {
                ConfigurationError(description: "cannot write \(privatePath)").exit()
            }
            do {
                try (publicJWKS + "\n").write(toFile: out + ".jwks", atomically: true, encoding: .utf8)
            } catch {
                ConfigurationError(description: "cannot write \(out).jwks: \(error.localizedDescription)").exit()
            }
            printError("tokenverify: wrote \(privatePath) (private, keep it secret) and \(out).jwks (public key set)")
        }
    }
}
