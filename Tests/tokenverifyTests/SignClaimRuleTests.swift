import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// `sign` refuses claims that `verify` would answer `malformed_token` (spec §7), naming the claim,
/// by the verifier's own claim rules: each refused case below is first shown to be one that
/// verify calls malformed when the library's signer signs it anyway.
@Suite struct SignClaimRuleTests {
    /// Claims verify calls malformed, with the claim name the refusal must say.
    static let malformed: [(overrides: [String: String?], claim: String)] = [
        (["ch": nil], "\"ch\""),
        (["cmd": nil], "\"cmd\""),
        (["exp": nil], "exp"),
        (["iss": nil], "iss"),
        (["exp": "\"tomorrow\""], "exp"),
        (["exp": "253402300800"], "exp"),  // 10000-01-01: beyond the times the engine represents
        (["nbf": "-62135596801"], "nbf"),  // before 0001-01-01
        (["aud": "7"], "aud"),
        (["ch": "[]"], "\"ch\""),
        (["cmd": "[\"unlock\",3]"], "\"cmd\""),
        (["env": "\"staging\""], "\"env\""),
    ]

    static let cases: [(Int, String)] = malformed.indices.flatMap { [($0, "jws"), ($0, "cwt")] }

    /// The token the library signs over `claims`, unchecked, in `format`.
    static func unchecked(_ claims: String, format: String, _ space: Workspace) throws -> String {
        if format == "cwt" { return try CWTSigner(key: space.ed).sign(claims: Array(claims.utf8)) }
        return space.token(claims: claims)
    }

    @Test(arguments: cases)
    func claimsVerifyCallsMalformedAreRefusedNamingTheClaim(_ index: Int, _ format: String) throws {
        let space = try Workspace()
        let (overrides, claim) = Self.malformed[index]
        let claims = Workspace.claims(overrides)
        // verify's judgement of these claims, signed anyway
        let judged = try Tool.run(
            space.verifyArguments, input: try Self.unchecked(claims, format: format, space) + "\n")
        #expect(judged.answers.first?["reason"] as? String == "malformed_token", "\(claims): \(judged.stdout)")
        let detail = judged.answers.first?["detail"] as? String ?? ""

        let key = try space.write("ed.private.jwk", space.ed.privateJWK)
        let signed = try Tool.run(
            ["sign", "--key", key, "--format", format], input: claims + "\n" + Workspace.claims() + "\n")
        #expect(signed.status == 1, "\(claims): \(signed.stdout)")
        #expect(signed.lines.count == 1, "\(claims): only the good line is signed")
        #expect(signed.stderr.contains("<stdin>:1: verify would answer malformed_token"), "\(signed.stderr)")
        #expect(signed.stderr.contains(claim), "\(claims): \(signed.stderr)")
        #expect(signed.stderr.contains(detail), "the refusal says what verify says: \(detail) / \(signed.stderr)")
        let verified = try Tool.run(space.verifyArguments, input: signed.stdout)
        #expect(verified.answers.map { $0["valid"] as? Bool } == [true])
    }

    @Test(arguments: ["jws", "cwt"])
    func allowMalformedSignsThemForTestSets(_ format: String) throws {
        let space = try Workspace()
        let key = try space.write("ed.private.jwk", space.ed.privateJWK)
        let claims = Workspace.claims(["ch": nil])
        let signed = try Tool.run(
            ["sign", "--key", key, "--format", format, "--allow-malformed"], input: claims + "\n")
        #expect(signed.status == 0, "\(signed.stderr)")
        #expect(signed.lines.count == 1)
        let verified = try Tool.run(space.verifyArguments, input: signed.stdout)
        #expect(verified.answers.map { $0["reason"] as? String } == ["malformed_token"])
    }
}
