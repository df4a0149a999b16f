import Foundation
import Testing
import TokenTools

@testable import TokenVerifier

/// Loading trust anchors from PEM (SPEC §3b): what is accepted and how a bad file is named.
@Suite struct TrustAnchorsTests {
    let world: ChainWorld

    init() throws { world = try ChainWorld.shared.get() }

    func reason(_ pem: String, environment: Environment? = nil) -> TrustAnchorError.Reason? {
        do {
            _ = try TrustAnchors.parse(pem: Array(pem.utf8), environment: environment, file: "a.pem")
            return nil
        } catch {
            #expect(error.description.hasPrefix("a.pem: "))
            return error.reason
        }
    }

    @Test func severalBlocksWithExplanatoryTextAndCRLF() throws {
        let pem =
            "# Root P-256\r\n" + world["rootP256"].pem.replacingOccurrences(of: "\n", with: "\r\n")
            + "Subject: Root RSA\n" + world["rootRSA"].pem + "\n  \n"
        let anchors = try TrustAnchors.parse(pem: Array(pem.utf8), environment: .integration, file: "a.pem")
        #expect(anchors.count == 2)
        #expect(anchors.summaries.map(\.subject) == ["CN=Root P-256,O=Op", "CN=Root RSA,O=Op"])
        #expect(anchors.summaries[0].isCA)
        #expect(anchors.summaries[1].keyDescription == "RSA 2048")
    }

    @Test func badFilesAreRefusedWithTheirReason() {
        let root = world["rootP256"].pem
        let body = root.split(separator: "\n").dropFirst().dropLast().joined(separator: "\n")
        #expect(reason("") == .noCertificate)
        #expect(reason("hello\n") == .noCertificate)
        #expect(reason(root + "trailing\n") == .trailingGarbage)
        #expect(
            reason("-----BEGIN CERTIFICATE-----\n" + body + "\n") == .badBlock("a CERTIFICATE block has no END line"))
        #expect(reason("-----BEGIN CERTIFICATE-----\n#" + body + "\n-----END CERTIFICATE-----\n") == .badBase64)
        #expect(reason("-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n") == .notDER)
        #expect(
            reason("-----BEGIN PRIVATE KEY-----\nMAMCAQE=\n-----END PRIVATE KEY-----\n")
                == .badBlock("a block \"-----BEGIN PRIVATE KEY-----\" is not a CERTIFICATE"))
    }

    @Test func oneCertificateForTwoEnvironmentsIsRefused() throws {
        let sources: [(path: String, environment: Environment?)] = [
            (world.factory.path("rootP256.pem"), .production), (world.factory.path("rootRSA.pem"), nil),
            (world.factory.path("rootP256.pem"), .integration),
        ]
        #expect {
            _ = try TrustAnchors.load(sources)
        } throws: { error in
            guard let error = error as? TrustAnchorError, case .twoEnvironments(_, let first, let second) = error.reason
            else { return false }
            return error.file.hasSuffix("rootP256.pem") && first.hasPrefix("prod (") && second == "int"
        }
        // The same certificate twice for one environment is one anchor.
        let twice = try TrustAnchors.load([sources[0], sources[0]])
        #expect(twice.count == 1)
    }

    @Test func unreadableFile() {
        #expect {
            _ = try TrustAnchors.load([(path: world.factory.path("missing.pem"), environment: nil)])
        } throws: { error in
            (error as? TrustAnchorError)?.description.contains("missing.pem: cannot read trust anchors: No such file")
                == true
        }
    }

    @Test func namesWithBytesOtherThanPrintableASCIIAreLeftOut() throws {
        var der = world["leafP256"].der
        let name = Array("api.op.example".utf8)
        let start = try #require(der.indices.first { der[$0...].starts(with: name) })
        der[start + name.count - 1] = 0x7F
        let summary = try #require(CertificateSummary.summaries(der: [der])[0])
        #expect(summary.dnsNames == ["op.example"])
        #expect(
            CertificateSummary.summaries(der: [world["leafP256"].der])[0]?.dnsNames == ["op.example", "api.op.example"])
    }

    @Test func summariesOfCertificates() throws {
        let summaries = CertificateSummary.summaries(der: [world["intP256"].der, [1, 2, 3], world["leafEd"].der])
        #expect(summaries.count == 3)
        let intermediate = try #require(summaries[0])
        #expect(intermediate.subject == "CN=Int P-256,O=Op")
        #expect(intermediate.issuer == "CN=Root P-256,O=Op")
        #expect(intermediate.isCA && intermediate.pathLength == 0)
        #expect(intermediate.notBefore == ChainWorld.t0 + ChainWorld.day)
        #expect(intermediate.notAfter == ChainWorld.t0 + 1800 * ChainWorld.day)
        #expect(intermediate.keyDescription == "P-256")
        #expect(intermediate.thumbprint == Base64URL.encodeString(sha256(world["intP256"].der)))
        #expect(summaries[1] == nil)
        let leaf = try #require(summaries[2])
        #expect(!leaf.isCA && leaf.pathLength == nil)
        #expect(leaf.keyDescription == "Ed25519" && leaf.uris == ["urn:op:lock-server"])
        let fromPEM = try CertificateSummary.summaries(pem: Array(world["intP384"].pem.utf8), file: "x.pem")
        #expect(fromPEM.map(\.keyDescription) == ["P-384"])
    }
}
