import XCTest

@testable import TokenTools
@testable import TokenVerifier

/// Tokens carrying certificate chains (spec §3b), JWS `x5c` and CWT `x5chain` alike: every reason
/// a chain can give, the cache, and nothing read without trust anchors.
final class ChainTokenTests: XCTestCase {
    private static let formats: [TokenFormat] = [.jws, .cwt]

    private func verifier(
        _ fixture: ChainFixture, environment: Environment? = nil, keys: KeySet? = nil,
        revocations: RevocationList = .empty, options: VerificationOptions = VerificationOptions(),
        anchors: Bool = true
    ) throws -> Verifier {
        Verifier(
            keys: try keys ?? KeySet(keys: []), revocations: revocations,
            trustAnchors: anchors ? try fixture.anchors(environment: environment) : nil, options: options)
    }

    private func verify(
        _ verifier: Verifier, _ token: String, at time: Double = ChainFixture.during
    )
        -> VerificationResult
    {
        verifier.verify(VerificationRequest(token: token, checkTime: time))
    }

    func testATokenSignedUnderAConfiguredRootVerifiesWithNoKidAndNoKeySet() throws {
        for algorithm in [SignatureAlgorithm.ed25519, .es256] {
            let fixture = try ChainFixture(leafAlgorithm: algorithm)
            let verifier = try verifier(fixture)
            for format in Self.formats {
                let result = verify(verifier, try fixture.token(format))
                XCTAssertTrue(result.isValid, "\(algorithm) \(format): \(result.detail ?? "")")
            }
        }
    }

