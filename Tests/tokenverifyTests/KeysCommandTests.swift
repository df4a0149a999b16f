import Foundation
import TestSupport
import Testing
import TokenVerifier

/// `tokenverify keys import|list` with keys written by the OpenSSL command line: PEM and DER,
/// public and private; a round trip import → sign with the matching private key (by OpenSSL)
/// → verify; and every refusal naming the file and the key.
@Suite struct KeysCommandTests {
    static let openssl = "/usr/bin/openssl"

    static func opensslProblem() -> String? {
        FileManager.default.isExecutableFile(atPath: openssl)
            ? nil : "no OpenSSL command line at /usr/bin/openssl (Debian's openssl)"
    }

    @discardableResult
    func openssl(_ arguments: [String]) throws -> String {
        let result = try External.run(Self.openssl, arguments)
        try #require(result.status == 0, "openssl \(arguments): \(result.stderr)")
        return result.stdout
    }

    /// r‖s from an ECDSA-Sig-Value in DER.
    static func rawSignature(der: [UInt8]) -> [UInt8] {
        var position = 2  // SEQUENCE, short length
        var output: [UInt8] = []
        for _ in 0..<2 {
            let length = Int(der[position + 1])
            var integer = Array(der[(position + 2)..<(position + 2 + length)])
            while integer.count > 32 && integer.first == 0 { integer.removeFirst() }
            output += [UInt8](repeating: 0, count: 32 - integer.count) + integer
            position += 2 + length
        }
        return output
    }

