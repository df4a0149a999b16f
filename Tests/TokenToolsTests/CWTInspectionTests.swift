import Testing
import TokenTools
import TokenVerifier

/// `inspect`'s JSON view of a CWT: labels named, bytes as base64url, tags and integers exact.
@Suite struct CWTInspectionTests {
    static func byteString(_ bytes: [UInt8]) -> [UInt8] { [0x58, UInt8(bytes.count)] + bytes }

    @Test func writesEveryKindAsJSON() throws {
        let payload: [UInt8] =
            [
                0xA6, 0x01, 0x61, 0x6F, 0x04, 0x1A, 0x6B, 0x49, 0xD2, 0x00, 0x19, 0xFF, 0xFF, 0xA1, 0x61, 0x6B, 0x41,
                0xFF,
            ]
            + [0x61, 0x66, 0xC1, 0xF9, 0x7C, 0x00, 0x61, 0x6E, 0x3B] + Array(repeating: 0xFF, count: 8)
            + [0x3B] + Array(repeating: 0xFF, count: 8) + [0x82, 0xF7, 0xF6]
        let cbor: [UInt8] =
            [0xD2, 0x84] + Self.byteString([0xA1, 0x01, 0x27]) + [0xA1, 0x04, 0x42, 0x6B, 0x31]
            + Self.byteString(payload)
            + Self.byteString(Array(repeating: 7, count: 64))
        let members = try CWTInspection.members(of: Array(Base64URL.encodeString(cbor).utf8)).get()
        let expected =
            #""protected":{"alg (1)":-8},"unprotected":{"kid (4)":"azE"},"claims":{"iss (1)":"o","exp (4)":1800000000,"#
            + #""status (65535)":{"k":"_w"},"f":{"tag":1,"value":"inf"},"n":-18446744073709551616,"#
            + #""integer beyond 64 bits":["undefined",null]},"signature_bytes":64"#
        #expect(String(decoding: members, as: UTF8.self) == expected)
    }

    @Test func aMessageThatIsNotCOSESign1IsRefused() {
        let refused = CWTInspection.members(of: Array(Base64URL.encodeString([0x83, 0x40, 0xA0, 0x40]).utf8))
        guard case .failure(let error) = refused else {
            Issue.record("decoded")
            return
        }
        #expect(error.description.contains("an array of four items"), "\(error.description)")
    }
}
