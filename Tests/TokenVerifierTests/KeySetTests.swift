import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

@Suite struct KeySetTests {
    let ed = SigningKey.generate(algorithm: .ed25519, keyID: "a")
    let es = SigningKey.generate(algorithm: .es256, keyID: "b", environment: .production, issuer: "op")

    func load(_ documents: String...) throws(KeySetError) -> (KeySet, [String]) {
        let files = documents.enumerated().map {
            try! Fixtures.writeTemporary($0.element, name: "keys\($0.offset).jwks")
        }
        let (set, warnings) = try KeySet.load(files: files)
        return (set, warnings)
    }

    func refusal(_ documents: String...) -> KeySetError? {
        let files = documents.enumerated().map {
            try! Fixtures.writeTemporary($0.element, name: "keys\($0.offset).jwks")
        }
        do {
            _ = try KeySet.load(files: files)
            return nil
        } catch {
            return error
        }
    }

    @Test func loadsBothKeyTypesWithTheirMembers() throws {
        let (set, warnings) = try load("{\"keys\":[\(ed.publicJWK),\(es.publicJWK)]}")
        #expect(warnings.isEmpty)
        #expect(set["a"]?.type == .ed25519)
        #expect(set["b"]?.type == .p256)
        #expect(set["b"]?.environment == .production)
        #expect(set["b"]?.issuer == "op")
        #expect(set["b"]?.algorithm == .es256)
    }

    @Test func privateMembersWarn() throws {
        let (set, warnings) = try load("{\"keys\":[\(ed.privateJWK)]}")
        #expect(set.keys.count == 1)
        #expect(warnings.count == 1)
        #expect(warnings.first?.contains("\"a\"") == true)
    }

    @Test func duplicateKidAcrossFilesNamesBoth() throws {
        let error = try #require(refusal("{\"keys\":[\(ed.publicJWK)]}", "{\"keys\":[\(ed.publicJWK)]}"))
        #expect(error.keyID == "a")
        #expect(error.file?.hasSuffix("keys1.jwks") == true)
        #expect(error.description.contains("duplicate kid"))
    }

    @Test(arguments: [
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","kid":"zero"}"#, "zero",
            "not a valid Ed25519"
        ),
        (#"{"kty":"OKP","crv":"Ed25519","x":"AAAA","kid":"short"}"#, "short", "32 bytes"),
        (
            #"{"kty":"EC","crv":"P-256","x":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE","y":"AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE","kid":"off"}"#,
            "off", "not a point"
        ),
        (#"{"kty":"RSA","n":"AQAB","e":"AQAB","kid":"rsa"}"#, "rsa", "unsupported"),
        (#"{"kty":"EC","crv":"P-384","x":"AA","y":"AA","kid":"p384"}"#, "p384", "unsupported curve"),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"alg","alg":"ES256"}"#,
            "alg", "does not fit"
        ),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"env","env":"dev"}"#,
            "env", "\"env\""
        ),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"enc","use":"enc"}"#,
            "enc", "\"use\""
        ),
        (
            #"{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo=","kid":"pad"}"#, "pad",
            "base64url"
        ),
    ])
    func refusesBadKeysNamingFileAndKid(_ jwk: String, _ kid: String, _ message: String) throws {
        let error = try #require(refusal("{\"keys\":[\(jwk)]}"))
        #expect(error.keyID == kid)
        #expect(error.file?.hasSuffix("keys0.jwks") == true)
        #expect(error.description.contains(message), "\(error)")
    }

    @Test func refusesBadDocuments() {
        #expect(refusal(#"{"keys":[{"kty":"OKP"}]}"#)?.description.contains("key #1") == true)
        #expect(refusal(#"{"keys":{}}"#)?.description.contains(#""keys" must be an array"#) == true)
        #expect(refusal(#"{"keys":[],"keys":[]}"#)?.description.contains("duplicate") == true)
        #expect(refusal(#"{"other":[]}"#)?.description.contains(#"no "keys" member"#) == true)
        #expect(refusal("not json") != nil)
        do {
            _ = try KeySet.load(files: ["/nonexistent/keys.jwks"])
            Issue.record("loaded a missing file")
        } catch {
            #expect(error.file == "/nonexistent/keys.jwks")
        }
    }

    @Test func theChecksFactsAreEachKeysMembers() throws {
        let other = SigningKey.generate(algorithm: .ed25519, keyID: "c", environment: .integration)
        let set = try KeySet(keys: [ed, es, other].map { try Fixtures.publicKey($0) })
        for (index, key) in set.keys.enumerated() {
            let facts = set.facts.facts[index]
            #expect(facts.type == key.type)
            #expect(facts.algorithm == key.algorithm)
            #expect(facts.environment == key.environment)
            #expect(Array(facts.keyID) == Array(key.keyID.utf8))
            #expect(facts.issuer.map(Array.init) == key.issuer.map { Array($0.utf8) })
            #expect((facts.ed25519 != nil) == (key.type == .ed25519))
            if let ed25519 = facts.ed25519 { #expect(ed25519.takeUnretainedValue() === key.ed25519) }
        }
    }

    @Test func everyKidIsFoundAtItsPlaceInSetsOfEverySize() throws {
        // Scanned up to eight keys, hashed beyond; a kid is matched by all its bytes, no fewer.
        for count in [0, 1, 8, 9, 64, 300] {
            let kids = (0..<count).map { $0 == 0 ? "k" : "key-\($0)" }
            let keys = try kids.map { try Fixtures.publicKey(SigningKey.generate(algorithm: .ed25519, keyID: $0)) }
            let set = try KeySet(keys: keys)
            for (position, kid) in kids.enumerated() {
                #expect(withUTF8(of: kid) { set.index(of: $0) } == position)
                for absent in [kid + "x", "x" + kid, String(kid.dropLast()), String(kid.dropLast()) + "?"]
                where !kids.contains(absent) {
                    #expect(withUTF8(of: absent) { set.index(of: $0) } == nil)
                }
            }
            #expect(withUTF8(of: "key-\(count)") { set.index(of: $0) } == nil)
        }
    }
}
