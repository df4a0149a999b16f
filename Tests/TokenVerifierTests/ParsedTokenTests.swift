import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// The one-buffer token form: every string lands where the checks read it,
/// whether written plainly or with escapes, and the public forms made from it agree.
@Suite struct ParsedTokenTests {
    let fixtures = Fixtures()

    func parse(_ token: String) throws -> ParsedToken {
        try Array(token.utf8).withUnsafeBufferPointer { try ParsedToken.parse($0).get() }
    }

    @Test func readsEveryClaimAndHeaderMember() throws {
        let claims = Fixtures.claims(["aud": #"["car-1","car-2","car-3"]"#, "env": "\"prod\"", "nbf": "1799990001"])
        let token = try parse(Fixtures.token(fixtures.es, claims: claims))
        #expect(token.string(token.issuer) == "operator-a")
        #expect(token.string(token.subject) == "phone-1")
        #expect(token.string(token.tokenID) == "t-1")
        #expect(token.role.map(token.string) == "owner")
        #expect(token.strings(token.audience) == ["car-1", "car-2", "car-3"])
        #expect(token.audienceIsArray)
        #expect(token.strings(token.channels) == ["ble", "nfc"])
        #expect(token.strings(token.commands) == ["unlock", "lock"])
        #expect(token.expiresAt == 1_800_003_600 && token.notBefore == 1_799_990_001 && token.issuedAt == 1_799_990_000)
        #expect(token.environment == .production)
        #expect(token.keyID.map(token.string) == "es-1")
        #expect(token.algorithm.map(token.string) == "ES256" && token.supportedAlgorithm == .es256)
        #expect(token.signature.count == 64)
    }

    @Test func escapedStringsAreUnescapedIntoTheBuffer() throws {
        let claims = Fixtures.claims([
            "sub": #""ph\u006fne-1""#, "aud": #""car-\u0031""#, "ch": #"["b\u006ce","n\/fc"]"#,
            "cmd": #"["unlock","l\u00f6ck","\ud83d\ude97"]"#, "jti": #""t\"1""#, "env": #""\u0069nt""#,
        ])
        let header = #"{"alg":"\u0045d25519","kid":"ed\u002d1","typ":"J\u0057T"}"#
        let token = try parse(Fixtures.token(fixtures.ed, claims: claims, header: header))
        #expect(token.string(token.subject) == "phone-1")
        #expect(token.strings(token.audience) == ["car-1"] && !token.audienceIsArray)
        #expect(token.strings(token.channels) == ["ble", "n/fc"])
        #expect(token.strings(token.commands) == ["unlock", "löck", "🚗"])
        #expect(token.string(token.tokenID) == "t\"1")
        #expect(token.environment == .integration)
        #expect(token.supportedAlgorithm == .ed25519 && token.keyID.map(token.string) == "ed-1")
        #expect(token.type.map(token.string) == "JWT")

        // The checks compare the unescaped bytes, and the answer re-escapes what JSON needs.
        let verifier = fixtures.verifier()
        let text = Fixtures.token(fixtures.ed, claims: claims, header: header)
        let result = verifier.verify(
            VerificationRequest(token: text, device: "phone-1", object: "car-1", channel: "n/fc", command: "löck"))
        #expect(result.isValid)
        #expect(result.claims?.tokenID == "t\"1" && result.header?.keyID == "ed-1")
    }

    @Test func theDensestListsAndEscapesFitTheirBounds() throws {
        // Lists of empty strings are the most items a claims object of a given size can hold;
        // a string of escapes the most text to unescape.
        for count in [1, 2, 3, 100, 1000] {
            let list = "[" + Array(repeating: #""""#, count: count).joined(separator: ",") + "]"
            let escapes = String(repeating: #"\u0041"#, count: count)
            let claims =
                #"{"iss":"operator-a","sub":"\#(escapes)","aud":\#(list),"jti":"\#(escapes)","exp":1800003600,"ch":\#(list),"cmd":\#(list)}"#
            let token = try parse(Fixtures.token(fixtures.ed, claims: claims))
            #expect(token.audience.count == count && token.channels.count == count && token.commands.count == count)
            let commands = token.strings(token.commands)
            #expect(commands.allSatisfy { $0.isEmpty })
            #expect(
                token.string(token.subject) == String(repeating: "A", count: count)
                    && token.string(token.tokenID) == token.string(token.subject))
        }
    }

    @Test func publicFormsAgreeWithTheBuffer() throws {
        let text = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["aud": #"["car-1","car-2"]"#, "role": nil]))
        let token = try parse(text)
        let compact = try CompactToken.parse(Array(text.utf8)).get()
        #expect(compact.claims == TokenClaims(token) && compact.header == TokenHeader(token))
        #expect(compact.claims.audience == ["car-1", "car-2"] && compact.claims.role == nil)
        #expect(compact.signature == token.withBytes(token.signature) { Array($0) })
        #expect(
            compact.signingInputLength == text.utf8.split(separator: UInt8(ascii: "."))[0...1].map(\.count).reduce(1, +)
        )
    }

    @Test func contextIsComparedByBytes() throws {
        let verifier = fixtures.verifier()
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["aud": #"["car-1","car-2"]"#]))
        #expect(verifier.verify(VerificationRequest(token: token, object: "car-2")).isValid)
        #expect(verifier.verify(VerificationRequest(token: token, object: "car-")).reason == .wrongObject)
        #expect(verifier.verify(VerificationRequest(token: token, object: "car-22")).reason == .wrongObject)
        #expect(verifier.verify(VerificationRequest(token: token, device: "")).reason == .wrongDevice)
        #expect(verifier.verify(VerificationRequest(token: token, channel: "nfc", command: "lock")).isValid)
        #expect(verifier.verify(VerificationRequest(token: token, command: "Lock")).reason == .commandNotPermitted)
        // Byte for byte, without Unicode normalisation: "é" precomposed is not "e" + U+0301.
        let accented = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["sub": #""caf\u00e9""#]))
        #expect(verifier.verify(VerificationRequest(token: accented, device: "caf\u{E9}")).isValid)
        #expect(verifier.verify(VerificationRequest(token: accented, device: "cafe\u{301}")).reason == .wrongDevice)
    }

    @Test func keyIDsAreFoundByBytesInSmallAndLargeSets() throws {
        // A scan up to eight keys, a table beyond: both find exactly the same kids.
        for count in [3, 20] {
            let signers = (0..<count).map { SigningKey.generate(algorithm: .ed25519, keyID: "k\($0)-caf\u{E9}") }
            let keys = try KeySet(keys: signers.map { try Fixtures.publicKey($0) })
            let verifier = Verifier(keys: keys, options: VerificationOptions(checkTime: Fixtures.now))
            for signer in signers {
                #expect(verifier.verify(VerificationRequest(token: Fixtures.token(signer))).isValid)
            }
            let header = #"{"alg":"Ed25519","kid":"k1-cafe\u0301"}"#
            #expect(
                verifier.verify(VerificationRequest(token: Fixtures.token(signers[1], header: header))).reason
                    == .unknownKey)
        }
    }
}
