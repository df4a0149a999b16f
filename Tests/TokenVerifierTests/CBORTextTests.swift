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
