import Testing
@testable import TokenStream

@Suite struct LineChunkerTests {
    /// Feeds `pieces` one after another and returns (line number, text or nil for oversized).
    func lines(_ pieces: [String], limit: Int = 64) -> [(Int, String?)] {
        var chunker = LineChunker(maxLineBytes: limit)
        var result: [(Int, String?)] = []
        for piece in pieces {
            Array(piece.utf8).withUnsafeBufferPointer { chunker.feed($0) }
            result += chunker.takePending().map { ($0.number, $0.bytes.map { String(decoding: $0, as: UTF8.self) }) }
        }
        chunker.finish()
        result += chunker.takePending().map { ($0.number, $0.bytes.map { String(decoding: $0, as: UTF8.self) }) }
        return result
    }

    @Test func splitsTrimsAndNumbers() {
        let result = lines(["a\r\n\n  b \t\r\n\t\r\n", "c"])
        #expect(result.map(\.0) == [1, 3, 5])
        #expect(result.map(\.1) == ["a", "b", "c"])
    }

    @Test func linesSplitAcrossReads() {
        let result = lines(["ab", "cd", "\nef", "", "g\n", "h"])
        #expect(result.map(\.1) == ["abcd", "efg", "h"])
        #expect(result.map(\.0) == [1, 2, 3])
    }

    @Test func oversizedLinesAreMarkedAndNotKept() {
        let long = String(repeating: "x", count: 100)
        let result = lines(["ok\n", String(long.prefix(50)), String(long.dropFirst(50)), "\nnext\n", long], limit: 64)
        #expect(result.map(\.0) == [1, 2, 3, 4])
        #expect(result.map(\.1) == ["ok", nil, "next", nil])
    }

    @Test func leadingWhiteSpaceDoesNotCountOrAccumulate() {
        let result = lines([String(repeating: " ", count: 10_000), "abc\n"], limit: 8)
        #expect(result.map(\.1) == ["abc"])
    }

    @Test func aMillionBlankLinesGiveNoLines() {
        let result = lines([String(repeating: "\n", count: 1_000_000)])
        #expect(result.isEmpty)
    }

    @Test func byteOrderMarkAtTheStartIsDropped() {
        #expect(lines(["\u{FEFF}abc\n\u{FEFF}def\n"]).map(\.1) == ["abc", "\u{FEFF}def"])
        #expect(lines(["\u{FEFF}\n"]).isEmpty)
    }
}
