import Foundation
import Testing

/// Certificate chains (spec §3b) across implementations. Chains made by Python's `cryptography`
/// and by the `openssl` command line, with tokens minted by joserfc (JWS `x5c`) and pycose (CWT
/// `x5chain`), get tokenverify's verdicts as of a chosen `--at` with an empty key set
/// (interop/chain_tokens.py); tokens from `tokenverify sign --chain` are verified by joserfc and
/// python-cwt with the leaf key from their own header, and the chain they carry by `openssl verify`
/// (interop/chain_check.py). A missing Python package or `openssl` skips with the reason (a
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
}
