import Foundation
import TestSupport
import Testing

/// `tokenverify certificate` (spec §3b, §7): root → intermediate → leaf chains for each key type,
/// judged by the `openssl` command line (path validation as of a time, and the extensions it
/// reads), and the refusals that name what is wrong (exit status 2).
@Suite struct CertificateCommandTests {
    static let keyTypes: [(root: String, intermediate: String, leaf: String)] = [
        ("ES256", "ES256", "ES256"), ("EdDSA", "EdDSA", "EdDSA"), ("Ed25519", "ES256", "EdDSA"),
    ]

    /// `openssl verify` of the leaf under the root, with the intermediate untrusted, as of `time`.
    static func verify(_ chain: ChainFixture, at time: Int) throws -> (status: Int32, stdout: String, stderr: String) {
        try External.run(
            ChainFixture.openssl,
            [
                "verify", "-partial_chain", "-x509_strict", "-attime", String(time), "-CAfile", chain.path("root.pem"),
                "-untrusted", chain.path("inter.pem"), chain.path("leaf.pem"),
            ])
    }

    @Test(arguments: [0, 1, 2])
    func chainsValidateInOpenSSLWithinTheirValidity(_ index: Int) throws {
        try ChainFixture.requireOpenSSL()
        let chain = try ChainFixture(Self.keyTypes[index])
        let inside = try Self.verify(chain, at: 1_800_000_000)
        #expect(inside.status == 0 && inside.stdout.contains(": OK"), "\(inside.stdout)\(inside.stderr)")
        let before = try Self.verify(chain, at: ChainFixture.leafStart - 1)
        #expect(before.status != 0 && "\(before.stdout)\(before.stderr)".contains("not yet valid"), "\(before)")
        let after = try Self.verify(chain, at: ChainFixture.leafEnd + 1)
        #expect(after.status != 0 && "\(after.stdout)\(after.stderr)".contains("expired"), "\(after)")
        // The root alone does not vouch for the leaf: the intermediate is needed.
        let missing = try External.run(
            ChainFixture.openssl,
            ["verify", "-attime", "1800000000", "-CAfile", chain.path("root.pem"), chain.path("leaf.pem")])
        #expect(missing.status != 0, "\(missing.stdout)")
    }

    /// The text `openssl x509 -noout -text` prints for a certificate.
    static func text(_ chain: ChainFixture, _ name: String) throws -> String {
        let printed = try External.run(ChainFixture.openssl, ["x509", "-noout", "-text", "-in", chain.path(name)])
        try #require(printed.status == 0, "\(printed.stderr)")
        return printed.stdout
    }

    /// The line after the line containing `heading`, trimmed.
    static func value(after heading: String, in text: String) -> String? {
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let index = lines.firstIndex(where: { $0.hasPrefix(heading) }), index + 1 < lines.count else {
            return nil
        }
        return lines[index + 1]
    }

