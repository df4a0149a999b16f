import Testing
@testable import TokenVerifier

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains(UInt8(ascii: "=")))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test func knownValues() {
        #expect(Base64URL.encodeString(Array("{\"alg\":\"EdDSA\"}".utf8)) == "eyJhbGciOiJFZERTQSJ9")
        #expect(Base64URL.decode(Array("_-8".utf8)) == [0xFF, 0xEF])
    }

    @Test(arguments: [
        "QQ==",  // padding
        "Q",     // length 1 mod 4
        "QR",    // unused bits not zero ("QQ" is canonical for "A")
        "QUF",   // unused bits not zero ("QUE" is canonical for "AA")
        "a+b/",  // standard alphabet
        "QU E",  // white space
        "QUE\n",
    ])
    func rejectsNonCanonical(_ text: String) {
        #expect(Base64URL.decode(Array(text.utf8)) == nil)
    }

    @Test func acceptsCanonicalTails() {
        #expect(Base64URL.decode(Array("QQ".utf8)) == [0x41])
        #expect(Base64URL.decode(Array("QUE".utf8)) == [0x41, 0x41])
        #expect(Base64URL.decode(Array("".utf8)) == [])
    }
}
