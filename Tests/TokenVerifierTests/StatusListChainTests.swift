import TestSupport
import Testing
import TokenFormats

@testable import TokenTools
@testable import TokenVerifier

/// Status List Tokens that carry a certificate chain (spec §3b last paragraph, §4c), JWS `x5c` and
/// CWT `x5chain` alike: checked by the chain as of the list's `iat`, `iss` required and a name of
/// the leaf, answering for chained and `kid` tokens of that `iss`, out of force when the anchors in
/// force no longer validate the chain.
@Suite struct StatusListChainTests {
    private static let formats: [TokenFormat] = [.jws, .cwt]
    private static let issuer = "https://operator.example/issuer"
    private static let uri = "https://operator.example/sl/1"
    /// The list's `iat`: inside the fixture's validity, before ``ChainFixture/during``.
    private static let listIssuedAt: Int64 = 1_845_000_000

    /// A `kid` key of the same issuer as the chain's leaf.
    private let kidKey = SigningKey.generate(algorithm: .es256, keyID: "kid-1", issuer: issuer)

    /// A list signed by the fixture's leaf with its chain in the header: entry 1 INVALID, 2 SUSPENDED.
    private func list(
        _ fixture: ChainFixture, _ format: TokenFormat, issuer: String? = issuer, issuedAt: Int64 = listIssuedAt
    ) throws -> [UInt8] {
        let chain = try TokenChain(fixture.chain, signingKey: fixture.leafKey)
        let text = try StatusListIssuer(key: fixture.leafKey, chain: chain).signWithoutIssuerCheck(
            uri: Self.uri, bits: 2, size: 16, statuses: [1: 1, 2: 2], format: format, issuedAt: issuedAt,
            expiresAt: nil, timeToLive: nil, issuer: issuer)
        return Array(text.utf8)
    }

    private func keys() throws -> KeySet { try KeySet(keys: [try Fixtures.publicKey(kidKey)]) }

