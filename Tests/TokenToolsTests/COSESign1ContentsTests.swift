import Testing
import TokenTools
import TokenVerifier

/// ``COSESign1Contents``: a CWT decoded for reading, every CBOR kind a token may hold.
@Suite struct COSESign1ContentsTests {
    /// A COSE_Sign1 message under tag 18 with these protected, unprotected, payload and signature items.
    static func message(protected: [UInt8], unprotected: [UInt8], payload: [UInt8], signature: Int = 64) -> [UInt8] {
        [0xD2, 0x84] + byteString(protected) + unprotected + byteString(payload)
            + byteString(Array(repeating: 7, count: signature))
    }

    static func byteString(_ bytes: [UInt8]) -> [UInt8] {
        bytes.count < 24
            ? [0x40 + UInt8(bytes.count)] + bytes : [0x59, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
    }

    static func token(_ cbor: [UInt8]) -> [UInt8] { Array(Base64URL.encodeString(cbor).utf8) }

    @Test func everyKindATokenMayHold() throws {
        let payload: [UInt8] =
            [0xA9, 0x01, 0x63] + Array("iss".utf8)  // 1: "iss"
            + [0x04, 0x1A, 0x6B, 0x49, 0xD2, 0x00]  // 4: 1800000000
            + [0x03, 0x82, 0x61, 0x61, 0x41, 0xFF]  // 3: ["a", h'ff']
            + [0x61, 0x66, 0xC1, 0xF9, 0x3E, 0x00]  // "f": 1(1.5 as a half float)
            + [0x61, 0x6E, 0x3B] + Array(repeating: 0xFF, count: 8)  // "n": −2^64
            + [0x61, 0x75, 0xF7, 0x61, 0x74, 0xF5, 0x61, 0x7A, 0xF6]  // "u": undefined, "t": true, "z": null
            + [0x3B] + Array(repeating: 0xFF, count: 8) + [0xF4]  // −2^64: false
        let cbor = Self.message(
            protected: [0xA1, 0x01, 0x27], unprotected: [0xA1, 0x04, 0x42, 0x6B, 0x31], payload: payload)
        let contents = try COSESign1Contents.decode(cwt: Self.token(cbor)).get()
        #expect(contents.protected == .map([CBORMapEntry(key: .integer(1), value: .negative(7))]))
        #expect(contents.unprotected == .map([CBORMapEntry(key: .integer(4), value: .bytes([0x6B, 0x31]))]))
        #expect(contents.signatureByteCount == 64)
        let expected: [CBORMapEntry] = [
            .init(key: .integer(1), value: .text("iss")), .init(key: .integer(4), value: .unsigned(1_800_000_000)),
            .init(key: .integer(3), value: .array([.text("a"), .bytes([0xFF])])),
            .init(key: .text("f"), value: .tagged(1, .float(1.5))), .init(key: .text("n"), value: .negative(.max)),
            .init(key: .text("u"), value: .undefined), .init(key: .text("t"), value: .bool(true)),
            .init(key: .text("z"), value: .null), .init(key: .integerBeyond64Bits, value: .bool(false)),
        ]
        #expect(contents.payload == .map(expected))
    }

    @Test func anEmptyProtectedHeaderIsAnEmptyMap() throws {
        let cbor = Self.message(protected: [], unprotected: [0xA0], payload: [0xA0])
        let contents = try COSESign1Contents.decode(cwt: Self.token(cbor)).get()
        #expect(contents.protected == .map([]) && contents.payload == .map([]))
    }

    @Test func refusalsSayWhy() {
        let deep = Array(repeating: UInt8(0x81), count: 5000) + [0x00]
        let cases: [([UInt8], String)] = [
            (Self.message(protected: [], unprotected: [0xA0], payload: deep), "nests deeper than 128"),
            (Self.message(protected: [], unprotected: [0xA0], payload: [0xA0, 0x00]), "1 bytes follow"),
            (Self.message(protected: [], unprotected: [0xA0], payload: [0xF0]), "simple value 16 is not accepted"),
            (Self.message(protected: [], unprotected: [0xA2, 0x01, 0x00, 0x01, 0x00], payload: [0xA0]), "twice"),
            (Self.message(protected: [], unprotected: [0xA0], payload: [0x62, 0xC3, 0x28]), "UTF-8"),
        ]
        for (cbor, message) in cases {
            switch COSESign1Contents.decode(cwt: Self.token(cbor)) {
            case .success(let contents): Issue.record("\(message): decoded as \(contents)")
            case .failure(let error): #expect(error.description.contains(message), "\(error.description)")
            }
        }
        #expect((try? COSESign1Contents.decode(cwt: Array("a+b".utf8)).get()) == nil, "not base64url")
    }
}
