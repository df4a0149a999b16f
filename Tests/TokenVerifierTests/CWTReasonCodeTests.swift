import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// Every reason code of spec §5 that a token can cause, produced by a CWT (spec §2b).
@Suite struct CWTReasonCodeTests {
    let fixtures = Fixtures()

    func result(
        _ token: String, verifier: Verifier? = nil, device: String? = nil, object: String? = nil,
        channel: String? = nil, command: String? = nil, at time: Double? = nil
    ) -> VerificationResult {
        (verifier ?? fixtures.verifier()).verify(
            VerificationRequest(
                token: token, device: device, object: object, channel: channel,
                command: command, checkTime: time))
    }

    func reason(
        _ token: String, verifier: Verifier? = nil, device: String? = nil, object: String? = nil,
        channel: String? = nil, command: String? = nil, at time: Double? = nil
    ) -> Reason? {
        result(token, verifier: verifier, device: device, object: object, channel: channel, command: command, at: time)
            .reason
    }

    /// A CWT whose claims map is the standard one with `entries` appended (encoded keys and values).
    func withClaims(_ key: SigningKey, dropping: Set<Int> = [], _ entries: [([UInt8], [UInt8])] = []) -> String {
        var base: [([UInt8], [UInt8])] = [
            (CBOR.int(1), CBOR.text("operator-a")), (CBOR.int(2), CBOR.text("phone-1")),
            (CBOR.int(3), CBOR.text("car-1")),
            (CBOR.int(7), CBOR.text("t-1")), (CBOR.int(4), CBOR.int(1_800_003_600)),
            (CBOR.text("ch"), CBOR.array([CBOR.text("ble")])), (CBOR.text("cmd"), CBOR.array([CBOR.text("unlock")])),
        ].enumerated().filter { !dropping.contains($0.offset) }.map(\.element)
        base += entries
        return Fixtures.cwt(key, payload: CBOR.map(base))
    }

    @Test func validCWTsOfEveryAlgorithm() {
        for key in [fixtures.ed, fixtures.edDSA, fixtures.es] {
            let verdict = result(
                Fixtures.cwt(key), device: "phone-1", object: "car-1", channel: "ble", command: "unlock")
            #expect(verdict.isValid, "\(key.algorithm): \(verdict.failures)")
            #expect(verdict.format == .cwt)
            #expect(verdict.claims?.tokenID == "t-1")
            #expect(verdict.claims?.channels == ["ble", "nfc"])
            #expect(verdict.header?.algorithm == key.algorithm.rawValue)
            #expect(!Fixtures.cwt(key).contains("."))
        }
        #expect(result(Fixtures.token(fixtures.ed)).format == .jws)
    }

