import Testing

@testable import TokenVerifier

@Suite struct CBORTextTests {
    /// Whether `bytes` is valid UTF-8, as Swift's own decoder says.
    private func reference(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    @Test func validatesUTF8AsSwiftDoesAtEveryPosition() {
        let pieces: [[UInt8]] = [
            [0x80], [0xC3], [0xC3, 0xA9], [0xC3, 0x28], [0xE2, 0x82, 0xAC], [0xE2, 0x82],
            [0xED, 0xA0, 0x80], [0xF0, 0x9F, 0x98, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0x00],
        ]
        for length in 0..<26 {
            let ascii = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            ascii.withUnsafeBufferPointer { #expect(CBORReader.isValidUTF8($0)) }
            for position in 0...length {
                for piece in pieces {
                    let text = Array(ascii[..<position]) + piece + Array(ascii[position...])
                    let valid = text.withUnsafeBufferPointer { CBORReader.isValidUTF8($0) }
                    #expect(valid == reference(text), "\(piece) at \(position) of \(length)")
                }
            }
        }
    }
}

/// `sign --format cwt`'s claims map keeps JSON integers exact from −2^64 to 2^64 − 1.
@Suite struct CWTIntegerTests {
    @Test func integersAreEncodedExactly() throws {
        let cases: [(String, [UInt8])] = [
            ("0", [0x00]), ("-0", [0x00]), ("23", [0x17]), ("-1", [0x20]), ("-24", [0x37]),
            ("9007199254740993", [0x1B, 0x00, 0x20, 0, 0, 0, 0, 0, 0x01]),
            ("18446744073709551615", [0x1B] + [UInt8](repeating: 0xFF, count: 8)),
            ("-18446744073709551616", [0x3B] + [UInt8](repeating: 0xFF, count: 8)),
            ("-9223372036854775809", [0x3B, 0x80, 0, 0, 0, 0, 0, 0, 0]),
            ("1.5", [0xF9, 0x3E, 0x00]),
        ]
        for (json, value) in cases {
            let encoded = try CWTEncoding.claims(json: Array("{\"n\":\(json)}".utf8))
            #expect(encoded == [0xA1, 0x61, UInt8(ascii: "n")] + value, "\(json): \(encoded)")
        }
        for outside in ["18446744073709551616", "-18446744073709551617", "99999999999999999999999"] {
            #expect(throws: JSONError.self) { _ = try CWTEncoding.claims(json: Array("{\"n\":\(outside)}".utf8)) }
        }
    }
}
