import Testing

@testable import TokenVerifier

@Suite struct JSONReaderTests {
    /// Reads `text` fully, skipping every value; returns the error, if any.
    func check(_ bytes: [UInt8]) -> JSONError? {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            do throws(JSONError) {
                try reader.skipValue()
                try reader.finish()
                return nil
            } catch {
                return error
            }
        }
    }

    func check(_ text: String) -> JSONError? { check(Array(text.utf8)) }

    @Test(arguments: [
        #"{}"#, #"[]"#, #"{"a":[1,-2.5e3,true,false,null,"x"],"b":{"c":{}}}"#, #" {"a" : 1 } "#,
        #""\u00e9\ud83d\ude00\n\t\"\\\/""#, #"0"#, #"-0.0E+1"#, #"{"a":{"x":1},"b":{"x":1}}"#,
    ])
    func acceptsValidJSON(_ text: String) {
        #expect(check(text) == nil)
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#,  // duplicate
        #"{"a":1,"\u0061":2}"#,  // duplicate after unescaping
        #"{"x":{"b":1,"b":1}}"#,  // nested duplicate
        #"[{"c":1,"c":1}]"#,  // duplicate inside an array
        #"{"a":1,}"#, #"[1,]"#, #"{"a" 1}"#, #"{'a':1}"#, #"[01]"#, #"[1.]"#, #"[.5]"#, #"[+1]"#,
        #"["\ud800"]"#, #"["\udc00"]"#, #"["\x"]"#, #"[tru]"#, #"[NaN]"#, #"{"a":1} x"#, #"/*c*/{}"#,
        "[\"a\u{0001}\"]", "",
    ])
    func rejectsInvalidJSON(_ text: String) {
        #expect(check(text) != nil)
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0x22, 0xC3, 0x22],  // truncated
            [0xEF, 0xBB, 0xBF, 0x7B, 0x7D],  // byte order mark
            [0x22, 0x61, 0x00, 0x22],  // NUL in a string
        ]
        for bytes in cases { #expect(check(bytes) != nil, "\(bytes)") }
        #expect(check([0x22, 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, 0x22]) == nil)
    }

    @Test func limitsNesting() {
        let depth = JSONReader.maximumDepth
        #expect(check(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)) == nil)
        #expect(check(String(repeating: "[", count: depth + 1) + String(repeating: "]", count: depth + 1)) != nil)
        #expect(check(String(repeating: "[", count: 100_000)) != nil)
    }

    @Test func duplicatesAreFoundWhateverTheirLengthAndPlace() {
        // Names are compared by a fingerprint (length and first eight bytes) and then in full.
        let distinct = [
            "", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghj", "abcdefghij",
            "abcdefgi", "bbcdefgh", "ab cdefgh",
        ]
        #expect(check("{" + distinct.map { "\"\($0)\":1" }.joined(separator: ",") + "}") == nil)
        for name in distinct {
            let object = "{" + (distinct + [name]).map { "\"\($0)\":1" }.joined(separator: ",") + "}"
            #expect(check(object)?.description.contains("duplicate") == true, "\(name)")
            // At the very end of the text, where fewer than eight bytes follow the name.
            #expect(
                check(#"{"\#(name)":1,"\#(name)":2}"#)?.description.contains("duplicate") == true, "\(name) at the end")
        }
        #expect(check(#"{"ab":1,"a":2}"#) == nil && check(#"{"a":1,"ab":2}"#) == nil)
    }

    @Test func detectsDuplicatesInLargeObjects() {
        var members = (0..<500).map { "\"m\($0)\":\($0)" }
        #expect(check("{" + members.joined(separator: ",") + "}") == nil)
        members.append("\"m250\":0")
        #expect(check("{" + members.joined(separator: ",") + "}")?.description.contains("duplicate") == true)
    }

    @Test func readsNumbersAndStrings() throws {
        let text = Array(#"{"n":1800000000.5,"i":-42,"big":1e400,"s":"caf\u00e9"}"#.utf8)
        var values: [String: String] = [:]
        try text.withUnsafeBufferPointer { (buffer) throws(JSONError) in
            var reader = JSONReader(buffer)
            try reader.readObject { (reader: inout JSONReader, name: MemberName) throws(JSONError) in
                if name.equals("s") {
                    values[name.string] = try reader.readString()
                } else {
                    values[name.string] = String(try reader.readNumber())
                }
            }
        }
        #expect(values == ["n": "1800000000.5", "i": "-42.0", "big": "inf", "s": "café"])
    }

    @Test func theFirstSpecialByteOfAChunkIsFoundExactly() {
        // The scanner jumps to the lowest lane flagged in sixteen bytes (from a skipped prefix on):
        // it must be the first special byte at or after the skip, whatever is around it.
        func isSpecial(_ byte: UInt8) -> Bool { byte < 0x20 || byte >= 0x80 || byte == 0x22 || byte == 0x5C }
        let fillers: [UInt8] = [0x61, 0x00, 0x01, 0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xFF]
        var mismatches: [String] = []
        for byte in 0...255 {
            for position in 0..<16 {
                for filler in fillers {
                    for skip in [0, 1, position, position + 1, 15, 16] where skip <= 16 {
                        // `filler` after the byte, and before the skip (where it must be ignored).
                        var bytes = [UInt8](repeating: 0x61, count: 16)
                        for index in 0..<16 where index < skip || index > position { bytes[index] = filler }
                        bytes[position] = UInt8(byte)
                        let found = bytes.withUnsafeBytes {
                            JSONReader.firstSpecialByte(in: JSONReader.specialBytes(at: $0.baseAddress!, from: skip))
                        }
                        let foundWithoutSkip = bytes.withUnsafeBytes {
                            JSONReader.firstSpecialByte(in: JSONReader.specialBytes(at: $0.baseAddress!))
                        }
                        if skip == 0 && foundWithoutSkip != found { mismatches.append("\(bytes): \(foundWithoutSkip)") }
                        let expected = bytes.indices.first { $0 >= skip && isSpecial(bytes[$0]) } ?? 16
                        if found != expected { mismatches.append("\(bytes) from \(skip): \(found), not \(expected)") }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func specialBytesAreFoundAtEveryOffset() throws {
        // The string scanner reads sixteen bytes at a time; a special byte must be seen wherever it sits.
        for offset in 0..<40 {
            var body = Array(repeating: UInt8(ascii: "a"), count: 40)
            body[offset] = 0x01
            #expect(check([0x22] + body + [0x22]) != nil, "control byte at \(offset)")
            body[offset] = 0xFF
            #expect(check([0x22] + body + [0x22]) != nil, "invalid UTF-8 at \(offset)")
            body[offset] = UInt8(ascii: "\"")
            #expect(check([0x22] + body + [0x22]) != nil, "early quote at \(offset)")
            var escaped = Array(repeating: UInt8(ascii: "a"), count: 40)
            escaped.insert(contentsOf: Array(#"\n"#.utf8), at: offset)
            let text = [0x22] + escaped + [0x22]
            let value = try text.withUnsafeBufferPointer { (buffer) throws(JSONError) in
                var reader = JSONReader(buffer)
                return try reader.readString()
            }
            #expect(value == String(repeating: "a", count: offset) + "\n" + String(repeating: "a", count: 40 - offset))
        }
    }
}