    @Test func acceptedVariants() {
        let cbor = Fixtures.cborBytes(ofCWT: Fixtures.cwt(fixtures.ed))  // tag 18 first
        let untagged = Array(cbor.dropFirst())
        let cases: [[UInt8]] = [untagged, [0xD8, 61] + cbor, [0xD8, 61] + untagged]
        for bytes in cases {
            #expect(reason(Base64URL.encodeString(bytes)) == nil, "\(bytes.prefix(3))")
        }
        // kid in the unprotected header; typ accepted as text and as 61; a float exp; a bstr cti.
        let kidOutside = Fixtures.cwt(
            fixtures.ed, protected: CBOR.map([(CBOR.int(1), CBOR.int(-19))]),
            unprotected: CBOR.map([(CBOR.int(4), CBOR.bytes(Array("ed-1".utf8)))]))
        #expect(reason(kidOutside) == nil)
        for typ in [CBOR.text("application/cwt"), CBOR.int(61)] {
            let protected = CBOR.map([
                (CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), CBOR.bytes(Array("ed-1".utf8))), (CBOR.int(16), typ),
            ])
            #expect(reason(Fixtures.cwt(fixtures.ed, protected: protected)) == nil)
        }
        #expect(
            reason(Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(["exp": "1800000000.5"])), at: 1800000000.25)
                == nil)
        let bstrCTI = withClaims(fixtures.ed, dropping: [3], [(CBOR.int(7), CBOR.bytes([0xFB, 0xFF]))])
        #expect(result(bstrCTI).claims?.tokenID == "-_8")
        // Ignored claims of every well-formed kind, text labels in a header.
        let extras = withClaims(
            fixtures.ed,
            [
                (CBOR.int(-70000), [0xF9, 0x3C, 0x00]), (CBOR.text("x"), [0xC1, 0x1A, 0x00, 0x01, 0x00, 0x00]),
                (CBOR.int(8), [0xF4]), (CBOR.int(9), [0xF7]),
            ])
        #expect(reason(extras) == nil)
        // Integers, lengths and tags in longer heads than needed are well-formed (RFC 9052 §9 asks
        // shortest forms only of the Sig_structure): an 8-byte exp, a 2-byte array length, a
        // 4-byte text length, a wide claim key and a wide tag.
        let wideExp = withClaims(
            fixtures.ed, dropping: [4], [(CBOR.int(4), [0x1B, 0, 0, 0, 0, 0x6B, 0x49, 0xE0, 0x10])])
        #expect(result(wideExp).claims?.expiresAt == 1_800_003_600)
        #expect(reason(wideExp) == nil)
        let wideList = withClaims(
            fixtures.ed, dropping: [5], [(CBOR.text("ch"), [0x99, 0x00, 0x01, 0x7A, 0, 0, 0, 3] + Array("ble".utf8))])
        #expect(reason(wideList) == nil)
        let wideKey = withClaims(fixtures.ed, dropping: [0], [([0x19, 0x00, 0x01], CBOR.text("operator-a"))])
        #expect(reason(wideKey) == nil)
        let good = Fixtures.cborBytes(ofCWT: Fixtures.cwt(fixtures.ed))
        #expect(
            reason(Base64URL.encodeString([0xD9, 0x00, 0x12] + good.dropFirst())) == nil, "tag 18 in a 2-byte head")
        #expect(
            reason(Base64URL.encodeString([0x98, 0x04] + good.dropFirst(2))) == nil,
            "the message's array in a 1-byte head")
    }

    @Test func malformedToken() {
        let good = Fixtures.cborBytes(ofCWT: Fixtures.cwt(fixtures.ed))
        let message = Array(good.dropFirst())
        let signature = CBOR.bytes([UInt8](repeating: 1, count: 64))
        let protected = CBOR.bytes(CBOR.protected(alg: -19, kid: "ed-1"))
        let claims = CBOR.bytes(Fixtures.cwtClaims())
        let raw: [[UInt8]] = [
            [0xC7] + message,  // wrong tag
            [0xD2, 0xD8, 61] + message,  // 61 inside 18
            CBOR.array([protected, [0xA0], claims]),  // three items
            [0x9F] + protected + [0xA0] + claims + signature + [0xFF],  // indefinite array
            CBOR.array([protected, [0xA0], [0xF6], signature]),  // detached payload
            CBOR.array([protected, [0x80], claims, signature]),  // unprotected not a map
            good + [0x00],  // trailing byte
            Array(good.dropLast()),  // truncated
            [0x84, 0x5B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // huge declared length
            [],
        ]
        for bytes in raw {
            #expect(reason(Base64URL.encodeString(bytes)) == .malformedToken, "\(bytes.prefix(4))")
        }
        var nested: [UInt8] = Array(repeating: 0x81, count: 200) + [0x00]
        nested = CBOR.map([(CBOR.int(99), nested)])
        let claimCases: [String] = [
            Fixtures.cwt(fixtures.ed, payload: [0x80]),
            Fixtures.cwt(fixtures.ed, payload: Fixtures.cwtClaims() + [0x00]),
            Fixtures.cwt(fixtures.ed, payload: [0xBF, 0xFF]),
            withClaims(fixtures.ed, [(CBOR.int(1), CBOR.text("again"))]),  // duplicate key
            withClaims(fixtures.ed, [(CBOR.text("ch"), CBOR.array([CBOR.text("nfc")]))]),
            withClaims(fixtures.ed, [(CBOR.int(99), nested)]),  // too deep
            withClaims(fixtures.ed, [(CBOR.int(99), [0x7F, 0x61, 0x61, 0xFF])]),  // indefinite text
            withClaims(fixtures.ed, [(CBOR.int(99), [0x62, 0xC3, 0x28])]),  // invalid UTF-8
            withClaims(fixtures.ed, [([0x18, 0x01], CBOR.text("again"))]),  // iss (1) again, in a wider head
            // "ch" again, wider
            withClaims(fixtures.ed, [([0x79, 0x00, 0x02] + Array("ch".utf8), CBOR.array([CBOR.text("nfc")]))]),
            withClaims(fixtures.ed, [(CBOR.int(99), [0xF8, 0x10])]),  // ill-formed simple value
            withClaims(fixtures.ed, [(CBOR.int(99), [0xF0])]),  // unassigned simple value
            withClaims(fixtures.ed, [(CBOR.int(99), [0x1C])]),  // reserved additional information
            withClaims(fixtures.ed, [(CBOR.bytes([1]), CBOR.int(1))]),  // bstr map key
            withClaims(fixtures.ed, dropping: [4], [(CBOR.int(4), CBOR.text("soon"))]),
            withClaims(fixtures.ed, dropping: [4], [(CBOR.int(4), [0xF9, 0x7E, 0x00])]),  // NaN
            withClaims(fixtures.ed, dropping: [4], [(CBOR.int(4), [0xFA, 0x7F, 0x80, 0x00, 0x00])]),  // infinity
            // tagged date
            withClaims(fixtures.ed, dropping: [4], [(CBOR.int(4), [0xC1, 0x1A, 0x6B, 0x49, 0xD2, 0x00])]),
            withClaims(fixtures.ed, dropping: [4]),
            withClaims(fixtures.ed, dropping: [3]),
            withClaims(fixtures.ed, dropping: [3], [(CBOR.int(7), CBOR.int(5))]),
            withClaims(fixtures.ed, dropping: [0]),
            withClaims(fixtures.ed, dropping: [1], [(CBOR.int(2), CBOR.bytes([1]))]),
            withClaims(fixtures.ed, dropping: [2], [(CBOR.int(3), CBOR.array([]))]),
            withClaims(fixtures.ed, dropping: [5], [(CBOR.text("ch"), CBOR.array([CBOR.text("ble"), CBOR.int(1)]))]),
            withClaims(fixtures.ed, dropping: [6]),
            withClaims(fixtures.ed, [(CBOR.text("env"), CBOR.text("dev"))]),
            withClaims(fixtures.ed, [(CBOR.text("role"), CBOR.int(1))]),
            Fixtures.cwt(fixtures.ed) + "=", Fixtures.cwt(fixtures.ed) + "x", "a+b", "a.b", "a.b.c.d",
        ]
        for token in claimCases {
            let verdict = result(token)
            #expect(verdict.reason == .malformedToken, "\(token): \(verdict.failures)")
        }
    }

    @Test func unsupportedAlgorithm() {
        for alg in [
            CBOR.int(-35), CBOR.int(-257), CBOR.int(-9), CBOR.text("ES256"), CBOR.text("EdDSA"), CBOR.bytes([0xF8]),
        ] {
            let protected = CBOR.map([(CBOR.int(1), alg), (CBOR.int(4), CBOR.bytes(Array("ed-1".utf8)))])
            #expect(reason(Fixtures.cwt(fixtures.ed, protected: protected)) == .unsupportedAlgorithm, "\(alg)")
        }
        #expect(
            reason(Fixtures.cwt(fixtures.ed, protected: CBOR.map([(CBOR.int(4), CBOR.bytes(Array("ed-1".utf8)))])))
                == .unsupportedAlgorithm)
        #expect(reason(Fixtures.cwt(fixtures.ed, protected: [])) == .unsupportedAlgorithm)
    }

    @Test func badHeader() {
        let kid = CBOR.bytes(Array("ed-1".utf8))
        let cases: [(protected: [([UInt8], [UInt8])], unprotected: [([UInt8], [UInt8])])] = [
            ([(CBOR.int(1), CBOR.int(-19))], []),  // no kid
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), CBOR.text("ed-1"))], []),  // kid as text
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), CBOR.bytes([0xC3, 0x28]))], []),  // kid not UTF-8
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid)], [(CBOR.int(4), kid)]),  // kid in both
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid), (CBOR.int(2), CBOR.array([CBOR.int(4)]))], []),  // crit
            // crit outside
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid)], [(CBOR.int(2), CBOR.array([CBOR.int(4)]))]),
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid), (CBOR.int(16), CBOR.text("JWT"))], []),
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid), (CBOR.int(16), CBOR.int(16))], []),
            ([(CBOR.int(4), kid)], [(CBOR.int(1), CBOR.int(-19))]),  // alg only unprotected
            ([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid)], [(CBOR.int(1), CBOR.int(-19))]),  // alg in both
        ]
        for (protected, unprotected) in cases {
            let token = Fixtures.cwt(fixtures.ed, protected: CBOR.map(protected), unprotected: CBOR.map(unprotected))
            let verdict = result(token)
            #expect(verdict.reason == .badHeader, "\(protected) \(unprotected): \(verdict.failures)")
            #expect(verdict.format == .cwt)
        }
        // A protected header that is not a map at all is malformed.
        #expect(reason(Fixtures.cwt(fixtures.ed, protected: CBOR.array([])), at: nil) == .malformedToken)
    }

    @Test func keysComeFromTheKeySetOnly() {
        let stranger = SigningKey.generate(algorithm: .ed25519, keyID: "stranger")
        #expect(reason(Fixtures.cwt(stranger)) == .unknownKey)
        // Signed by the stranger, naming ed-1 and carrying the stranger's key in a COSE_Key header (label -1).
        let posing = Fixtures.cwt(
            stranger, protected: CBOR.protected(alg: -19, kid: "ed-1"),
            unprotected: CBOR.map([(CBOR.int(-1), CBOR.bytes(Array(stranger.publicJWK.utf8)))]))
        #expect(reason(posing) == .badSignature)
        #expect(
            reason(Fixtures.cwt(fixtures.es, protected: CBOR.protected(alg: -7, kid: "ed-1"))) == .keyAlgorithmMismatch)
        #expect(
            reason(Fixtures.cwt(fixtures.ed, protected: CBOR.protected(alg: -8, kid: "es-1"))) == .keyAlgorithmMismatch)
        #expect(reason(Fixtures.cwt(fixtures.ed, protected: CBOR.protected(alg: -8, kid: "ed-1"))) == nil)
    }

    @Test func claimChecks() throws {
        #expect(
            reason(Fixtures.cwt(fixtures.prodKey, claims: Fixtures.claims(["env": "\"int\""]))) == .wrongEnvironment)
        #expect(reason(Fixtures.cwt(fixtures.prodKey, claims: Fixtures.claims(["env": "\"prod\""]))) == nil)
        #expect(
            reason(Fixtures.cwt(fixtures.prodKey, claims: Fixtures.claims(["iss": "\"operator-b\""]))) == .wrongIssuer)
        let window = Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(["nbf": "1799999000", "exp": "1800000100"]))
        #expect(reason(window, at: 1_799_998_999) == .notYetValid)
        #expect(reason(window, at: 1_800_000_099) == nil)
        #expect(reason(window, at: 1_800_000_100) == .expired)
        let token = Fixtures.cwt(fixtures.ed, claims: Fixtures.claims(["aud": #"["car-0","car-1"]"#]))
        let cases: [(String, Reason)] = [
            (#"{"kid":"ed-1"}"#, .revokedKey), (#"{"jti":"t-1"}"#, .revokedToken),
            (#"{"sub":"phone-1"}"#, .revokedDevice),
            (#"{"aud":"car-1"}"#, .revokedObject), (#"{"sub":"phone-1","aud":"car-1"}"#, .revokedGrant),
        ]
        for (line, expected) in cases {
            #expect(
                reason(token, verifier: fixtures.verifier(revocations: try RevocationList.parse(Array(line.utf8))))
                    == expected, "\(line)")
        }
        // A bstr cti is revoked by its base64url.
        let bstrCTI = withClaims(fixtures.ed, dropping: [3], [(CBOR.int(7), CBOR.bytes([0xFB, 0xFF]))])
        #expect(
            reason(
                bstrCTI,
                verifier: fixtures.verifier(revocations: try RevocationList.parse(Array(#"{"jti":"-_8"}"#.utf8))))
                == .revokedToken)
        #expect(reason(token, device: "phone-2") == .wrongDevice)
        #expect(reason(token, object: "car-2") == .wrongObject)
        #expect(reason(token, channel: "uwb") == .channelNotPermitted)
        #expect(reason(token, command: "engine_start") == .commandNotPermitted)
        #expect(reason(token, device: "phone-1", object: "car-0", channel: "nfc", command: "lock") == nil)
        let steps = SecuritySteps(
            policy: try StepPolicy.parse(Array(#"{"unlock":["trustedPhone"]}"#.utf8)),
            done: try DeviceSteps.parse(Array(#"{"sub":"phone-9","aud":"car-1","done":["trustedPhone"]}"#.utf8)))
        let stepped = Verifier(
            keys: fixtures.keySet, steps: steps, options: VerificationOptions(checkTime: Fixtures.now))
        #expect(reason(token, verifier: stepped, command: "unlock") == .stepRequired)
    }

    @Test func badSignature() {
        for key in [fixtures.ed, fixtures.es] {
            let token = Fixtures.cwt(key)
            let tampered = Fixtures.cwt(
                key, presentedPayload: Fixtures.cwtClaims(Fixtures.claims(["cmd": #"["engine_start"]"#])))
            #expect(reason(tampered) == .badSignature, "\(key.algorithm)")
            var cbor = Fixtures.cborBytes(ofCWT: token)
            let signature = Array(cbor.suffix(64))
            cbor.removeLast(66)
            for bad in [
                Array(signature.dropLast()), [], [UInt8](repeating: 0, count: 64),
                Array(signature[32...] + signature[..<32]),
            ] {
                let verdict = result(Base64URL.encodeString(cbor + CBOR.bytes(bad)))
                #expect(verdict.reason == .badSignature, "\(key.algorithm) \(bad.count)")
                #expect(verdict.format == .cwt)
            }
            // The protected header is signed as received: re-encoding it (same map) breaks the signature.
            let reordered = CBOR.map([
                (CBOR.int(4), CBOR.bytes(Array(key.keyID.utf8))),
                (CBOR.int(1), CBOR.int(key.algorithm == .es256 ? -7 : -19)),
            ])
            let swapped = Fixtures.cborBytes(ofCWT: Fixtures.cwt(key, protected: reordered))
            let resigned = Array(swapped.dropLast(66)) + CBOR.bytes(signature)
            #expect(reason(Base64URL.encodeString(resigned)) == .badSignature)
        }
    }

    @Test func auditReportsEveryFailure() throws {
        let audit = fixtures.verifier(
            revocations: try RevocationList.parse(Array(#"{"jti":"t-1"}"#.utf8)),
            options: VerificationOptions(checkTime: Fixtures.now + 10_000, audit: true))
        let tampered = Fixtures.cwt(
            fixtures.ed, presentedPayload: Fixtures.cwtClaims(Fixtures.claims(["iss": "\"x\""])))
        let verdict = audit.verify(VerificationRequest(token: tampered, command: "horn"))
        #expect(verdict.failures.map(\.reason) == [.expired, .revokedToken, .commandNotPermitted, .badSignature])
    }
}
