import Testing
import TokenGen

@testable import TokenVerifier

/// The string scanner (sixteen bytes at a time, with the text's last sixteen for a string near its
/// end) against a scanner that looks at one byte at a time: the same content range, escapes flag
/// and end, or the same error at the same offset, for strings with every kind of special byte at
/// every offset around the chunk boundaries and the text's end.
@Suite struct JSONStringScanTests {
    /// What scanning a string gives: its content, whether it holds escapes, and where the reader
    /// stands after it; or the error.
    enum Outcome: Equatable, CustomStringConvertible {
        case string(content: Range<Int>, hasEscapes: Bool, end: Int)
        case failure(JSONError)

        var description: String {
            switch self {
            case .string(let content, let hasEscapes, let end): "string \(content) escapes \(hasEscapes) end \(end)"
            case .failure(let error): "error \(error.description) at \(error.offset)"
            }
        }
    }

    /// The reader's scan of the string whose opening quote is at `quote`.
    static func scan(_ text: [UInt8], quote: Int) -> Outcome {
        text.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            reader.position = quote
            do throws(JSONError) {
                let scanned = try reader.scanString()
                let viaPackage = JSONReader.stringContent(in: buffer, quoteAt: quote)
                guard viaPackage?.content == scanned.content, viaPackage?.hasEscapes == scanned.hasEscapes else {
                    return .failure(JSONError("stringContent(in:quoteAt:) differs", at: -1))
                }
                return .string(content: scanned.content, hasEscapes: scanned.hasEscapes, end: reader.position)
            } catch {
                guard JSONReader.stringContent(in: buffer, quoteAt: quote) == nil else {
                    return .failure(JSONError("stringContent(in:quoteAt:) accepts", at: -1))
                }
                return .failure(error)
            }
        }
    }

    /// RFC 8259 strings read one byte at a time, with the reader's error wording and offsets.
    static func referenceScan(_ text: [UInt8], quote: Int) -> Outcome {
        func fail(_ message: String, _ at: Int) -> Outcome { .failure(JSONError(message, at: at)) }
        func hex(_ byte: UInt8) -> UInt32? {
            switch byte {
            case 0x30...0x39: UInt32(byte - 0x30)
            case 0x41...0x46: UInt32(byte - 0x41 + 10)
            case 0x61...0x66: UInt32(byte - 0x61 + 10)
            default: nil
            }
        }
        /// The four hex digits at `at`, or the error.
        func hex4(_ at: Int) -> Result<UInt32, JSONError> {
            guard text.count - at >= 4 else { return .failure(JSONError("unterminated string escape", at: at)) }
            var value: UInt32 = 0
            for index in at..<(at + 4) {
                guard let digit = hex(text[index]) else { return .failure(JSONError("invalid \\u escape", at: index)) }
                value = value << 4 | digit
            }
            return .success(value)
        }
        let start = quote + 1
        var index = start
        var hasEscapes = false
        while true {
            guard index < text.count else { return fail("unterminated string", index) }
            let byte = text[index]
            switch byte {
            case 0x22:
                return .string(content: start..<index, hasEscapes: hasEscapes, end: index + 1)
            case 0x00..<0x20:
                return fail("control character in string", index)
            case 0x5C:
                hasEscapes = true
                index += 1
                guard index < text.count else { return fail("unterminated string", index) }
                switch text[index] {
                case 0x22, 0x5C, 0x2F, 0x62, 0x66, 0x6E, 0x72, 0x74:
                    index += 1
                case 0x75:
                    index += 1
                    let unit: UInt32
                    switch hex4(index) {
                    case .failure(let error): return .failure(error)
                    case .success(let value): unit = value
                    }
                    index += 4
                    if (0xDC00...0xDFFF).contains(unit) { return fail("lone surrogate in string escape", index) }
                    if (0xD800...0xDBFF).contains(unit) {
                        guard index + 1 < text.count, text[index] == 0x5C, text[index + 1] == 0x75 else {
                            return fail("lone surrogate in string escape", index)
                        }
                        index += 2
                        switch hex4(index) {
                        case .failure(let error): return .failure(error)
                        case .success(let low):
                            index += 4
                            if !(0xDC00...0xDFFF).contains(low) {
                                return fail("lone surrogate in string escape", index)
                            }
                        }
                    }
                default:
                    return fail("invalid escape in string", index)
                }
            case 0x20..<0x80:
                index += 1
            default:
                // RFC 3629: the second byte's range depends on the first; the others are 80...BF.
                let (count, second): (Int, ClosedRange<UInt8>) =
                    switch byte {
                    case 0xC2...0xDF: (2, 0x80...0xBF)
                    case 0xE0: (3, 0xA0...0xBF)
                    case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80...0xBF)
                    case 0xED: (3, 0x80...0x9F)
                    case 0xF0: (4, 0x90...0xBF)
                    case 0xF1...0xF3: (4, 0x80...0xBF)
                    case 0xF4: (4, 0x80...0x8F)
                    default: (0, 0x80...0xBF)
                    }
                guard count > 0, index + count <= text.count, second.contains(text[index + 1]),
                    text[(index + 2)..<(index + count)].allSatisfy({ (0x80...0xBF).contains($0) })
                else { return fail("invalid UTF-8 in string", index) }
                index += count
            }
        }
    }

    /// Pieces of string content: plain, special, and broken.
    static let pieces: [[UInt8]] = [
        Array("a".utf8), Array("\"".utf8), Array("\\".utf8), [0x00], [0x1F], [0x7F], [0x20], Array(#"\n"#.utf8),
        Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\/"#.utf8), Array(#"\u00e9"#.utf8),
        Array(#"\uD83D\uDE00"#.utf8),
        Array(#"\x"#.utf8), Array(#"\u12g4"#.utf8), Array(#"\u12"#.utf8), Array(#"\ud800"#.utf8),
        Array(#"\udc00"#.utf8), Array(#"\ud800\u0041"#.utf8), Array(#"\ud800\n"#.utf8), Array("é".utf8),
        Array("€".utf8), Array("😀".utf8), [0xEF, 0xBF, 0xBF], [0xF4, 0x8F, 0xBF, 0xBF], [0x80], [0xBF], [0xC0, 0x80],
        [0xC1, 0xBF], [0xC3], [0xE0, 0x80, 0x80], [0xE0, 0xA0], [0xED, 0xA0, 0x80], [0xF0, 0x80, 0x80, 0x80],
        [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xE2, 0x82, 0x41],
    ]

    func compare(_ text: [UInt8], quote: Int) -> String? {
        let found = Self.scan(text, quote: quote)
        let expected = Self.referenceScan(text, quote: quote)
        return found == expected ? nil : "\(text) from \(quote): \(found), not \(expected)"
    }

    @Test func everyPieceAtEveryOffsetAroundTheChunksAndTheEnd() {
        var mismatches: [String] = []
        for piece in Self.pieces {
            for offset in 0...40 {
                for tail in [0, 1, 2, 5, 15, 16, 17, 40] {
                    for prefix in [0, 3, 20] {
                        // A string of `offset` plain bytes, the piece, more plain bytes, the
                        // closing quote and `tail` bytes of JSON; and the same cut short.
                        let head = Array(repeating: UInt8(ascii: " "), count: prefix) + [0x22]
                        let body = Array(repeating: UInt8(ascii: "a"), count: offset) + piece + Array("bc".utf8)
                        let text = head + body + [0x22] + Array(repeating: UInt8(ascii: "}"), count: tail)
                        for end in [text.count, head.count + offset + piece.count, head.count + offset + 1] {
                            if let mismatch = compare(Array(text[..<min(end, text.count)]), quote: prefix) {
                                mismatches.append(mismatch)
                            }
                        }
                    }
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(3))")
    }

    @Test func randomStringsMatchTheReference() {
        var generator = SplitMix64(20_240_611)
        var mismatches: [String] = []
        var failures = 0
        for _ in 0..<20_000 {
            let prefix = Int(generator.next() % 24)
            var text = Array(repeating: UInt8(ascii: ","), count: prefix) + [0x22]
            let pieceCount = Int(generator.next() % 12)
            for _ in 0..<pieceCount {
                // Mostly plain runs, of any length across the chunk boundaries.
                if generator.next() % 3 != 0 {
                    text += Array(repeating: UInt8(ascii: "x"), count: Int(generator.next() % 40))
                } else {
                    text += Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))]
                }
            }
            if generator.next() % 8 != 0 { text.append(0x22) }
            text += (0..<(generator.next() % 20)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if case .failure = Self.referenceScan(text, quote: prefix) { failures += 1 }
            if let mismatch = compare(text, quote: prefix) { mismatches.append(mismatch) }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(3))")
        #expect(failures > 2_000 && failures < 18_000, "both valid and invalid strings: \(failures) invalid")
    }

    @Test func theReferenceTellsTheKindsApart() {
        // The reference scanner itself, on one string of each kind.
        let cases: [(String, Outcome)] = [
            (#""ab""#, .string(content: 1..<3, hasEscapes: false, end: 4)),
            (#""a\nb","#, .string(content: 1..<5, hasEscapes: true, end: 6)),
            (#""ab"#, .failure(JSONError("unterminated string", at: 3))),
            ("\"a\u{1}\"", .failure(JSONError("control character in string", at: 2))),
            (#""a\q""#, .failure(JSONError("invalid escape in string", at: 3))),
            (#""\ud800x""#, .failure(JSONError("lone surrogate in string escape", at: 7))),
        ]
        for (text, outcome) in cases {
            #expect(Self.referenceScan(Array(text.utf8), quote: 0) == outcome, "\(text)")
            #expect(Self.scan(Array(text.utf8), quote: 0) == outcome, "\(text)")
        }
    }
}