    private func claims(index: Int) -> [UInt8] {
        ChainFixture.claims(
            iss: Self.issuer, extra: #","status":{"status_list":{"idx":\#(index),"uri":"\#(Self.uri)"}}"#)
    }

    /// A token of `format` for entry `index`: by the chain's leaf, or by the `kid` key.
    private func token(_ fixture: ChainFixture, _ format: TokenFormat, index: Int, chained: Bool) throws -> String {
        if chained { return try fixture.token(format, claims: claims(index: index)) }
        let json = String(decoding: claims(index: index), as: UTF8.self)
        return format == .jws ? Fixtures.token(kidKey, claims: json) : Fixtures.cwt(kidKey, claims: json)
    }

    private func verify(_ verifier: Verifier, _ token: String) -> VerificationResult {
        verifier.verify(VerificationRequest(token: token, checkTime: ChainFixture.during))
    }

    @Test func aChainedListAnswersForChainedAndKidTokensOfItsIssuer() throws {
        for format in Self.formats {
            let fixture = try ChainFixture()
            let anchors = try fixture.anchors()
            let list = try StatusListToken.load(
                bytes: try list(fixture, format), source: "sl.\(format)", keys: try keys(), anchors: anchors)
            #expect(list.isVerifiedByChain)
            #expect(list.signerIssuer == Self.issuer)
            let verifier = Verifier(
                keys: try keys(), statusLists: StatusListSet(lists: [list]), trustAnchors: anchors)
            #expect(verifier.statusListNotices == [])
            for chained in [true, false] {
                let name = "\(format) chained=\(chained)"
                #expect(verify(verifier, try token(fixture, format, index: 0, chained: chained)).isValid, "\(name)")
                let invalid = verify(verifier, try token(fixture, format, index: 1, chained: chained))
                #expect(invalid.reason == .statusInvalid, "\(name): \(invalid)")
                #expect(invalid.detail?.contains(Self.uri) == true, "\(name): \(invalid)")
                let suspended = verify(verifier, try token(fixture, format, index: 2, chained: chained))
                #expect(suspended.reason == .statusSuspended, "\(name): \(suspended)")
            }
        }
    }

    @Test func aChainedListWithoutIssOrWithIssNotALeafNameIsRefused() throws {
        for format in Self.formats {
            let fixture = try ChainFixture()
            let anchors = try fixture.anchors()
            do {
                _ = try StatusListToken.load(
                    bytes: try list(fixture, format, issuer: nil), source: "sl", keys: try keys(), anchors: anchors)
                Issue.record("no error was thrown")
            } catch {
                #expect("\(error)".contains("must name its issuer: claim iss"), "\(format): \(error)")
            }
            do {
                _ = try StatusListToken.load(
                    bytes: try list(fixture, format, issuer: "https://elsewhere.example/issuer"), source: "sl",
                    keys: try keys(), anchors: anchors)
                Issue.record("no error was thrown")
            } catch {
                let text = "\(error)"
                #expect(text.contains("iss \"https://elsewhere.example/issuer\" is not a name of"), "\(text)")
                #expect(text.contains("\"https://operator.example/issuer\""), "names the leaf's names: \(text)")
            }
        }
    }

    @Test func aChainExpiredAtTheListsIatIsRefused() throws {
        for format in Self.formats {
            let fixture = try ChainFixture(leafNotAfter: 1_840_000_000)
            do {
                _ = try StatusListToken.load(
                    bytes: try list(fixture, format), source: "sl", keys: try keys(), anchors: try fixture.anchors())
                Issue.record("no error was thrown")
            } catch {
                let text = "\(error)"
                #expect(
                    text.contains("its chain does not validate at its iat (2028-06-19T04:00:00Z): certificate"),
                    "\(text)")
                #expect(text.contains("Operator Signer"), "names the certificate: \(text)")
            }
            // The same chain at an iat inside the leaf's validity passes.
            #expect(throws: Never.self) {
                try StatusListToken.load(
                    bytes: try list(fixture, format, issuedAt: 1_830_000_000), source: "sl", keys: try keys(),
                    anchors: try fixture.anchors())
            }
        }
    }

    @Test func aChainedListWithoutAnchorsIsRefusedNamingWhy() throws {
        for format in Self.formats {
            let fixture = try ChainFixture()
            do {
                _ = try StatusListToken.load(bytes: try list(fixture, format), source: "sl", keys: try keys())
                Issue.record("no error was thrown")
            } catch {
                #expect("\(error)".contains("no trust anchors are configured (--trust-anchors)"), "\(error)")
            }
        }
    }

    @Test func anchorsReplacedPutTheListOutOfForce() throws {
        for format in Self.formats {
            let fixture = try ChainFixture()
            let other = try ChainFixture(name: "Other")
            let anchors = try fixture.anchors()
            let list = try StatusListToken.load(
                bytes: try list(fixture, format), source: "sl.\(format)", keys: try keys(), anchors: anchors)
            let verifier = Verifier(
                keys: try keys(), statusLists: StatusListSet(lists: [list]), trustAnchors: anchors)
            let kidToken = try token(fixture, format, index: 1, chained: false)
            #expect(verify(verifier, kidToken).reason == .statusInvalid)
            verifier.apply(LiveStateUpdate(trustAnchors: try other.anchors()))
            let answer = verify(verifier, kidToken)
            #expect(answer.reason == .statusUnavailable, "\(format): \(answer)")
            #expect(answer.detail?.contains("out of force") == true, "\(answer)")
            let notice = try #require(verifier.statusListNotices.first)
            #expect(notice.contains("its chain no longer verifies it under the trust anchors in force"), "\(notice)")
            #expect(notice.contains("sl.\(format)"), "\(notice)")
            verifier.apply(LiveStateUpdate(trustAnchors: anchors))
            #expect(verify(verifier, kidToken).reason == .statusInvalid, "the anchors back: it answers again")
            #expect(verifier.statusListNotices == [])
        }
    }

    @Test func aCWTListWithX5chainInBothHeadersIsRefused() throws {
        let fixture = try ChainFixture()
        let chain = try TokenChain(fixture.chain, signingKey: fixture.leafKey)
        let protected = chain.coseProtectedHeader(
            algorithm: CWTSigner.coseAlgorithm(fixture.leafKey.algorithm), type: UnverifiedStatusList.cwtType)
        var unprotected = CBORWriter()
        unprotected.head(major: 5, argument: 1)
        unprotected.integer(33)
        unprotected.byteString(fixture.leaf.der)
        let claims = CWTWriter.statusListClaims(
            uri: Self.uri, issuedAt: Self.listIssuedAt, expiresAt: nil, timeToLive: nil, bits: 1,
            compressedList: Deflate.zlib([0]), issuer: Self.issuer)
        let signer = CWTSigner(key: fixture.leafKey)
        for (name, header) in [("both headers", unprotected.bytes), ("protected only", [0xA0])] {
            let message = signer.sign(payload: claims, protected: protected, unprotected: header)
            let bytes = Array(Base64URL.encodeString(message).utf8)
            let anchors = try fixture.anchors()
            if name == "both headers" {
                do {
                    _ = try StatusListToken.load(bytes: bytes, source: "sl", keys: try keys(), anchors: anchors)
                    Issue.record("no error was thrown")
                } catch {
                    #expect("\(error)".contains("x5chain (33) is in both headers"), "\(error)")
                }
            } else {
                #expect(throws: Never.self) {
                    try StatusListToken.load(bytes: bytes, source: "sl", keys: try keys(), anchors: anchors)
                }
            }
        }
    }
}
