import TestSupport
import Testing
import TokenVerifier

/// ``VerificationResult/withAnswerTexts(_:)``: a valid verdict lends the texts its answer says
/// (spec §6) as the token wrote them; an invalid one lends none.
@Suite struct AnswerTextsTests {
    let fixtures = Fixtures()

    private func string(_ text: UnsafeBufferPointer<UInt8>?) -> String? {
        text.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aValidVerdictLendsItsClaimsAsWritten() {
        let claims = Fixtures.claims([
            "jti": #""t\"1""#, "aud": #"["car-1","c\"2"]"#, "exp": "1800003600.5", "role": #""owner""#,
        ])
        let result = fixtures.verifier().verify(VerificationRequest(token: Fixtures.token(fixtures.es, claims: claims)))
        let seen = result.withAnswerTexts { texts in
            #expect(string(texts.tokenID) == "t\"1")
            #expect(string(texts.subject) == "phone-1")
            #expect(texts.audienceIsArray)
            #expect((0..<texts.audienceCount).map { string(texts.audience($0)) } == ["car-1", "c\"2"])
            #expect(string(texts.keyID) == "es-1")
            #expect(string(texts.algorithm) == "ES256")
            #expect(string(texts.role) == "owner")
            #expect(texts.expiresAt == 1_800_003_600.5)
            return true
        }
        #expect(seen == true)
        #expect(result.format == .jws)
    }

    @Test func aSingleAudienceIsOneItemAndNoRoleIsNil() {
        let claims = Fixtures.claims(["aud": #""car-1""#, "role": nil])
        let result = fixtures.verifier().verify(VerificationRequest(token: Fixtures.token(fixtures.ed, claims: claims)))
        let seen = result.withAnswerTexts { texts in
            #expect(!texts.audienceIsArray)
            #expect(texts.audienceCount == 1)
            #expect(string(texts.audience(0)) == "car-1")
            #expect(texts.role == nil)
            return true
        }
        #expect(seen == true)
    }

    @Test func anInvalidVerdictLendsNoTexts() {
        let expired = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1"]))
        let result = fixtures.verifier().verify(VerificationRequest(token: expired))
        #expect(result.reason == .expired)
        #expect(result.withAnswerTexts { _ in true } == nil)
    }
}
