import Testing

@testable import TokenFormats

@Suite struct JSONWriterTests {
    /// The escaping as written a byte at a time, to compare the word-at-a-time writer with.
    private func reference(_ utf8: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        let hex = Array("0123456789abcdef".utf8)
        for byte in utf8 {
            switch byte {
            case 0x22, 0x5C: out += [UInt8(ascii: "\\"), byte]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        return out + [UInt8(ascii: "\"")]
    }

    private func written(_ utf8: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        utf8.withUnsafeBufferPointer { writer.string(utf8: $0) }
        return writer.bytes
    }

    /// The same through a cursor, in a buffer of exactly the documented bound.
    private func cursorWritten(_ utf8: [UInt8]) -> [UInt8] {
        var writer = JSONWriter()
        utf8.withUnsafeBufferPointer { text in writer.append(upTo: 6 * text.count + 2) { $0.string(utf8: text) } }
        return writer.bytes
    }

    @Test func escapesEveryByteThatNeedsItAtEveryPosition() {
        for length in 0..<40 {
            let plain = (0..<length).map { UInt8(ascii: "a") + UInt8($0 % 26) }
            #expect(written(plain) == reference(plain))
            #expect(cursorWritten(plain) == reference(plain))
            let specials: [UInt8] = [
                0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x22, 0x5C,
                0x20, 0x21, 0x5B, 0x7F, 0x80, 0xC3, 0xFF,
            ]
            for position in 0..<length {
                for special in specials {
                    var text = plain
                    text[position] = special
                    #expect(written(text) == reference(text), "\(special) at \(position) of \(length)")
                    #expect(cursorWritten(text) == reference(text), "\(special) at \(position) of \(length)")
                    if position + 1 < length {
                        text[position + 1] = 0x22
                        #expect(written(text) == reference(text), "\(special) and a quote at \(position) of \(length)")
                        #expect(cursorWritten(text) == reference(text), "\(special), quote at \(position) of \(length)")
                    }
                }
            }
        }
    }

    @Test func writesIntegersAsStringDoes() {
        let values: [Int64] = [
            0, 1, -1, 9, 10, -10, 99, 100, 1_800_000_000, -62_135_596_800, 8_999_999_999_999_999,
            Int64.max, Int64.min, Int64.min + 1,
        ]
        for value in values {
            var writer = JSONWriter()
            writer.integer(value)
            #expect(writer.bytes == Array(String(value).utf8))
            var lineWriter = JSONWriter()
            lineWriter.integer(Int(value))
            #expect(lineWriter.bytes == Array(String(value).utf8))
            var cursorWriter = JSONWriter()
            cursorWriter.append(upTo: 20) { $0.integer(value) }
            #expect(cursorWriter.bytes == Array(String(value).utf8))
        }
    }

    @Test func writesIntegersAroundEveryPowerOfTenAsStringDoes() {
        var values: [Int64] = []
        var power: Int64 = 1
        for _ in 0...18 {
            values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(Int64(bitPattern: random.next()) >> (random.next() % 64)) }
        for value in values {
            var cursorWriter = JSONWriter()
            cursorWriter.append(upTo: 20) { $0.integer(value) }
            #expect(cursorWriter.bytes == Array(String(value).utf8), "\(value)")
        }
    }

    @Test func copiesRawBytesOfEveryLength() {
        for length in 0..<70 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
            var writer = JSONWriter()
            bytes.withUnsafeBufferPointer { text in
                writer.append(upTo: text.count + 2) { out in
                    out.raw("[")
                    out.raw(text)
                    out.raw("]")
                }
            }
            #expect(writer.bytes == [UInt8(ascii: "[")] + bytes + [UInt8(ascii: "]")], "\(length)")
        }
    }

    @Test func minifiesAsTheWriterDoes() {
        let texts = [
            "7", " \"a b\" ", "{ \"k\" : [1, 2,\t\"x \\\" y\"] }\r\n", "[ ]", "\"\\\\\" ",
            "{\"a\":\"\\u0020 \"}",
        ]
        for text in texts {
            let json = Array(text.utf8)
            var writer = JSONWriter()
            json.withUnsafeBufferPointer { writer.minified($0) }
            var cursorWriter = JSONWriter()
            json.withUnsafeBufferPointer { text in cursorWriter.append(upTo: text.count) { $0.minified(text) } }
            #expect(cursorWriter.bytes == writer.bytes, "\(text)")
        }
    }
}
