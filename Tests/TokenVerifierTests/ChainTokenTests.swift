import Testing

@testable import TokenTools
@testable import TokenVerifier

/// Tokens carrying certificate chains (spec §3b), JWS `x5c` and CWT `x5chain` alike: every reason
/// a chain can give, the cache, and nothing read without trust anchors.
@Suite struct ChainTokenTests {
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

    @Test func aTokenSignedUnderAConfiguredRootVerifiesWithNoKidAndNoKeySet() throws {
        for algorithm in [SignatureAlgorithm.ed25519, .es256] {
            let fixture = try ChainFixture(leafAlgorithm: algorithm)
            let verifier = try verifier(fixture)
            for format in Self.formats {
                let result = verify(verifier, try fixture.token(format))
                #expect(result.isValid, "\(algorithm) \(format): \(result.detail ?? "")")
            }
        }
    }

    @Test func withoutTrustAnchorsAChainIsIgnoredAsBefore() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, anchors: false)
        let jws = verify(verifier, try fixture.jws())
        #expect(jws.reason == .badHeader, "\(jws.detail ?? "")")
        #expect(jws.detail == "the header has no kid")
        let cwt = verify(verifier, try fixture.cwt())
        #expect(cwt.reason == .badHeader, "\(cwt.detail ?? "")")
        // With a kid of the key set beside the chain, the kid finds the key as before.
        let keys = try KeySet.parse(Array("{\"keys\":[\(fixture.leafKey.publicJWK)]}".utf8)).0
        let withKeys = try self.verifier(fixture, keys: keys, anchors: false)
        let both = verify(withKeys, try fixture.jws(kid: "leaf"))
        #expect(both.isValid, "\(both.detail ?? "")")
    }

    @Test func aKidBesideAChainIsNotUsedToFindTheKey() throws {
        let fixture = try ChainFixture()
        let other = try ChainFixture(name: "Other")
        // The key set holds "leaf" = the leaf's key, but anchors are configured: the chain decides.
        let keys = try KeySet.parse(Array("{\"keys\":[\(fixture.leafKey.publicJWK)]}".utf8)).0
        let verifier = try verifier(other, keys: keys)
        let result = verify(verifier, try fixture.jws(kid: "leaf"))
        #expect(result.reason == .untrustedChain, "\(result.detail ?? "")")
    }

    @Test func aChainUnderAnotherRootIsUntrustedNamingTheCertificate() throws {
        let fixture = try ChainFixture()
        let other = try ChainFixture(name: "Other")
        let verifier = try verifier(other)
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format))
            #expect(result.reason == .untrustedChain, "\(format)")
            let detail = result.detail ?? ""
            #expect(detail.contains("x5t#S256"), "\(detail)")
            #expect(detail.contains("Operator"), "\(detail)")
        }
    }

    @Test func validityIsJudgedAtTheLinesTime() throws {
        let fixture = try ChainFixture(leafNotBefore: 1_841_000_000, leafNotAfter: 1_870_000_000)
        let verifier = try verifier(fixture)
        for format in Self.formats {
            let token = try fixture.token(format, claims: ChainFixture.claims(exp: 1_880_000_000))
            let during = verify(verifier, token, at: 1_850_000_000)
            #expect(during.isValid, "\(format): \(during.detail ?? "")")
            let early = verify(verifier, token, at: 1_840_999_999)
            #expect(early.reason == .untrustedChain, "\(format)")
            #expect(early.detail?.contains("not yet valid") == true, "\(early.detail ?? "")")
            let late = verify(verifier, token, at: 1_870_000_001)
            #expect(late.reason == .untrustedChain, "\(format)")
            #expect(late.detail?.contains("expired") == true, "\(late.detail ?? "")")
            // The boundaries, as OpenSSL reads them: notBefore's second is within the validity,
            // notAfter's is not (X509_cmp_time), and a fraction counts as its whole second.
            #expect(verify(verifier, token, at: 1_841_000_000).isValid, "\(format)")
            let last = verify(verifier, token, at: 1_869_999_999.5)
            #expect(last.isValid, "\(format): \(last.detail ?? "")")
            #expect(verify(verifier, token, at: 1_870_000_000).reason == .untrustedChain, "\(format)")
            // And valid again inside the window: the cached chain answers.
            #expect(verify(verifier, token, at: 1_845_000_000).isValid, "\(format)")
        }
    }

    @Test func aLeafKeyThatDoesNotFitTheAlgIsKeyAlgMismatch() throws {
        let fixture = try ChainFixture(leafAlgorithm: .ed25519)
        let verifier = try verifier(fixture)
        let es256 = SigningKey.generate(algorithm: .es256, keyID: "other")
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format, key: es256))
            #expect(result.reason == .keyAlgorithmMismatch, "\(format): \(result.detail ?? "")")
            #expect(result.detail?.contains("the chain's certificate") == true, "\(result.detail ?? "")")
        }
    }

    @Test func aSignatureByAnotherKeyUnderTheChainIsBadSignature() throws {
        let fixture = try ChainFixture(leafAlgorithm: .ed25519)
        let verifier = try verifier(fixture)
        let other = SigningKey.generate(algorithm: .ed25519, keyID: "other")
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format, key: other))
            #expect(result.reason == .badSignature, "\(format): \(result.detail ?? "")")
        }
    }

    @Test func theAnchorsEnvironmentIsTheKeysEnvironment() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, environment: .production)
        for format in Self.formats {
            let forInt = try fixture.token(format, claims: ChainFixture.claims(extra: ",\"env\":\"int\""))
            let result = verify(verifier, forInt)
            #expect(result.reason == .wrongEnvironment, "\(format): \(result.detail ?? "")")
            let forProd = try fixture.token(format, claims: ChainFixture.claims(extra: ",\"env\":\"prod\""))
            #expect(verify(verifier, forProd).isValid, "\(format)")
        }
        let intOnly = try self.verifier(
            fixture, environment: .production, options: VerificationOptions(environment: .integration))
        #expect(verify(intOnly, try fixture.jws()).reason == .wrongEnvironment)
    }

    @Test func issMustNameTheLeaf() throws {
        let fixture = try ChainFixture(uris: ["urn:operator:backend"], dnsNames: ["keys.operator.example"])
        let verifier = try verifier(fixture)
        for format in Self.formats {
            for iss in [
                "urn:operator:backend", "keys.operator.example", "https://keys.operator.example/tokens",
                "https://KEYS.operator.example",
            ] {
                let result = verify(verifier, try fixture.token(format, claims: ChainFixture.claims(iss: iss)))
                #expect(result.isValid, "\(format) \(iss): \(result.detail ?? "")")
            }
            for iss in [
                "urn:operator:other", "https://operator.example", "http://keys.operator.example",
                "https://evil@keys.operator.example.attacker",
            ] {
                let result = verify(verifier, try fixture.token(format, claims: ChainFixture.claims(iss: iss)))
                #expect(result.reason == .wrongIssuer, "\(format) \(iss)")
            }
        }
    }

    @Test func revokingACertificateOfThePathRevokesItsTokens() throws {
        let fixture = try ChainFixture()
        let intermediate = Base64URL.encodeString(sha256(fixture.intermediate.der))
        let revocations = RevocationList(entries: [RevocationEntry(.certificate(intermediate))])
        let verifier = try verifier(fixture, revocations: revocations)
        for format in Self.formats {
            let result = verify(verifier, try fixture.token(format))
            #expect(result.reason == .revokedKey, "\(format)")
            #expect(result.detail?.contains(intermediate) == true, "\(result.detail ?? "")")
        }
        // `since` puts it in force from then on only.
        let later = RevocationList(entries: [RevocationEntry(.certificate(intermediate), since: 1_855_000_000)])
        let sinceVerifier = try self.verifier(fixture, revocations: later)
        #expect(verify(sinceVerifier, try fixture.jws(), at: 1_850_000_000).isValid)
        #expect(verify(sinceVerifier, try fixture.jws(), at: 1_856_000_000).reason == .revokedKey)
    }

    /// Finding 1: revoking a certificate by `x5t#S256` revokes it however its ECDSA signature is
    /// encoded ((r, s) or (r, n − s)), whichever encoding the revocation or the token holds; the
    /// key's `spki#S256` revokes it too.
    @Test func revocationSurvivesReEncodingOfTheSignature() throws {
        let fixture = try ChainFixture()
        let twinIntermediate = try TokenTools.Certificate(der: CertificateEncodings.twin(fixture.intermediate.der))
        let twinLeaf = try TokenTools.Certificate(der: CertificateEncodings.twin(fixture.leaf.der))
        let twinChain = [twinLeaf, twinIntermediate]
        let carried = Base64URL.encodeString(sha256(fixture.intermediate.der))
        let twin = Base64URL.encodeString(sha256(twinIntermediate.der))
        guard case .trusted(let path) = try fixture.anchors().validate(fixture.chain.map(\.der), at: 1_850_000_000)
        else {
            Issue.record("the fixture's chain validates")
            return
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
                #expect(result.reason == .revokedKey, "\(selector) \(format): \(result.detail ?? "valid")")
            }
        }
        let clean = try verifier(fixture)
        #expect(verify(clean, try fixture.token(.jws, chain: twinChain)).isValid, "the twin chain validates")
    }

    @Test func theRevocationSelectorIsCheckedWhenLoaded() throws {
        #expect(throws: (any Error).self) { try RevocationList.parse(Array("{\"x5t#S256\":\"short\"}\n".utf8)) }
        #expect(throws: (any Error).self) {
            try RevocationList.parse(
                Array("{\"x5t#S256\":\"\(String(repeating: "A", count: 43))\",\"kid\":\"k\"}\n".utf8))
        }
        #expect(throws: Never.self) {
            try RevocationList.parse(Array("{\"x5t#S256\":\"\(String(repeating: "A", count: 43))\"}\n".utf8))
        }
    }

    @Test func malformedChainsAreUntrustedOrBadHeader() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture)
        // x5c that is not an array of standard base64.
        for x5c in ["\"abc\"", "[]", "[1]", "[\"not base64!\"]", "[\"QUJD\"]"] {
            let header = Array("{\"alg\":\"Ed25519\",\"x5c\":\(x5c)}".utf8)
            let token = fixture.leafKey.sign(header: header, claims: ChainFixture.claims())
            let result = verify(verifier, token)
            #expect(result.reason == .untrustedChain, "\(x5c): \(result.detail ?? "")")
        }
        // More than eight certificates.
        let long = try fixture.jws(chain: Array(repeating: fixture.leaf, count: 9))
        #expect(verify(verifier, long).detail?.contains("at most 8") == true)
        // x5chain in both headers.
        var unprotected: [UInt8] = [0xA1, 0x18, 33, 0x59]
        let der = fixture.leaf.der
        unprotected += [UInt8(der.count >> 8), UInt8(der.count & 0xFF)] + der
        let both = try fixture.cwt(unprotected: unprotected)
        let result = verify(verifier, both)
        #expect(result.reason == .badHeader, "\(result.detail ?? "")")
        #expect(result.detail == "x5chain (33) is in both headers")
    }

    @Test func aChainIsValidatedOnceAndCached() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture)
        let cache = try #require(verifier.core.snapshot.chains?.cache)
        for index in 0..<5 {
            #expect(verify(verifier, try fixture.jws(claims: ChainFixture.claims(extra: ",\"n\":\(index)"))).isValid)
        }
        #expect(cache.misses.load(ordering: .relaxed) == 1)
        // The same token again (its signature from the signature cache), alone and in a batch.
        let token = try fixture.jws()
        for _ in 0..<2 { #expect(verify(verifier, token).isValid) }
        let batch = verifier.verify(
            Array(repeating: VerificationRequest(token: token, checkTime: ChainFixture.during), count: 8))
        #expect(batch.allSatisfy { $0.isValid })
        // A failure that does not depend on the time is kept too.
        let other = try ChainFixture(name: "Other")
        for _ in 0..<3 { #expect(verify(verifier, try other.jws()).reason == .untrustedChain) }
        #expect(cache.misses.load(ordering: .relaxed) == 2)
    }

    @Test func theCacheIsBoundedByItsSlots() throws {
        let fixture = try ChainFixture()
        let verifier = try verifier(fixture, options: VerificationOptions(chainCacheEntries: 4))
        let cache = try #require(verifier.core.snapshot.chains?.cache)
        #expect(cache.capacity == 4)
        var fixtures: [ChainFixture] = []
        for index in 0..<12 {
            fixtures.append(try ChainFixture(uris: ["https://operator.example/issuer/\(index)"]))
        }
        for other in fixtures { _ = verify(verifier, try other.jws()) }
        #expect(cache.misses.load(ordering: .relaxed) == 12)
    }

    @Test func everyAnswerOfABatchMatchesTheSingleCall() throws {
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
            #expect(single.reason == result.reason)
            #expect(single.detail == result.detail)
        }
        #expect(batch.filter(\.isValid).count == 32)
    }
}
