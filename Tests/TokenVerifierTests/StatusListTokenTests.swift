import Foundation
import TestSupport
import Testing
import TokenTools

@testable import TokenVerifier

/// Loading a Status List Token (spec §4c): each form it may come in, and each rule that refuses it.
@Suite struct StatusListTokenTests {
    let fixtures = Fixtures()
    let uri = Fixtures.statusListURI

    func load(
        _ text: some Collection<UInt8>, keys: KeySet? = nil, options: VerificationOptions = VerificationOptions(),
        limit: Int = 1 << 20
    ) throws(StatusListError) -> StatusListToken {
        try StatusListToken.load(
            bytes: Array(text), source: "list.token", keys: keys ?? fixtures.keySet, options: options,
            maxInflatedBytes: limit)
    }

    func refusal(
        _ text: some Collection<UInt8>, keys: KeySet? = nil, options: VerificationOptions = VerificationOptions(),
        limit: Int = 1 << 20
    ) -> String? {
        do {
            _ = try load(text, keys: keys, options: options, limit: limit)
            return nil
        } catch {
            return error.description
        }
    }

    /// A JWS list with this header and these claims (JSON), signed by `key`.
    func jws(_ key: SigningKey, header: String? = nil, claims: String? = nil) -> String {
        let lst = Base64URL.encodeString(Deflate.zlib([0b0000_0010]))
        let header = header ?? #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.keyID)","typ":"statuslist+jwt"}"#
        let claims = claims ?? #"{"sub":"\#(uri)","iat":1799990000,"status_list":{"bits":1,"lst":"\#(lst)"}}"#
        return Fixtures.token(key, claims: claims, header: header)
    }