    func testWithoutTrustAnchorsAChainIsIgnoredAsBefore() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, anchors: false)
        let jws = verify(verifier, try fixture.jws())
        XCTAssertEqual(jws.reason, .badHeader, jws.detail ?? "")
        XCTAssertEqual(jws.detail, "the header has no kid")
        let cwt = verify(verifier, try fixture.cwt())
        XCTAssertEqual(cwt.reason, .badHeader, cwt.detail ?? "")
        // With a kid of the key set beside the chain, the kid finds the key as before.
        let keys = try KeySet.parse(Array("{\"keys\":[\(fixture.leafKey.publicJWK)]}".utf8)).0
        let withKeys = try self.verifier(fixture, keys: keys, anchors: false)
        let both = verify(withKeys, try fixture.jws(kid: "leaf"))
        XCTAssertTrue(both.isValid, both.detail ?? "")
    }

    func testAKidBesideAChainIsNotUsedToFindTheKey() throws {
        let fixture = try ChainFixture()
        let other = try ChainFixture(name: "Other")
        // The key set holds "leaf" = the leaf's key, but anchors are configured: the chain decides.
        let keys = try KeySet.parse(Array("{\"keys\":[\(fixture.leafKey.publicJWK)]}".utf8)).0
        let verifier = try verifier(other, keys: keys)
        let result = verify(verifier, try fixture.jws(kid: "leaf"))
        XCTAssertEqual(result.reason, .untrustedChain, result.detail ?? "")
    }

    func testAChainUnderAnotherRootIsUntrustedNamingTheCertificate() throws {
        let fixture = try ChainFixture()
        let other = try ChainFixture(name: "Other")
        let verifier = try verifier(other)
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format))
            XCTAssertEqual(result.reason, .untrustedChain, "\(format)")
            let detail = result.detail ?? ""
            XCTAssertTrue(detail.contains("x5t#S256"), detail)
            XCTAssertTrue(detail.contains("Operator"), detail)
        }
    }

    func testValidityIsJudgedAtTheLinesTime() throws {
        let fixture = try ChainFixture(leafNotBefore: 1_841_000_000, leafNotAfter: 1_870_000_000)
        let verifier = try verifier(fixture)
        for format in Self.formats {
            let token = try fixture.token(format, claims: ChainFixture.claims(exp: 1_880_000_000))
            let during = verify(verifier, token, at: 1_850_000_000)
            XCTAssertTrue(during.isValid, "\(format): \(during.detail ?? "")")
            let early = verify(verifier, token, at: 1_840_999_999)
            XCTAssertEqual(early.reason, .untrustedChain, "\(format)")
            XCTAssertTrue(early.detail?.contains("not yet valid") == true, early.detail ?? "")
            let late = verify(verifier, token, at: 1_870_000_001)
            XCTAssertEqual(late.reason, .untrustedChain, "\(format)")
            XCTAssertTrue(late.detail?.contains("expired") == true, late.detail ?? "")
            // The boundaries, as OpenSSL reads them: notBefore's second is within the validity,
            // notAfter's is not (X509_cmp_time), and a fraction counts as its whole second.
            XCTAssertTrue(verify(verifier, token, at: 1_841_000_000).isValid, "\(format)")
            let last = verify(verifier, token, at: 1_869_999_999.5)
            XCTAssertTrue(last.isValid, "\(format): \(last.detail ?? "")")
            XCTAssertEqual(verify(verifier, token, at: 1_870_000_000).reason, .untrustedChain, "\(format)")
            // And valid again inside the window: the cached chain answers.
            XCTAssertTrue(verify(verifier, token, at: 1_845_000_000).isValid, "\(format)")
        }
    }

    func testALeafKeyThatDoesNotFitTheAlgIsKeyAlgMismatch() throws {
        let fixture = try ChainFixture(leafAlgorithm: .ed25519)
        let verifier = try verifier(fixture)
        let es256 = SigningKey.generate(algorithm: .es256, keyID: "other")
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format, key: es256))
            XCTAssertEqual(result.reason, .keyAlgorithmMismatch, "\(format): \(result.detail ?? "")")
            XCTAssertTrue(result.detail?.contains("the chain's certificate") == true, result.detail ?? "")
        }
    }

    func testASignatureByAnotherKeyUnderTheChainIsBadSignature() throws {
        let fixture = try ChainFixture(leafAlgorithm: .ed25519)
        let verifier = try verifier(fixture)
        let other = SigningKey.generate(algorithm: .ed25519, keyID: "other")
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format, key: other))
            XCTAssertEqual(result.reason, .badSignature, "\(format): \(result.detail ?? "")")
        }
    }

    func testTheAnchorsEnvironmentIsTheKeysEnvironment() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, environment: .production)
        for format in Self.formats {
            let forInt = try fixture.token(format, claims: ChainFixture.claims(extra: ",\"env\":\"int\""))
            let result = verify(verifier, forInt)
            XCTAssertEqual(result.reason, .wrongEnvironment, "\(format): \(result.detail ?? "")")
            let forProd = try fixture.token(format, claims: ChainFixture.claims(extra: ",\"env\":\"prod\""))
            XCTAssertTrue(verify(verifier, forProd).isValid, "\(format)")
        }
        let intOnly = try self.verifier(
            fixture, environment: .production, options: VerificationOptions(environment: .integration))
        XCTAssertEqual(verify(intOnly, try fixture.jws()).reason, .wrongEnvironment)
    }

    func testIssMustNameTheLeaf() throws {
        let fixture = try ChainFixture(uris: ["urn:operator:backend"], dnsNames: ["keys.operator.example"])
        let verifier = try verifier(fixture)
        for format in Self.formats {
            for iss in [
                "urn:operator:backend", "keys.operator.example", "https://keys.operator.example/tokens",
                "https://KEYS.operator.example",
            ] {
                let result = verify(verifier, try fixture.token(format, claims: ChainFixture.claims(iss: iss)))
                XCTAssertTrue(result.isValid, "\(format) \(iss): \(result.detail ?? "")")
            }
            for iss in [
                "urn:operator:other", "https://operator.example", "http://keys.operator.example",
                "https://evil@keys.operator.example.attacker",
            ] {
                let result = verify(verifier, try fixture.token(format, claims: ChainFixture.claims(iss: iss)))
                XCTAssertEqual(result.reason, .wrongIssuer, "\(format) \(iss)")
            }
        }
    }

    func testRevokingACertificateOfThePathRevokesItsTokens() throws {
        let fixture = try ChainFixture()
        let intermediate = Base64URL.encodeString(sha256(fixture.intermediate.der))
        let revocations = RevocationList(entries: [RevocationEntry(.certificate(intermediate))])
        let verifier = try verifier(fixture, revocations: revocations)
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format))
            XCTAssertEqual(result.reason, .revokedKey, "\(format)")
            XCTAssertTrue(result.detail?.contains(intermediate) == true, result.detail ?? "")
        }
        // `since` puts it in force from then on only.
        let later = RevocationList(entries: [RevocationEntry(.certificate(intermediate), since: 1_855_000_000)])
        let sinceVerifier = try self.verifier(fixture, revocations: later)
        XCTAssertTrue(verify(sinceVerifier, try fixture.jws(), at: 1_850_000_000).isValid)
        XCTAssertEqual(verify(sinceVerifier, try fixture.jws(), at: 1_856_000_000).reason, .revokedKey)
    }

    /// Finding 1: revoking a certificate by `x5t#S256` revokes it however its ECDSA signature is
    /// encoded ((r, s) or (r, n − s)), whichever encoding the revocation or the token holds; the
    /// key's `spki#S256` revokes it too.
    func testRevocationSurvivesReEncodingOfTheSignature() throws {
        let fixture = try ChainFixture()
        let twinIntermediate = try TokenTools.Certificate(der: CertificateEncodings.twin(fixture.intermediate.der))
        let twinLeaf = try TokenTools.Certificate(der: CertificateEncodings.twin(fixture.leaf.der))
        let twinChain = [twinLeaf, twinIntermediate]
        let carried = Base64URL.encodeString(sha256(fixture.intermediate.der))
        let twin = Base64URL.encodeString(sha256(twinIntermediate.der))
        guard case .trusted(let path) = try fixture.anchors().validate(fixture.chain.map(\.der), at: 1_850_000_000)
        else {
            return XCTFail("the fixture's chain validates")
        }
        let key = path.certificates[1].keyThumbprint
        let selectors: [(RevocationEntry.Selector, [TokenTools.Certificate]?)] = [
            (.certificate(carried), twinChain), (.certificate(twin), nil),
            (.keyThumbprint(String(decoding: key, as: UTF8.self)), twinChain),
        ]
        for (selector, chain) in selectors {
            let verifier = try verifier(fixture, revocations: RevocationList(entries: [RevocationEntry(selector)]))
            for format in Self.formats {
                let result = verify(verifier, try fixture.token(format, chain: chain))
                XCTAssertEqual(result.reason, .revokedKey, "\(selector) \(format): \(result.detail ?? "valid")")
            }
        }
        let clean = try verifier(fixture)
        XCTAssertTrue(verify(clean, try fixture.token(.jws, chain: twinChain)).isValid, "the twin chain validates")
    }

    func testTheRevocationSelectorIsCheckedWhenLoaded() throws {
        XCTAssertThrowsError(try RevocationList.parse(Array("{\"x5t#S256\":\"short\"}\n".utf8)))
        XCTAssertThrowsError(
            try RevocationList.parse(
                Array("{\"x5t#S256\":\"\(String(repeating: "A", count: 43))\",\"kid\":\"k\"}\n".utf8)))
        XCTAssertNoThrow(
            try RevocationList.parse(Array("{\"x5t#S256\":\"\(String(repeating: "A", count: 43))\"}\n".utf8)))
    }

    func testMalformedChainsAreUntrustedOrBadHeader() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture)
        // x5c that is not an array of standard base64.
        for x5c in ["\"abc\"", "[]", "[1]", "[\"not base64!\"]", "[\"QUJD\"]"] {
            let header = Array("{\"alg\":\"Ed25519\",\"x5c\":\(x5c)}".utf8)
            let token = fixture.leafKey.sign(header: header, claims: ChainFixture.claims())
            let result = verify(verifier, token)
            XCTAssertEqual(result.reason, .untrustedChain, "\(x5c): \(result.detail ?? "")")
        }
        // More than eight certificates.
        let long = try fixture.jws(chain: Array(repeating: fixture.leaf, count: 9))
        XCTAssertTrue(verify(verifier, long).detail?.contains("at most 8") == true)
        // x5chain in both headers.
        var unprotected: [UInt8] = [0xA1, 0x18, 33, 0x59]
        let der = fixture.leaf.der
        unprotected += [UInt8(der.count >> 8), UInt8(der.count & 0xFF)] + der
        let both = try fixture.cwt(unprotected: unprotected)
        let result = verify(verifier, both)
        XCTAssertEqual(result.reason, .badHeader, result.detail ?? "")
        XCTAssertEqual(result.detail, "x5chain (33) is in both headers")
    }

    func testAChainIsValidatedOnceAndCached() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture)
        let cache = try XCTUnwrap(verifier.core.snapshot.chains?.cache)
        for index in 0..<5 {
            XCTAssertTrue(
                verify(verifier, try fixture.jws(claims: ChainFixture.claims(extra: ",\"n\":\(index)"))).isValid)
        }
        XCTAssertEqual(cache.misses.load(ordering: .relaxed), 1)
        // The same token again (its signature from the signature cache), alone and in a batch.
        let token = try fixture.jws()
        for _ in 0..<2 { XCTAssertTrue(verify(verifier, token).isValid) }
        let batch = verifier.verify(
            Array(repeating: VerificationRequest(token: token, checkTime: ChainFixture.during), count: 8))
        XCTAssertTrue(batch.allSatisfy(\.isValid))
        // A failure that does not depend on the time is kept too.
        let other = try ChainFixture(name: "Other")
        for _ in 0..<3 { XCTAssertEqual(verify(verifier, try other.jws()).reason, .untrustedChain) }
        XCTAssertEqual(cache.misses.load(ordering: .relaxed), 2)
    }

    func testTheCacheIsBoundedByItsSlots() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, options: VerificationOptions(chainCacheEntries: 4))
        let cache = try XCTUnwrap(verifier.core.snapshot.chains?.cache)
        XCTAssertEqual(cache.capacity, 4)
        var fixtures: [ChainFixture] = []
        for index in 0..<12 {
            fixtures.append(try ChainFixture(uris: ["https://operator.example/issuer/\(index)"]))
        }
        for other in fixtures { _ = verify(verifier, try other.jws()) }
        XCTAssertEqual(cache.misses.load(ordering: .relaxed), 12)
    }

    func testEveryAnswerOfABatchMatchesTheSingleCall() throws {
        let fixture = try ChainFixture(leafAlgorithm: .es256)
        let other = try ChainFixture(name: "Other")
        let verifier = try verifier(fixture)
        var tokens: [String] = []
        for index in 0..<40 {
            let claims = ChainFixture.claims(extra: ",\"n\":\(index)")
            tokens.append(
                index % 5 == 4
                    ? try other.jws(claims: claims) : try fixture.token(index % 2 == 0 ? .jws : .cwt, claims: claims))
        }
        let requests = tokens.map { VerificationRequest(token: $0, checkTime: ChainFixture.during) }
        let batch = verifier.verify(requests)
        for (request, result) in zip(requests, batch) {
            let single = verifier.verify(request)
            XCTAssertEqual(single.reason, result.reason)
            XCTAssertEqual(single.detail, result.detail)
        }
        XCTAssertEqual(batch.filter(\.isValid).count, 32)
    }
}
