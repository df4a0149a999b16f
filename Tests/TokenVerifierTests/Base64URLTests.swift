import Testing

@testable import TokenVerifier

@Suite struct Base64URLTests {
    @Test func roundTripsEveryLength() {
        for length in 0..<100 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains(UInt8(ascii: "=")))
            #expect(Base64URL.decode(encoded) == bytes)
        }
    }

    @Test func aBadCharacterIsFoundAtEveryPosition() {
        let encoded = Base64URL.encode((0..<72).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 7) })
        for position in encoded.indices {
            for bad in [UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "/"), 0x00, 0x80, 0xFF] {
                var text = encoded
                text[position] = bad
                #expect(Base64URL.decode(text) == nil, "\(bad) at \(position)")
            }
        }
    }

    @Test func decodingIntoAnExactBufferWritesNothingPastIt() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let encoded = Base64URL.encode(bytes)
            var output = [UInt8](repeating: 0xAA, count: length + 8)
            let written = encoded.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer {
                    Base64URL.decode(input, into: UnsafeMutableBufferPointer(rebasing: $0[0..<length]))
                }
            }
            #expect(written == length)
            #expect(Array(output[0..<length]) == bytes)
            #expect(output[length...].allSatisfy { $0 == 0xAA }, "length \(length)")
        }
    }

    @Test func knownValues() {
        #expect(Base64URL.encodeString(Array("{\"alg\":\"EdDSA\"}".utf8)) == "eyJhbGciOiJFZERTQSJ9")
        #expect(Base64URL.decode(Array("_-8".utf8)) == [0xFF, 0xEF])
    }

    @Test(arguments: [
        "QQ==",  // padding
        "Q",  // length 1 mod 4
        "QR",  // unused bits not zero ("QQ" is canonical for "A")
        "QUF",  // unused bits not zero ("QUE" is canonical for "AA")
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