    @Test func everyFormLoads() throws {
        for key in [fixtures.ed, fixtures.edDSA, fixtures.es] {
            let list = try load(Array(jws(key).utf8))
            #expect(
                list.uri == uri && list.bits == 1 && list.count == 8 && list.status(at: 1) == 1
                    && list.status(at: 0) == 0)
            #expect(list.format == .jws && list.keyID == key.keyID && list.issuedAt == 1_799_990_000)
            let cwt = Fixtures.statusListToken(
                key, bits: 4, size: 6, statuses: [5: 9], format: .cwt, expiresAt: 1_900_000_000, timeToLive: 60)
            let fromText = try load(Array(("\n  " + cwt + "\r\n").utf8))
            #expect(fromText.format == .cwt && fromText.bits == 4 && fromText.status(at: 5) == 9 && fromText.count == 6)
            #expect(fromText.expiresAt == 1_900_000_000 && fromText.timeToLive == 60)
            let raw = try #require(Base64URL.decode(Array(cwt.utf8)))
            #expect(try load(raw).status(at: 5) == 9, "raw CBOR bytes")
        }
    }

    @Test func jwsRefusals() throws {
        let key = fixtures.ed
        let lst = Base64URL.encodeString(Deflate.zlib([1]))
        func claims(_ members: String) -> String { "{" + members + "}" }
        let list = #""status_list":{"bits":1,"lst":"\#(lst)"}"#
        let cases: [(String, String)] = [
            (
                jws(key, header: #"{"alg":"Ed25519","kid":"ed-1","typ":"JWT"}"#),
                #"typ must be "statuslist+jwt" (found "JWT")"#
            ),
            (jws(key, header: #"{"alg":"Ed25519","kid":"ed-1"}"#), "typ must be \"statuslist+jwt\" (it is missing)"),
            (jws(key, header: #"{"alg":"Ed25519","kid":"ed-1","typ":"STATUSLIST+JWT"}"#), "typ must be"),
            (jws(key, header: #"{"alg":"HS256","kid":"ed-1","typ":"statuslist+jwt"}"#), "unsupported alg \"HS256\""),
            (jws(key, header: #"{"alg":"ES256","kid":"ed-1","typ":"statuslist+jwt"}"#), "does not fit key \"ed-1\""),
            (
                jws(key, header: #"{"alg":"Ed25519","kid":"nobody","typ":"statuslist+jwt"}"#),
                "key \"nobody\" is not in the key set"
            ),
            (jws(key, header: #"{"alg":"Ed25519","typ":"statuslist+jwt"}"#), "\"kid\" is missing"),
            (jws(key, header: #"{"alg":"Ed25519","kid":"ed-1","typ":"statuslist+jwt","crit":["x"]}"#), "crit"),
            (
                jws(key, header: #"{"alg":"Ed25519","kid":"ed-1","kid":"ed-1","typ":"statuslist+jwt"}"#),
                "header is not valid"
            ),
            (jws(key, claims: claims(#""iat":1,"# + list)), "sub (the list's URI) is missing"),
            (jws(key, claims: claims(#""sub":"\#(uri)","# + list)), "iat is missing"),
            (jws(key, claims: claims(#""sub":"\#(uri)","iat":1,"ttl":0,"# + list)), "ttl must be a positive number"),
            (jws(key, claims: claims(#""sub":"\#(uri)","iat":1"#)), "status_list with \"bits\" and \"lst\" is missing"),
            (
                jws(key, claims: claims(#""sub":"\#(uri)","iat":1,"status_list":{"bits":3,"lst":"\#(lst)"}"#)),
                "must be 1, 2, 4 or 8"
            ),
            (
                jws(key, claims: claims(#""sub":"\#(uri)","iat":1,"status_list":{"bits":1,"lst":"\#(lst)="}"#)),
                "not canonical base64url"
            ),
            (
                jws(key, claims: claims(#""sub":"\#(uri)","iat":1,"status_list":{"bits":1,"lst":"AAAA"}"#)),
                "lst: the ZLIB stream is broken"
            ),
            (jws(key, claims: claims(#""sub":"\#(uri)","sub":"x","iat":1,"# + list)), "duplicate member \"sub\""),
            (jws(key) + "A", "signature"),
            (
                replacingSegment(jws(key), 2, with: String(jws(fixtures.edDSA).split(separator: ".")[2])),
                "the signature does not verify with key \"ed-1\""
            ),
            ("", "empty"), ("a.b", "three base64url segments"),
        ]
        for (text, mention) in cases {
            let got = refusal(Array(text.utf8))
            #expect(got?.contains(mention) == true, "\(mention): \(got ?? "loaded")")
            #expect(got?.hasPrefix("list.token: ") == true)
        }
    }

    @Test func keyRulesAndLimits() throws {
        let prod = fixtures.prodKey  // env prod, iss operator-a
        let list = Fixtures.statusListToken(prod)
        #expect(refusal(Array(list.utf8), options: VerificationOptions(environment: .production)) == nil)
        #expect(
            refusal(Array(list.utf8), options: VerificationOptions(environment: .integration))?.contains(
                "is for env \"prod\"") == true)
        let lst = Base64URL.encodeString(Deflate.zlib([1]))
        let foreign = jws(
            prod, claims: #"{"sub":"\#(uri)","iss":"operator-b","iat":1,"status_list":{"bits":1,"lst":"\#(lst)"}}"#)
        #expect(
            refusal(Array(foreign.utf8))?.contains(
                "iss \"operator-b\" differs from key \"prod-1\"'s iss \"operator-a\"") == true)
        // A list that inflates past the limit fails its file, never memory.
        let big = Fixtures.statusListToken(fixtures.ed, bits: 8, size: 4096, statuses: [:])
        #expect(refusal(Array(big.utf8), limit: 4096) == nil)
        #expect(refusal(Array(big.utf8), limit: 4095)?.contains("inflates to more than 4095 bytes") == true)
    }

    @Test func cwtRefusals() throws {
        let key = fixtures.ed
        let signer = CWTSigner(key: key)
        let claims = CWTWriter.statusListClaims(
            uri: uri, issuedAt: 1, expiresAt: nil, timeToLive: nil, bits: 1, compressedList: Deflate.zlib([1]))
        let protected = CWTWriter.protectedHeader(
            algorithm: -19, keyID: "ed-1", type: UnverifiedStatusList.cwtType)
        func message(
            protected: [UInt8] = protected, payload: [UInt8] = claims, unprotected: [UInt8] = [0xA0]
        ) -> [UInt8] {
            signer.sign(payload: payload, protected: protected, unprotected: unprotected)
        }
        #expect(refusal(message()) == nil)
        let good = message()
        let cwtType = CBOR.text("application/statuslist+cwt")
        let kid = CBOR.bytes(Array("ed-1".utf8))
        let cases: [([UInt8], String)] = [
            ([0xD8, 61] + good, "tag 61 is not accepted (61 marks a CWT"),
            (Array(good.dropFirst()), "under tag 18"),
            ([0xD2] + good, "tag 18 is not accepted"),
            (
                message(protected: CBOR.protected(alg: -19, kid: "ed-1")),
                "typ (16) must be \"application/statuslist+cwt\" (it is missing)"
            ),
            (
                message(
                    protected: CBOR.map([
                        (CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid), (CBOR.int(16), CBOR.text("application/cwt")),
                    ])),
                "found \"application/cwt\""
            ),
            (
                message(
                    protected: CBOR.map([(CBOR.int(1), CBOR.int(-19)), (CBOR.int(4), kid)]),
                    unprotected: CBOR.map([(CBOR.int(16), cwtType)])), "it is missing"
            ),
            (
                message(
                    protected: CBOR.map([(CBOR.int(4), kid), (CBOR.int(16), cwtType)]),
                    unprotected: CBOR.map([(CBOR.int(1), CBOR.int(-19))])),
                "alg (1) must be in the protected header"
            ),
            (
                message(
                    protected: CBOR.map([(CBOR.int(1), CBOR.int(-35)), (CBOR.int(4), kid), (CBOR.int(16), cwtType)])),
                "unsupported alg (1) -35"
            ),
            (
                message(
                    protected: CBOR.map([
                        (CBOR.int(1), CBOR.int(-19)), (CBOR.int(2), CBOR.array([])), (CBOR.int(4), kid),
                        (CBOR.int(16), cwtType),
                    ])),
                "crit (2)"
            ),
            (
                message(
                    payload: CBOR.map([
                        (CBOR.int(6), CBOR.int(1)),
                        (
                            CBOR.int(65533),
                            CBOR.map([
                                (CBOR.text("bits"), CBOR.int(1)), (CBOR.text("lst"), CBOR.bytes(Deflate.zlib([1]))),
                            ])
                        ),
                    ])),
                "sub (2) (the list's URI) is missing"
            ),
            (
                message(
                    payload: CBOR.map([
                        (CBOR.int(2), CBOR.text(uri)), (CBOR.int(6), CBOR.int(1)),
                        (
                            CBOR.int(65533),
                            CBOR.map([(CBOR.text("bits"), CBOR.int(1)), (CBOR.text("lst"), CBOR.text("eNo"))])
                        ),
                    ])),
                "status_list (65533) must be a map"
            ),
            (
                message(
                    payload: CBOR.map([
                        (CBOR.int(2), CBOR.text(uri)), (CBOR.int(6), CBOR.int(1)), (CBOR.int(65534), CBOR.int(-5)),
                        (
                            CBOR.int(65533),
                            CBOR.map([
                                (CBOR.text("bits"), CBOR.int(1)), (CBOR.text("lst"), CBOR.bytes(Deflate.zlib([1]))),
                            ])
                        ),
                    ])),
                "ttl (65534) must be a positive number"
            ),
            (good + [0], "follow the CBOR item"),
        ]
        for (bytes, mention) in cases {
            let got = refusal(bytes)
            #expect(got?.contains(mention) == true, "\(mention): \(got ?? "loaded")")
        }
        var tampered = good
        tampered[tampered.count - 1] ^= 1
        #expect(refusal(tampered)?.contains("the signature does not verify") == true)
        #expect(
            refusal(Array(Base64URL.encodeString(good).utf8) + [UInt8(ascii: "=")])?.contains("neither a compact JWS")
                == true)
    }
}
