import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// Every reason code of spec §5, produced through the public API.
@Suite struct ReasonCodeTests {
    let fixtures = Fixtures()

    func reason(
        _ token: String, verifier: Verifier? = nil, device: String? = nil, object: String? = nil,
        channel: String? = nil, command: String? = nil, at time: Double? = nil
    ) -> Reason? {
        let verifier = verifier ?? fixtures.verifier()
        return verifier.verify(
            VerificationRequest(
                token: token, device: device, object: object, channel: channel,
                command: command, checkTime: time)
        ).reason
    }

    @Test func validTokensOfEveryAlgorithm() {
        for key in [fixtures.ed, fixtures.edDSA, fixtures.es] {
            let result = fixtures.verifier().verify(
                VerificationRequest(
                    token: Fixtures.token(key), device: "phone-1",
                    object: "car-1", channel: "ble", command: "unlock"))
            #expect(result.isValid, "\(key.algorithm): \(result.failures)")
            #expect(result.claims?.tokenID == "t-1")
            #expect(result.header?.algorithm == key.algorithm.rawValue)
        }
    }

    @Test func malformedToken() {
        let good = Fixtures.token(fixtures.ed)
        let payload = good.split(separator: ".")[1]
        let cases = [
            "abc", "a.b", good + ".x", good + "=",
            replacingSegment(good, 1, with: payload + "="),  // padding
            replacingSegment(good, 0, with: b64(#"{"alg":"Ed25519","alg":"Ed25519","kid":"ed-1"}"#)),  // duplicate
            replacingSegment(good, 1, with: b64(#"{"sub":"a","sub":"b"}"#)),
            replacingSegment(good, 1, with: b64("not json")),
            replacingSegment(good, 1, with: b64("[]")),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "\"soon\""])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": nil])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["aud": "[]"])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["ch": "[\"ble\",1]"])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["cmd": nil])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["env": "\"dev\""])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["iat": "1e999"])),
            Fixtures.token(fixtures.ed, claims: Fixtures.claims(["x": #"{"a":1,"a":1}"#])),
        ]
        for token in cases {
            #expect(reason(token) == .malformedToken, "\(token)")
        }
    }

    @Test func unsupportedAlgorithm() {
        for alg in ["none", "HS256", "RS256", "ES384", "ed25519", "es256"] {
            let token = Fixtures.token(fixtures.ed, header: "{\"alg\":\"\(alg)\",\"kid\":\"ed-1\"}")
            #expect(reason(token) == .unsupportedAlgorithm, "\(alg)")
        }
        #expect(reason(Fixtures.token(fixtures.ed, header: #"{"kid":"ed-1"}"#)) == .unsupportedAlgorithm)
        #expect(
            reason(Fixtures.token(fixtures.ed, header: #"{"alg":["Ed25519"],"kid":"ed-1"}"#)) == .unsupportedAlgorithm)
        // alg none with an empty signature segment
        let unsigned = b64(#"{"alg":"none","kid":"ed-1"}"#) + "." + b64(Fixtures.claims()) + "."
        #expect(reason(unsigned) == .unsupportedAlgorithm)
    }

    @Test func badHeader() {
        let cases = [
            #"{"alg":"Ed25519"}"#,
            #"{"alg":"Ed25519","kid":7}"#,
            #"{"alg":"Ed25519","kid":"ed-1","crit":["exp"]}"#,
            #"{"alg":"Ed25519","kid":"ed-1","typ":"JOSE"}"#,
            #"{"alg":"Ed25519","kid":"ed-1","typ":1}"#,
        ]
        for header in cases {
            #expect(reason(Fixtures.token(fixtures.ed, header: header)) == .badHeader, "\(header)")
        }
        for typ in ["JWT", "jwt", "DKT+JWT", "dkt+jwt"] {
            #expect(
                reason(Fixtures.token(fixtures.ed, header: "{\"alg\":\"Ed25519\",\"kid\":\"ed-1\",\"typ\":\"\(typ)\"}"))
                    == nil)
        }
    }

    @Test func unknownKeyAndKeysInHeadersAreIgnored() {
        let stranger = SigningKey.generate(algorithm: .ed25519, keyID: "stranger")
        #expect(reason(Fixtures.token(stranger)) == .unknownKey)
        // A key carried in the header is never trusted: signed by the stranger, claiming kid ed-1.
        let header =
            "{\"alg\":\"Ed25519\",\"kid\":\"ed-1\",\"jwk\":\(stranger.publicJWK),\"jku\":\"https://x.invalid\",\"x5c\":[\"AA\"]}"
        #expect(reason(Fixtures.token(stranger, header: header)) == .badSignature)
    }

    @Test func keyAlgorithmMismatch() {
        // ES256 header on an Ed25519 key, and the reverse: the key decides the algorithm.
        #expect(reason(Fixtures.token(fixtures.es, header: #"{"alg":"ES256","kid":"ed-1"}"#)) == .keyAlgorithmMismatch)
        #expect(reason(Fixtures.token(fixtures.ed, header: #"{"alg":"EdDSA","kid":"es-1"}"#)) == .keyAlgorithmMismatch)
        // EdDSA and Ed25519 are the same algorithm for an Ed25519 key, whatever the key declares.
        #expect(reason(Fixtures.token(fixtures.edDSA, header: #"{"alg":"Ed25519","kid":"eddsa-1"}"#)) == nil)
        #expect(reason(Fixtures.token(fixtures.ed, header: #"{"alg":"EdDSA","kid":"ed-1"}"#)) == nil)
    }

    @Test func wrongEnvironment() {
        let prodClaims = Fixtures.claims(["env": "\"prod\""])
        let intClaims = Fixtures.claims(["env": "\"int\""])
        #expect(reason(Fixtures.token(fixtures.prodKey, claims: intClaims)) == .wrongEnvironment)
        #expect(reason(Fixtures.token(fixtures.prodKey, claims: prodClaims)) == nil)
        let intRun = fixtures.verifier(options: VerificationOptions(environment: .integration, checkTime: Fixtures.now))
        #expect(reason(Fixtures.token(fixtures.ed, claims: prodClaims), verifier: intRun) == .wrongEnvironment)
        #expect(reason(Fixtures.token(fixtures.prodKey), verifier: intRun) == .wrongEnvironment)
        #expect(reason(Fixtures.token(fixtures.ed, claims: intClaims), verifier: intRun) == nil)
    }

    @Test func wrongIssuer() {
        #expect(
            reason(Fixtures.token(fixtures.prodKey, claims: Fixtures.claims(["iss": "\"operator-b\""]))) == .wrongIssuer
        )
        let run = fixtures.verifier(options: VerificationOptions(issuer: "operator-b", checkTime: Fixtures.now))
        #expect(reason(Fixtures.token(fixtures.ed), verifier: run) == .wrongIssuer)
        #expect(
            reason(Fixtures.token(fixtures.ed, claims: Fixtures.claims(["iss": "\"operator-b\""])), verifier: run)
                == nil)
    }

    @Test func validityWindow() {
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["nbf": "1799999000", "exp": "1800000100"]))
        #expect(reason(token, at: 1_799_998_999) == .notYetValid)
        #expect(reason(token, at: 1_799_999_000) == nil)
        #expect(reason(token, at: 1800000099.5) == nil)
        #expect(reason(token, at: 1_800_000_100) == .expired)
        let lenient = fixtures.verifier(options: VerificationOptions(leeway: 60, checkTime: Fixtures.now))
        #expect(reason(token, verifier: lenient, at: 1_799_998_940) == nil)
        #expect(reason(token, verifier: lenient, at: 1_800_000_159) == nil)
        #expect(reason(token, verifier: lenient, at: 1_800_000_160) == .expired)
        let fractional = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["exp": "1800000000.25"]))
        #expect(reason(fractional, at: 1800000000.2) == nil)
        #expect(reason(fractional, at: 1800000000.25) == .expired)
    }

    @Test func revocations() throws {
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["aud": #"["car-0","car-1"]"#]))
        let cases: [(String, Reason)] = [
            (#"{"kid":"ed-1"}"#, .revokedKey), (#"{"jti":"t-1"}"#, .revokedToken),
            (#"{"sub":"phone-1"}"#, .revokedDevice),
            (#"{"aud":"car-1"}"#, .revokedObject), (#"{"sub":"phone-1","aud":"car-1"}"#, .revokedGrant),
        ]
        for (line, expected) in cases {
            let verifier = fixtures.verifier(revocations: try RevocationList.parse(Array(line.utf8)))
            #expect(reason(token, verifier: verifier) == expected, "\(line)")
        }
        let unrelated = fixtures.verifier(
            revocations: try RevocationList.parse(
                Array(
                    "{\"jti\":\"t-2\"}\n{\"sub\":\"phone-2\",\"aud\":\"car-1\"}\n{\"sub\":\"car-1\"}\n{\"aud\":\"phone-1\"}\n"
                        .utf8)))
        #expect(reason(token, verifier: unrelated) == nil)
    }

    @Test func requestContext() {
        let token = Fixtures.token(fixtures.es)
        #expect(reason(token, device: "phone-2") == .wrongDevice)
        #expect(reason(token, object: "car-2") == .wrongObject)
        #expect(reason(token, channel: "uwb") == .channelNotPermitted)
        #expect(reason(token, command: "engine_start") == .commandNotPermitted)
        #expect(reason(token, device: "phone-1", object: "car-1", channel: "nfc", command: "lock") == nil)
    }

    @Test func badSignature() {
        for key in [fixtures.ed, fixtures.es] {
            let token = Fixtures.token(key)
            let other = Fixtures.token(key, claims: Fixtures.claims(["jti": "\"t-2\""]))
            let swapped = replacingSegment(token, 2, with: String(other.split(separator: ".")[2]))
            #expect(reason(swapped) == .badSignature, "\(key.algorithm) swapped")
            let signature = Base64URL.decode(Array(token.split(separator: ".")[2].utf8))!
            let short = replacingSegment(token, 2, with: Base64URL.encodeString(signature.dropLast()))
            #expect(reason(short) == .badSignature, "\(key.algorithm) short")
            #expect(reason(replacingSegment(token, 2, with: "")) == .badSignature)
            let tamperedClaims = replacingSegment(token, 1, with: b64(Fixtures.claims(["cmd": #"["engine_start"]"#])))
            #expect(reason(tamperedClaims) == .badSignature)
        }
    }

    @Test func es256SignatureRangeAndEncoding() {
        let token = Fixtures.token(fixtures.es)
        let signature = Base64URL.decode(Array(token.split(separator: ".")[2].utf8))!
        let order = hexBytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")
        let zero = [UInt8](repeating: 0, count: 32)
        var highS = Array(signature[0..<32])
        highS += subtract(order, Array(signature[32..<64]))  // s' = n − s also verifies (high-s accepted)
        let cases: [([UInt8], Reason?)] = [
            (zero + signature[32...], .badSignature),
            (Array(signature[..<32]) + zero, .badSignature),
            (order + signature[32...], .badSignature),
            (Array(signature[..<32]) + order, .badSignature),
            (derEncode(signature), .badSignature),
            (highS, nil),
        ]
        for (bytes, expected) in cases {
            #expect(reason(replacingSegment(token, 2, with: Base64URL.encodeString(bytes))) == expected)
        }
    }

    @Test func auditReportsEveryFailure() {
        let audit = fixtures.verifier(
            revocations: try! RevocationList.parse(Array(#"{"jti":"t-1"}"#.utf8)),
            options: VerificationOptions(checkTime: Fixtures.now + 10_000, audit: true))
        let token = Fixtures.token(fixtures.ed, claims: Fixtures.claims(["iss": "\"x\""]))
        let tampered = replacingSegment(token, 2, with: String(Fixtures.token(fixtures.ed).split(separator: ".")[2]))
        let result = audit.verify(VerificationRequest(token: tampered, command: "horn"))
        #expect(result.failures.map(\.reason) == [.expired, .revokedToken, .commandNotPermitted, .badSignature])
        let plain = fixtures.verifier(
            revocations: try! RevocationList.parse(Array(#"{"jti":"t-1"}"#.utf8)),
            options: VerificationOptions(checkTime: Fixtures.now + 10_000))
        #expect(
            plain.verify(VerificationRequest(token: tampered, command: "horn")).failures.map(\.reason) == [.expired])
    }
}

/// a − b for 32-byte big-endian numbers (a ≥ b).
func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    var result = [UInt8](repeating: 0, count: 32)
    var borrow = 0
    for index in stride(from: 31, through: 0, by: -1) {
        var value = Int(a[index]) - Int(b[index]) - borrow
        borrow = value < 0 ? 1 : 0
        if value < 0 { value += 256 }
        result[index] = UInt8(value)
    }
    return result
}

/// The DER form of an r‖s signature.
func derEncode(_ signature: [UInt8]) -> [UInt8] {
    func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var value = Array(bytes.drop(while: { $0 == 0 }))
        if value.isEmpty || value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02, UInt8(value.count)] + value
    }
    let body = integer(signature[0..<32]) + integer(signature[32..<64])
    return [0x30, UInt8(body.count)] + body
}