    /// A token whose signature OpenSSL makes with the private key in `pem`.
    func opensslToken(_ space: Workspace, pem: String, alg: String, kid: String, claims: String) throws -> String {
        let input = b64("{\"alg\":\"\(alg)\",\"kid\":\"\(kid)\"}") + "." + b64(claims)
        let message = try space.write("message-\(kid)", input)
        let signature = space.path("signature-\(kid)")
        if alg == "ES256" {
            try openssl(["dgst", "-sha256", "-sign", pem, "-out", signature, message])
        } else {
            try openssl(["pkeyutl", "-sign", "-inkey", pem, "-rawin", "-in", message, "-out", signature])
        }
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: signature)))
        if alg == "ES256" { bytes = Self.rawSignature(der: bytes) }
        return input + "." + Base64URL.encodeString(bytes)
    }

    @Test func opensslKeysImportSignAndVerify() throws {
        try External.require(Self.opensslProblem() == nil, Self.opensslProblem() ?? "")
        let space = try Workspace()
        let ed = space.path("ed.pem")
        let ec = space.path("ec.pem")
        try openssl(["genpkey", "-algorithm", "ed25519", "-out", ed])
        try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", ec])
        try openssl(["pkey", "-in", ed, "-pubout", "-out", space.path("ed.pub.pem")])
        try openssl(["pkey", "-in", ec, "-pubout", "-outform", "DER", "-out", space.path("ec.pub.der")])
        try openssl(["ec", "-in", ec, "-out", space.path("ec.sec1.pem")])  // BEGIN EC PRIVATE KEY

        let imported = try Tool.run([
            "keys", "import", "--env", "prod", "--iss", "operator-a", space.path("ed.pub.pem"),
            space.path("ec.pub.der"),
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("imported 2 keys"))
        let keys = try space.write("imported.jwks", imported.stdout)
        let listed = try Tool.run(["keys", "list", "--json", keys])
        let entries = listed.answers
        #expect(entries.map { $0["crv"] as? String } == ["Ed25519", "P-256"])
        #expect(
            entries.allSatisfy {
                $0["kid"] as? String == $0["thumbprint"] as? String && $0["env"] as? String == "prod"
                    && $0["iss"] as? String == "operator-a"
            })
        let kids = entries.map { $0["kid"] as! String }

        // The private keys give the same public keys (with a warning each).
        let fromPrivate = try Tool.run([
            "keys", "import", "--env", "prod", "--iss", "operator-a", ed, space.path("ec.sec1.pem"),
        ])
        #expect(fromPrivate.stdout == imported.stdout)
        #expect(
            fromPrivate.stderr.components(separatedBy: "a private key; only its public part is imported").count == 3)

        let claims = Workspace.claims(["env": "\"prod\""])
        let tokens = [
            try opensslToken(space, pem: ed, alg: "EdDSA", kid: kids[0], claims: claims),
            try opensslToken(space, pem: ed, alg: "Ed25519", kid: kids[0], claims: claims),
            try opensslToken(space, pem: ec, alg: "ES256", kid: kids[1], claims: claims),
            try opensslToken(space, pem: ec, alg: "EdDSA", kid: kids[0], claims: claims),  // signed by the other key
        ]
        let verified = try Tool.run(
            ["verify", "--keys", keys, "--env", "prod", "--at", Workspace.checkTime],
            input: tokens.joined(separator: "\n"))
        #expect(
            verified.answers.map { $0["reason"] as? String } == [nil, nil, nil, "bad_signature"], "\(verified.stdout)")
    }

    @Test func foreignKeySetsBareAndLinesOfJWKs() throws {
        let space = try Workspace()
        // gen's signing-keys.jwk: private JWKs, one a line, with kids.
        #expect(try Tool.run(["gen", "--count", "4", "--out", space.path("set")]).status == 0)
        let lines = try Tool.run(["keys", "import", space.path("set/signing-keys.jwk")])
        #expect(lines.status == 0)
        let original = try Tool.run(["keys", "list", space.path("set/keys.jwks")])
        let again = try Tool.run(["keys", "list", try space.write("again.jwks", lines.stdout)])
        #expect(
            original.lines.map { $0.split(separator: "\t").dropLast() }
                == again.lines.map { $0.split(separator: "\t").dropLast() })
        #expect(!original.lines.isEmpty)
        // A JWKS from another tool with unknown members and no kid; RFC 8037 A.3's thumbprint.
        let foreign = try space.write(
            "foreign.json",
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","key_ops":["verify"],"ext":true}]}"#
        )
        let imported = try Tool.run(["keys", "import", foreign])
        #expect(imported.stdout.contains("\"kid\":\"kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k\""))
        #expect(!imported.stdout.contains("key_ops"))
        // A bare JWK with --kid and --alg.
        let bare = try space.write("bare.jwk", "\u{FEFF}" + space.es.publicJWK)
        let named = try Tool.run(["keys", "import", "--kid", "renamed", "--alg", "ES256", bare])
        #expect(named.status == 0)
        #expect(try KeySet.parse(Array(named.stdout.utf8)).0["renamed"]?.algorithm == .es256)
    }

    @Test(arguments: [
        (#"{"kty":"OKP","crv":"Ed448","x":"AA"}"#, #"key #1: unsupported curve "Ed448""#),
        (#"{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"r1"}"#, #"key "r1": unsupported key type "RSA""#),
        (#"{"kty":"oct","k":"c2VjcmV0","kid":"s1"}"#, #"key "s1": a symmetric key"#),
        (
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA3o","kid":"small"}]}"#,
            #"key "small": "x" is not a valid Ed25519 public key: a point of small order"#
        ),
        (
            #"{"kty":"EC","crv":"P-256","x":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","y":"AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","kid":"off"}"#,
            #"key "off": (x, y) is not a point on P-256"#
        ),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","use":"enc","kid":"e"}"#,
            #"key "e": "use" is "enc""#
        ),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","alg":"ES256","kid":"a"}"#,
            #"key "a": "alg" "ES256" does not fit"#
        ),
        ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n", "a certificate, not a key"),
        ("hello", "not a key file"),
    ])
    func refusalsNameTheFileAndTheKey(_ content: String, _ message: String) throws {
        let space = try Workspace()
        let file = try space.write("key.in", content)
        let output = try Tool.run(["keys", "import", file])
        #expect(output.status == 2)
        #expect(output.stdout.isEmpty)
        #expect(output.stderr.contains("\(file): ") && output.stderr.contains(message), "\(output.stderr)")
    }

    @Test func duplicatesAndKidForManyAreRefused() throws {
        let space = try Workspace()
        let one = try space.write("one.jwk", space.ed.publicJWK)
        let two = try space.write("two.jwk", space.ed.publicJWK)
        let duplicate = try Tool.run(["keys", "import", one, two])
        #expect(
            duplicate.status == 2 && duplicate.stderr.contains("\(two): key \"ed-1\": duplicate kid (also in \(one))"))
        let twice = try Tool.run(["keys", "import", one, one])
        #expect(twice.status == 2 && twice.stderr.contains("given twice"))
        let kid = try Tool.run(["keys", "import", "--kid", "k", space.path("keys.jwks")])
        #expect(kid.status == 2 && kid.stderr.contains("--kid names one key, but 3 keys were read"))
    }

    @Test func listRefusesWhatVerifyRefusesWithTheSameMessage() throws {
        let space = try Workspace()
        let bad = try space.write(
            "bad.jwks",
            #"{"keys":[{"kty":"OKP","crv":"Ed25519","x":"AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","kid":"k"}]}"#)
        let list = try Tool.run(["keys", "list", bad])
        let verify = try Tool.run(["verify", "--keys", bad], input: "x\n")
        #expect(list.status == 2 && verify.status == 2)
        #expect(list.stderr == verify.stderr)
        #expect(list.stderr.contains("not a point on the curve"))
        let good = try Tool.run(["keys", "list", space.path("keys.jwks")])
        #expect(good.status == 0)
        #expect(good.lines.count == 3)
        #expect(good.lines[2].hasPrefix("prod-1\tOKP/Ed25519\tEd25519\tprod\toperator-a\t"))
    }
}
