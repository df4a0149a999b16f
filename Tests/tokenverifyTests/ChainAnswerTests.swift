import Foundation
import TestSupport
import Testing
import TokenTools
import TokenVerifier

/// The answer names what verified (spec §3b, §6): a token verified by its chain answers with the
/// leaf's `"x5t#S256"` in the place of `"kid"` and no `kid` (not the one it may carry beside its
/// chain, nor `""`); a token verified by its `kid` answers as before, byte for byte. In Arrow the
/// `kid` column is null for a chain token.
@Suite struct ChainAnswerTests {
    struct World {
        let chain: ChainFixture
        let leafThumbprint: String
        /// JWS and CWT chain tokens without and with a `kid` ("leaf", which names a key of the key
        /// set, and "nobody"), then the same leaf key's token by `kid`.
        let chainTokens: [String]
        let kidToken: String
        var arguments: [String] {
            [
                "verify", "--at", "1800000000", "--keys", chain.path("leaf.jwks"), "--trust-anchors",
                chain.path("root.pem"),
            ]
        }

        init() throws {
            chain = try ChainFixture(("ES256", "ES256", "ES256"))
            let leafPEM = Array(try chain.text("leaf.pem").utf8)
            leafThumbprint = try CertificateSummary.summaries(pem: leafPEM, file: "leaf.pem")[0].thumbprint
            let key = try SigningKey.parse(jwk: Array(try chain.text("leaf.private.jwk").utf8))
            let tokenChain = try TokenChain(
                Certificate.read(pem: Array(try chain.text("chain.pem").utf8)), signingKey: key)
            let claims = Array(Workspace.claims(["iss": "\"https://op.example\""]).utf8)
            let signer = CWTSigner(key: key, chain: tokenChain)
            let payload = try CWTSigner.claimsCBOR(json: claims)
            func unprotectedKid(_ kid: String) -> [UInt8] { [0xA1, 0x04, 0x40 + UInt8(kid.utf8.count)] + kid.utf8 }
            chainTokens = [
                key.sign(header: tokenChain.jwsHeader(algorithm: key.algorithm, type: "JWT"), claims: claims),
                key.sign(
                    header: tokenChain.jwsHeader(algorithm: key.algorithm, type: "JWT", keyID: "leaf"), claims: claims),
                key.sign(
                    header: tokenChain.jwsHeader(algorithm: key.algorithm, type: "JWT", keyID: "nobody"),
                    claims: claims),
                try signer.sign(claims: claims),
                Base64URL.encodeString(signer.sign(payload: payload, unprotected: unprotectedKid("leaf"))),
                Base64URL.encodeString(signer.sign(payload: payload, unprotected: unprotectedKid("nobody"))),
            ]
            kidToken = key.sign(claims: claims)
        }

        var input: Data { Data((chainTokens + [kidToken]).joined(separator: "\n").utf8) }
    }

    @Test(arguments: [false, true])
    func aChainTokenAnswersWithItsLeafsThumbprintAndNoKid(audit: Bool) throws {
        let world = try World()
        let output = try BoundedRun.run(world.arguments + (audit ? ["--audit"] : []), input: world.input)
        #expect(output.status == 0, "\(output.stderr)")
        let lines = String(decoding: output.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        try #require(lines.count == world.chainTokens.count + 1, "\(lines)")
        for (index, line) in lines.dropLast().enumerated() {
            let cwt = index >= 3 ? ",\"format\":\"cwt\"" : ""
            #expect(
                line
                    == "{\"line\":\(index + 1),\"valid\":true,\"jti\":\"t-1\",\"sub\":\"phone-1\",\"aud\":\"car-1\",\"x5t#S256\":\"\(world.leafThumbprint)\",\"alg\":\"ES256\",\"exp\":1800003600\(cwt)}",
                "token \(index + 1): \(line)")
        }
        #expect(
            lines.last
                == "{\"line\":7,\"valid\":true,\"jti\":\"t-1\",\"sub\":\"phone-1\",\"aud\":\"car-1\",\"kid\":\"leaf\",\"alg\":\"ES256\",\"exp\":1800003600}"
        )
    }

    /// In Arrow the chain tokens' `kid` is null and the `kid` token's is its kid.
    @Test func theArrowKidColumnIsNullForAChainToken() throws {
        let world = try World()
        let output = try BoundedRun.run(world.arguments + ["--output-format", "arrow"], input: world.input)
        #expect(output.status == 0, "\(output.stderr)")
        let messages = try IPCMessages(Array(output.stdout))
        let kidColumn = AnswerColumnsLayout.index(of: "kid")
        var nulls = 0
        var rows = 0
        for batch in messages.dropFirst() {
            let nodes = batch.header.pairs(1)
            rows += Int(nodes[kidColumn].0)
            nulls += Int(nodes[kidColumn].1)
        }
        #expect(rows == world.chainTokens.count + 1)
        #expect(nulls == world.chainTokens.count, "\(nulls) null kids")
    }
}

/// The order of `verify --output-format arrow`'s columns (spec §6, LineProtocol's AnswerColumns).
enum AnswerColumnsLayout {
    static let names = ["line", "id", "valid", "reason", "detail", "jti", "sub", "aud", "kid", "alg", "exp", "role"]

    static func index(of name: String) -> Int { names.firstIndex(of: name)! }
}
