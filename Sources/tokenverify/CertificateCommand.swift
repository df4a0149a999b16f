import ArgumentParser
import Foundation
import TokenTools
import TokenVerifier

extension TokenVerify {
    /// `tokenverify certificate`: X.509 v3 certificates from the project's JWKs (spec §3b, §7).
    struct IssueCertificate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "certificate",
            abstract: "Issue an X.509 certificate for a key: a self-signed root, an intermediate CA or a leaf.",
            discussion: """
                The subject key is a JWK as keygen writes it (Ed25519 or P-256; a root needs the private one, others may be the public one). A root is self-signed (--ca, no issuer); an intermediate (--ca, optionally --path-length) and a leaf (no --ca) are signed with --issuer-key, the private key of --issuer-cert, which must be a CA. Extensions: basicConstraints (critical; CA with the path length when given), keyUsage (critical; keyCertSign and cRLSign for a CA, digitalSignature for a leaf), subjectKeyIdentifier, authorityKeyIdentifier and, with --uri or --dns, subjectAltName. A leaf's names bind token issuers: a token's iss must be one of its URIs or DNS names (spec §3b). The certificate is written as PEM.

                Example: root, intermediate and leaf for tokens of iss https://op.example.
                  tokenverify certificate --ca --key root.private.jwk --subject CN=Root \\
                      --out root.pem
                  tokenverify certificate --ca --path-length 0 --key ca1.jwks \\
                      --subject CN=CA1 --issuer-cert root.pem --issuer-key root.private.jwk \\
                      --out ca1.pem
                  tokenverify certificate --key signer.jwks --subject CN=signer-1 \\
                      --uri https://op.example --issuer-cert ca1.pem \\
                      --issuer-key ca1.private.jwk --out leaf.pem
                  cat leaf.pem ca1.pem > chain.pem
                  tokenverify sign --key signer.private.jwk --chain chain.pem < claims.jsonl
                """
        )

        @Option(name: .long, help: ArgumentHelp("The subject's JWK (private or public).", valueName: "file"))
        var key: String

        @Option(name: .long, help: ArgumentHelp("The subject name, as \"CN=name,O=org\".", valueName: "name"))
        var subject: String

        @Flag(name: .long, help: "Issue a CA certificate (a root without --issuer-cert, else an intermediate).")
        var ca = false

        @Option(name: .long, help: ArgumentHelp("A CA's pathLenConstraint.", valueName: "n"))
        var pathLength: Int?

        @Option(name: .long, help: ArgumentHelp("The issuer's certificate (PEM).", valueName: "file"))
        var issuerCert: String?

        @Option(name: .long, help: ArgumentHelp("The issuer's private JWK.", valueName: "file"))
        var issuerKey: String?

        @Option(name: .long, help: ArgumentHelp("A subjectAltName URI (repeatable).", valueName: "uri"))
        var uri: [String] = []

        @Option(name: .long, help: ArgumentHelp("A subjectAltName DNS name (repeatable).", valueName: "name"))
        var dns: [String] = []

        @Option(
            name: .long, help: ArgumentHelp("Valid from: NumericDate or RFC 3339 (default: now).", valueName: "time"))
        var notBefore: String?

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Valid until: NumericDate or RFC 3339 (default: 365 days after --not-before).", valueName: "time"))
        var notAfter: String?

        @Option(
            name: .long,
            help: ArgumentHelp("The serial number, decimal or 0x-hexadecimal (default: random).", valueName: "n"))
        var serial: String?

        @Option(name: .long, help: ArgumentHelp("Write the PEM here instead of to standard output.", valueName: "file"))
        var out: String?

        func validate() throws {
            for (name, value) in [("--not-before", notBefore), ("--not-after", notAfter)] {
                try TimeOptionRules.validate(time: value, name, whole: true)
            }
            if let serial, CertificateRequest.parseSerial(serial) == nil {
                throw ValidationError("--serial must be a decimal number or 0x followed by hexadecimal digits")
            }
            if (issuerCert == nil) != (issuerKey == nil) {
                throw ValidationError(
                    "--issuer-cert and --issuer-key go together (a root has neither: it signs itself with --key)")
            }
        }

        func run() throws {
            let subjectKey = readOrExit(key) { bytes throws(CertificateProblem) in try CertificateKey(jwk: bytes) }
            let signer: CertificateIssuer.Signer
            if let issuerCert, let issuerKey {
                let certificates = readOrExit(issuerCert) { bytes throws(CertificateProblem) in
                    try Certificate.read(pem: bytes)
                }
                if certificates.count > 1 {
                    ConfigurationError(
                        description: "\(issuerCert): holds \(certificates.count) certificates; give the issuer's alone"
                    )
                    .exit()
                }
                signer = .issuer(certificates[0], loadSigningKey(path: issuerKey, kid: nil, command: "certificate"))
            } else {
                signer = .selfSigned
            }
            // Both within years 1 to 9999 (validate): whole seconds that fit an Int64.
            let start = Int64(notBefore.map(TimeOptionRules.time) ?? Date().timeIntervalSince1970.rounded(.down))
            let end = notAfter.map { Int64(TimeOptionRules.time($0)) } ?? start + 365 * 86_400
            do {
                let request = CertificateRequest(
                    subject: try CertificateRequest.parseSubject(subject),
                    serial: serial.flatMap(CertificateRequest.parseSerial) ?? CertificateRequest.randomSerial(),
                    notBefore: start, notAfter: end, isCA: ca, pathLength: pathLength, uris: uri, dnsNames: dns)
                let (certificate, warnings) = try CertificateIssuer.issue(
                    request, subjectKey: subjectKey, signer: signer)
                for warning in warnings { printError("tokenverify: warning: \(warning)") }
                write(certificate.pem)
            } catch {
                ConfigurationError(description: error.description).exit()
            }
        }

        private func write(_ pem: String) {
            guard let out else {
                FileHandle.standardOutput.write(Data(pem.utf8))
                return
            }
            do {
                try pem.write(toFile: out, atomically: true, encoding: .utf8)
            } catch {
                ConfigurationError(description: "cannot write \(out): \(error.localizedDescription)").exit()
            }
        }
    }
}

/// Reads the file at `path` and makes something of its bytes; a file that cannot be read or
/// made into one stops the command naming it (exit status 2).
func readOrExit<T>(_ path: String, _ make: ([UInt8]) throws(CertificateProblem) -> T) -> T {
    let bytes = FileOptionRules.read(path)
    do {
        return try make(bytes)
    } catch {
        ConfigurationError(description: "\(path): \(error.description)").exit()
    }
}

/// The chain of `sign --chain` and `status-list --chain`: a PEM file of certificates, leaf first,
/// whose leaf holds `key` (else exit status 2 naming both).
func loadChain(path: String, signingKey key: SigningKey) -> TokenChain {
    readOrExit(path) { bytes throws(CertificateProblem) in
        try TokenChain(Certificate.read(pem: bytes), signingKey: key)
    }
}