    @Test func opensslReadsTheExtensions() throws {
        try ChainFixture.requireOpenSSL()
        let chain = try ChainFixture(("ES256", "EdDSA", "ES256"))
        let root = try Self.text(chain, "root.pem")
        let inter = try Self.text(chain, "inter.pem")
        let leaf = try Self.text(chain, "leaf.pem")
        #expect(root.contains("Version: 3 (0x2)") && root.contains("Subject: CN = Test Root, O = Operator"))
        #expect(root.contains("Issuer: CN = Test Root, O = Operator"), "a root is self-signed")
        #expect(
            root.contains("X509v3 Basic Constraints: critical")
                && Self.value(after: "X509v3 Basic", in: root) == "CA:TRUE")
        #expect(Self.value(after: "X509v3 Basic", in: inter) == "CA:TRUE, pathlen:0")
        #expect(Self.value(after: "X509v3 Basic", in: leaf) == "CA:FALSE")
        for ca in [root, inter] {
            #expect(ca.contains("X509v3 Key Usage: critical"))
            #expect(Self.value(after: "X509v3 Key Usage", in: ca) == "Certificate Sign, CRL Sign")
        }
        #expect(leaf.contains("X509v3 Key Usage: critical"))
        #expect(Self.value(after: "X509v3 Key Usage", in: leaf) == "Digital Signature")
        #expect(
            Self.value(after: "X509v3 Subject Alternative Name", in: leaf) == "URI:https://op.example, DNS:op.example")
        #expect(leaf.contains("Serial Number: 66219 (0x102ab)"))
        #expect(
            inter.contains("ED25519") && leaf.contains("Signature Algorithm: ED25519"), "the Ed25519 CA signs the leaf")
        #expect(root.contains("ecdsa-with-SHA256"))
        // Each authorityKeyIdentifier is its issuer's subjectKeyIdentifier.
        let rootKeyID = try #require(Self.value(after: "X509v3 Subject Key Identifier", in: root))
        let interKeyID = try #require(Self.value(after: "X509v3 Subject Key Identifier", in: inter))
        #expect(rootKeyID.count == 59 && rootKeyID != interKeyID, "SHA-1 identifiers: \(rootKeyID) \(interKeyID)")
        #expect(Self.value(after: "X509v3 Authority Key Identifier", in: root) == rootKeyID)
        #expect(Self.value(after: "X509v3 Authority Key Identifier", in: inter) == rootKeyID)
        #expect(Self.value(after: "X509v3 Authority Key Identifier", in: leaf) == interKeyID)
        #expect(!root.contains("Subject Alternative Name"), "no names were asked for")
    }

    @Test func writesPEMToStandardOutputWithoutOut() throws {
        let space = try Workspace()
        _ = try Tool.run(["keygen", "--alg", "ES256", "--kid", "r", "--out", space.path("r")])
        let made = try Tool.run(["certificate", "--ca", "--key", space.path("r.private.jwk"), "--subject", "CN=r"])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        #expect(made.stdout.hasSuffix("-----END CERTIFICATE-----\n"))
        #expect(ChainFixture.ders(pem: made.stdout).count == 1)
    }

    /// Runs `certificate` with `arguments` in the chain's directory and expects exit 2 with
    /// `message` on stderr and nothing on stdout.
    static func expectRefusal(
        _ chain: ChainFixture, _ arguments: [String], _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let result = try Tool.run(
            ["certificate"] + arguments.map { $0.hasPrefix("@") ? chain.path(String($0.dropFirst())) : $0 })
        #expect(result.status == 2, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
    }

    @Test func refusesWhatCannotMakeAValidCertificate() throws {
        let chain = try ChainFixture(("ES256", "EdDSA", "ES256"))
        let leaf = ["--key", "@leaf.jwks", "--subject", "CN=x"]
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@inter.pem", "--issuer-key", "@root.private.jwk"],
            "the issuer key \"root\" (P-256) is not the key of the issuer certificate \"CN=Test CA 1,O=Operator\" (Ed25519)"
        )
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@leaf.pem", "--issuer-key", "@leaf.private.jwk"],
            "the issuer certificate \"CN=signer-1\" is not a CA")
        try Self.expectRefusal(chain, leaf, "a self-signed root and needs --ca")
        try Self.expectRefusal(chain, leaf + ["--ca"], "the subject key must be a private JWK")
        try Self.expectRefusal(
            chain, ["--ca", "--key", "@leaf.private.jwk", "--subject", "CN=x,XYZ=1"], "the subject attribute XYZ=1")
        try Self.expectRefusal(
            chain, ["--ca", "--key", "@leaf.private.jwk", "--subject", "CN=x,C=Germany"],
            "the subject attribute C=Germany")
        try Self.expectRefusal(chain, ["--ca", "--key", "@leaf.private.jwk", "--subject", "CN"], "is not NAME=value")
        try Self.expectRefusal(
            chain,
            [
                "--ca", "--key", "@leaf.private.jwk", "--subject", "CN=x", "--not-before", "1800000000", "--not-after",
                "1700000000",
            ], "not-after (1700000000) is before not-before (1800000000)")
        try Self.expectRefusal(
            chain, leaf + ["--path-length", "1", "--issuer-cert", "@inter.pem", "--issuer-key", "@inter.private.jwk"],
            "a path length is for a CA")
        try Self.expectRefusal(
            chain, leaf + ["--uri", "no scheme", "--issuer-cert", "@inter.pem", "--issuer-key", "@inter.private.jwk"],
            "\"no scheme\" is not an absolute URI")
        try Self.expectRefusal(
            chain,
            leaf + ["--dns", "bad_name.example", "--issuer-cert", "@inter.pem", "--issuer-key", "@inter.private.jwk"],
            "\"bad_name.example\" is not a DNS name")
        try Self.expectRefusal(chain, leaf + ["--ca", "--serial", "0"], "the serial number must be a positive integer")
        try Self.expectRefusal(chain, leaf + ["--serial", "12z"], "--serial must be")
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@inter.pem"], "--issuer-cert and --issuer-key go together")
        try Self.expectRefusal(chain, ["--ca", "--key", "@root.pem", "--subject", "CN=x"], "root.pem: a PEM file")
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@chain.pem", "--issuer-key", "@inter.private.jwk"], "holds 2 certificates")
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@inter.private.jwk", "--issuer-key", "@inter.private.jwk"],
            "no PEM certificate")
        try Self.expectRefusal(
            chain, leaf + ["--issuer-cert", "@inter.pem", "--issuer-key", "@inter.jwks"],
            "a key set (JWKS) of public keys")
    }

    @Test func warnsWhenTheIssuerPathLengthLeavesNoRoomForAnotherCA() throws {
        let chain = try ChainFixture(("ES256", "EdDSA", "ES256"))
        let result = try Tool.run([
            "certificate", "--ca", "--key", chain.path("leaf.jwks"), "--subject", "CN=x", "--issuer-cert",
            chain.path("inter.pem"), "--issuer-key", chain.path("inter.private.jwk"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: the issuer \"CN=Test CA 1,O=Operator\" has path length 0"))
        #expect(ChainFixture.ders(pem: result.stdout).count == 1, "the certificate is still written")
    }
}
