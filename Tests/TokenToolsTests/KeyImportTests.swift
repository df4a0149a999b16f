import Testing

@testable import TokenTools
@testable import TokenVerifier

/// `KeyImporter` on encodings built here byte by byte, and the true reasons for Ed25519 keys.
@Suite struct KeyImportTests {
    static let edKey: [UInt8] = Base64URL.decode(Array("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo".utf8))!
    static let edSPKI: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00] + edKey

    func importing(
        _ files: [[UInt8]], _ options: KeyImportOptions = KeyImportOptions()
    ) throws(KeySetError) -> KeyImporter.Imported {
        try KeyImporter.importKeys(files.enumerated().map { ("f\($0.offset)", $0.element) }, options: options)
    }

    func refusal(_ file: [UInt8]) -> String {
        do {
            _ = try importing([file])
            return "accepted"
        } catch {
            return error.description
        }
    }

    @Test func derAndPEMGiveTheRFC8037KeyAndItsThumbprint() throws {
        let pem =
            "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n-----END PUBLIC KEY-----\n"
        for file in [Self.edSPKI, Array(pem.utf8), [0xEF, 0xBB, 0xBF] + Array(pem.utf8)] {
            let imported = try importing([file])
            #expect(imported.keys.map(\.keyID) == ["kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"])  // RFC 8037 A.3
            #expect(imported.keys.first?.publicKeyBytes == Self.edKey)
            #expect(imported.warnings.isEmpty)
        }
    }

    @Test func privateKeysGiveTheirPublicPartWithAWarning() throws {
        let signing = SigningKey.generate(algorithm: .es256, keyID: "p")
        let imported = try importing([Array(signing.privateJWK.utf8)])
        #expect(!imported.jwks.contains("\"d\""))
        #expect(imported.warnings.count == 1)
        #expect(
            try KeySet.parse(Array(imported.jwks.utf8)).0["p"]?.publicKeyBytes
                == KeySet.parse(Array("{\"keys\":[\(signing.publicJWK)]}".utf8)).0["p"]?.publicKeyBytes)
    }

    @Test func encodingsThatCannotBeUsedAreNamed() {
        var compressed: [UInt8] = [
            0x30, 0x39, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48,
            0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x22, 0x00, 0x02,
        ]
        compressed += [UInt8](repeating: 1, count: 32)
        #expect(refusal(compressed).contains("a compressed P-256 point"))
        var x448 = Self.edSPKI
        x448[8] = 0x6F
        #expect(refusal(x448).contains("an X448 key"))
        #expect(
            refusal(Array("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n".utf8))
                .contains("an encrypted private key"))
        #expect(refusal(Array("-----BEGIN PUBLIC KEY-----\nAAAA\n".utf8)).contains("without its END line"))
        #expect(refusal([0x30, 0x03, 0x02, 0x01]).hasPrefix("f0: "))
    }

    @Test func ed25519KeysAreRefusedForTheTrueReason() {
        func reason(_ x: String) -> String {
            refusal(Array("{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"\(x)\",\"kid\":\"k\"}".utf8))
        }
        #expect(reason("mFGerfNbmVIztRtc0j6cxaKLY5taSvDskDy5YNgbeBk").contains("not in the prime-order subgroup"))
        #expect(reason("xxdqcD1N2E-6PAt2DRBnDyogU_osOczGTsf9d5KsA3o").contains("a point of small order"))
        // the identity
        #expect(reason("AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").contains("a point of small order"))
        #expect(reason("AgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA").contains("not a point on the curve"))
        // y = p
        #expect(reason("7f_______________________________________38").contains("not a canonical point encoding"))
        #expect(reason("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo") == "accepted")
    }

    @Test func anOKPKeysYIsIgnoredAndABOMAccepted() throws {
        let jwks =
            "\u{FEFF}{\"keys\":[{\"kty\":\"OKP\",\"crv\":\"Ed25519\",\"x\":\"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\",\"y\":7,\"kid\":\"k\"}]}"
        #expect(try KeySet.parse(Array(jwks.utf8)).0["k"] != nil)
    }
}
