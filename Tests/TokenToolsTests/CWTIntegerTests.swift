import Testing
import TokenVerifier

@testable import TokenTools

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
