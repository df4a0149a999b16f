import Testing

@testable import TokenStream

@Suite struct LineChunkerTests {
    /// Feeds `pieces` one after another and returns (line number, text or nil for oversized).
    func lines(_ pieces: [String], limit: Int = 64) -> [(Int, String?)] {
        var chunker = LineChunker(maxLineBytes: limit)
        var result: [(Int, String?)] = []
        func take() {
            let block = chunker.takePending()
            result += block.entries.indices.map { index in
                (block.entries[index].number, block.bytes(of: index).map { String(decoding: $0, as: UTF8.self) })
            }
        }
        for piece in pieces {
            Array(piece.utf8).withUnsafeBufferPointer { chunker.feed($0) }
            take()
        }
        chunker.finish()
        take()
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

    @Test func leadingWhiteSpaceCountsButDoesNotAccumulate() {
        #expect(lines([String(repeating: " ", count: 10_000), "abc\n"], limit: 8).map(\.1) == [nil])
        #expect(lines(["     ", "abc\n"], limit: 8).map(\.1) == ["abc"])
        #expect(lines(["      ", "abc\n"], limit: 8).map(\.1) == [nil])
    }

    /// SPEC §6: the limit counts surrounding spaces and tabs but not the line break, LF or CR LF.
    @Test(arguments: [1, 3, 7, 100])
    func theLimitCountsBlanksButNotTheLineBreak(pieceSize: Int) {
        func run(_ text: String) -> [String?] {
            let bytes = Array(text.utf8)
            let pieces = stride(from: 0, to: bytes.count, by: pieceSize).map {
                String(decoding: bytes[$0..<min($0 + pieceSize, bytes.count)], as: UTF8.self)
            }
            return lines(pieces, limit: 8).map(\.1)
        }
        let exact = "abcdefgh"
        #expect(run(exact + "\n" + exact + "\r\n" + exact) == [exact, exact, exact])
        #expect(run(" " + exact + "\n") == [nil])
        #expect(run(" " + exact + "\r\n") == [nil])
        #expect(run(exact + "\t\r\n") == [nil])
        #expect(run("abcdefg\r\r\n") == ["abcdefg"])  // 8 bytes before the CR LF: "abcdefg" and a CR
        #expect(run("abcdefgh\r\r\n") == [nil])
        #expect(run(" abcdefg\r\n\t abcdef\r\n") == ["abcdefg", "abcdef"])
        #expect(run(String(repeating: " \t", count: 20) + "\r\nx\n") == ["x"])  // a long blank line is still blank
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
