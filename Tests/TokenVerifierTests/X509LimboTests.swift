import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// x509-limbo's path-validation cases (Tests/Vectors/x509-limbo) run through
/// `TrustAnchors.validate(_:at:profile: .pathOnly)`: each case's trusted certificates are the
/// anchors, its peer certificate and untrusted intermediates the chain, at its validation time
/// (2026-01-01T00:00:00Z when it names none). Every disagreement with the expected result must be
/// listed with its reason in `x509-limbo/disagreements.json`, and every listed one must still
/// disagree. `X509_LIMBO_REPORT=docs/x509-limbo.md swift test --filter X509LimboTests` writes the
/// report of the figures and the listed disagreements.
@Suite struct X509LimboTests {
    /// The id prefixes that apply to tokenverify (`webpki::` is TLS server naming).
    static let applicable = ["rfc5280::", "pathlen::", "pathological::", "crl::", "cve::", "invalid::"]
    static let defaultTime: Int64 = 1_767_225_600

    struct Case {
        let id: String
        let expectSuccess: Bool
        let trusted: [String]
        let intermediates: [String]
        let peer: String
        let time: Int64
        let description: String
    }

    struct Outcome {
        let limboCase: Case
        let trusted: Bool
        let detail: String
    }

    static func cases() throws -> [Case] {
        let url = Repository.vectors("x509-limbo/limbo-rfc5280-offline.json")
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let all = try #require(root["testcases"] as? [[String: Any]])
        return try all.compactMap { item in
            let id = try #require(item["id"] as? String)
            guard applicable.contains(where: id.hasPrefix) else { return nil }
            let time = (item["validation_time"] as? String).flatMap(NumericDate.parseRFC3339).map { Int64($0) }
            return Case(
                id: id, expectSuccess: (item["expected_result"] as? String) == "SUCCESS",
                trusted: item["trusted_certs"] as? [String] ?? [],
                intermediates: item["untrusted_intermediates"] as? [String] ?? [],
                peer: try #require(item["peer_certificate"] as? String), time: time ?? defaultTime,
                description: (item["description"] as? String ?? "").split(separator: "\n").first.map(String.init) ?? "")
        }
    }

    static func run(_ limboCase: Case) -> Outcome {
        let anchors: TrustAnchors
        do {
            anchors = try TrustAnchors.parse(
                pem: Array(limboCase.trusted.joined(separator: "\n").utf8), environment: nil, file: "trusted_certs")
        } catch {
            return Outcome(limboCase: limboCase, trusted: false, detail: "anchors refused: \(error)")
        }
        var chain: [[UInt8]] = []
        for pem in [limboCase.peer] + limboCase.intermediates {
            guard let blocks = try? PEMCertificates.parse(Array(pem.utf8), file: "chain") else {
                return Outcome(limboCase: limboCase, trusted: false, detail: "chain PEM refused")
            }
            chain += blocks
        }
        switch anchors.validate(chain, at: limboCase.time, profile: .pathOnly) {
        case .trusted: return Outcome(limboCase: limboCase, trusted: true, detail: "trusted")
        case .untrusted(let failure):
            return Outcome(limboCase: limboCase, trusted: false, detail: "\"\(failure.subject)\" \(failure.why)")
        }
    }

    static func disagreementsListed() throws -> [String: String] {
        let url = Repository.vectors("x509-limbo/disagreements.json")
        return try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: String])
    }

    @Test func applicableCasesAgreeExceptTheListedOnes() throws {
        let cases = try Self.cases()
        #expect(cases.count == 138)
        let outcomes = cases.map(Self.run)
        let listed = try Self.disagreementsListed()
        var disagreeing: Set<String> = []
        for outcome in outcomes where outcome.trusted != outcome.limboCase.expectSuccess {
            disagreeing.insert(outcome.limboCase.id)
            #expect(
                listed[outcome.limboCase.id] != nil,
                "\(outcome.limboCase.id): expected \(outcome.limboCase.expectSuccess ? "SUCCESS" : "FAILURE"), got \(outcome.detail)"
            )
        }
        for id in listed.keys.sorted() where !disagreeing.contains(id) {
            Issue.record("\(id) is listed as a disagreement but agrees (or is not an applicable case)")
        }
        if let path = ProcessInfo.processInfo.environment["X509_LIMBO_REPORT"] {
            let report = X509LimboReport(outcomes: outcomes, listed: listed).markdown
            try Data(report.utf8).write(to: URL(fileURLWithPath: path))
        }
    }
}
