import Foundation
import TestSupport
import Testing

/// Certificate chains (spec §3b) across implementations. Chains made by Python's `cryptography`
/// and by the `openssl` command line, with tokens minted by joserfc (JWS `x5c`) and pycose (CWT
/// `x5chain`), get tokenverify's verdicts as of a chosen `--at` with an empty key set
/// (interop/chain_tokens.py); tokens from `tokenverify sign --chain` are verified by joserfc (JWS)
/// and python-cwt (CWT) with the leaf key from their own header, and the chain they carry by
/// `openssl verify` (interop/chain_check.py). A missing Python package or `openssl` skips with the reason (a
/// failure when CI is set: see `External`).
@Suite struct ChainInteropTests {
    static let interop = Tool.repository.appendingPathComponent("Tests/tokenverifyTests/interop")

    static func requirePython() throws {
        let problem = ["cryptography", "joserfc", "pycose", "cbor2", "cwt"].lazy.compactMap {
            External.pythonProblem($0)
        }.first
        try External.require(problem == nil, problem ?? "")
        try ChainFixture.requireOpenSSL()
    }

    static func python(_ script: String, _ arguments: [String]) throws -> String {
        let result = try External.run(External.python, [interop.appendingPathComponent(script).path] + arguments)
        try #require(result.status == 0, "\(script): \(result.stderr)")
        return result.stdout
    }

    /// What each line must get, by name: nil for valid, else the reason and words of the detail.
    static let details: [String: String] = [
        "expired leaf": "expired at", "wrong root": "unknown issuer", "RSA leaf": "not Ed25519 or P-256 (RSA 2048)",
        "iss not a leaf name": "is not a name of the chain's certificate", "ES256 with an Ed25519 leaf": "(Ed25519)",
        "tampered payload": "does not verify with the chain's certificate",
    ]

    @Test func independentChainsAndTokensGetTheSpecsVerdicts() throws {
        try Self.requirePython()
        let space = try Workspace()
        _ = try Self.python("chain_tokens.py", [space.directory.path])
        let empty = try space.write("empty.jwks", "{\"keys\":[]}")
        let at = try String(contentsOfFile: space.path("at.txt"), encoding: .utf8)
        let expected = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: space.path("expected.json"))))
                as? [[Any]])
        let output = try Tool.run([
            "verify", "--trust-anchors", space.path("anchors.pem"), "--keys", empty, "--at", at,
            space.path("tokens.txt"),
        ])
        #expect(output.status == 0, "\(output.stderr)")
        try #require(output.answers.count == expected.count, "\(output.stdout)")
        #expect(expected.filter { $0[1] is NSNull }.count == 16, "8 chains, a JWS and a CWT each")
        for (answer, entry) in zip(output.answers, expected) {
            let name = try #require(entry[0] as? String)
            let reason = entry[1] as? String
            #expect(answer["valid"] as? Bool == (reason == nil), "\(name): \(answer)")
            #expect(answer["reason"] as? String == reason, "\(name): \(answer)")
            #expect(answer["format"] as? String == (name.hasSuffix(" cwt") ? "cwt" : nil), "\(name): \(answer)")
            if let reason, let words = Self.details[String(name.dropLast(4))] {
                #expect((answer["detail"] as? String)?.contains(words) == true, "\(name) (\(reason)): \(answer)")
            }
        }
        // Without anchors no key carried in a token is trusted: not one line is valid.
        let ignored = try Tool.run(["verify", "--keys", empty, "--at", at, space.path("tokens.txt")])
        #expect(ignored.answers.count == expected.count)
        #expect(ignored.answers.allSatisfy { $0["valid"] as? Bool == false }, "\(ignored.stdout)")
    }

    /// CWTs from `tokenverify sign --chain` for both leaf key types verify in python-cwt (a second
    /// COSE library beside ChainSigningTests' pycose) with the leaf key from their `x5chain`, and
    /// with a flipped signature byte they do not.
    @Test func tokenverifyChainedCWTsVerifyInPythonCWT() throws {
        try Self.requirePython()
        let space = try Workspace()
        let file = try space.write("tokens.txt", try ChainSigningTests.tokens(format: "cwt"))
        let lines = try Self.python("chain_check.py", [file, space.directory.path]).split(separator: "\n")
        #expect(lines.count == 4, "\(lines)")
        for (number, line) in lines.enumerated() {
            if number % 2 == 0 {
                #expect(line == "ok cwt CN=signer-1")
            } else {
                #expect(line.hasPrefix("refused cwt "), "\(line)")
            }
        }
    }

    static func openssl(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let result = try External.run(ChainFixture.openssl, ["verify", "-x509_strict", "-partial_chain"] + arguments)
        return (result.status, result.stdout + result.stderr)
    }

    /// The chain a `tokenverify sign --chain` token carries (taken from its `x5c` or `x5chain` by
    /// chain_check.py) verifies in `openssl verify` under the root, or under the intermediate as
    /// the anchor, as of a time inside the leaf's validity; not after the leaf's end, and not under
    /// another root.
    @Test(arguments: [0, 1])
    func chainsInTokenverifyTokensVerifyInOpenSSL(_ index: Int) throws {
        try Self.requirePython()
        let chain = try ChainFixture(CertificateCommandTests.keyTypes[index])
        let stranger = try ChainFixture(CertificateCommandTests.keyTypes[index])
        let tokens = try ["jws", "cwt"].map {
            try ChainSigningTests.sign(chain, ["--format", $0, "--chain", chain.path("chain.pem")])
        }
        let space = try Workspace()
        let file = try space.write("tokens.txt", tokens.joined(separator: "\n") + "\n")
        let lines = try Self.python("chain_check.py", [file, space.directory.path]).split(separator: "\n")
        #expect(lines == ["ok jws CN=signer-1", "ok cwt CN=signer-1"])
        let inside = String(ChainFixture.leafStart + 1000)
        let after = String(ChainFixture.leafEnd + 10)
        for number in 1...2 {
            let certificates = ["-untrusted", space.path("\(number)-untrusted.pem"), space.path("\(number)-leaf.pem")]
            let leaf = try String(contentsOfFile: space.path("\(number)-leaf.pem"), encoding: .utf8)
            #expect(ChainFixture.ders(pem: leaf) == ChainFixture.ders(pem: try chain.text("leaf.pem")))
            for anchor in [chain.path("root.pem"), chain.path("inter.pem")] {
                let valid = try Self.openssl(["-attime", inside, "-CAfile", anchor] + certificates)
                #expect(valid.status == 0 && valid.text.contains(": OK"), "\(anchor): \(valid.text)")
            }
            let expired = try Self.openssl(["-attime", after, "-CAfile", chain.path("root.pem")] + certificates)
            #expect(expired.status != 0 && expired.text.contains("certificate has expired"), "\(expired.text)")
            let foreign = try Self.openssl(["-attime", inside, "-CAfile", stranger.path("root.pem")] + certificates)
            #expect(foreign.status != 0 && foreign.text.contains("unable to get local issuer"), "\(foreign.text)")
        }
    }
}
