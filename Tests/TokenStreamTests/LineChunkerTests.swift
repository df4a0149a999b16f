import Foundation
import LineProtocol
import Testing
import TokenFormats
import TokenGen
import TokenVerifier

@testable import TokenStream

@Suite struct LineChunkerTests {
    /// A block's lines: (line number, text or nil for oversized).
    static func numberedLines(_ block: LineBlock) -> [(Int, String?)] {
        block.entries.indices.map { index in
            (block.entries[index].number, block.bytes(of: index).map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// Feeds `pieces` one after another and returns (line number, text or nil for oversized).
    func lines(_ pieces: [String], limit: Int = 64) -> [(Int, String?)] {
        var chunker = LineChunker(maxLineBytes: limit)
        var result: [(Int, String?)] = []
        func take() { result += Self.numberedLines(chunker.takePending()) }
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

    /// spec §6: the limit counts surrounding spaces and tabs but not the line break, LF or CR LF.
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

    /// The lines a ``LineSplitter`` finds in `text` given whole, trimmed and numbered as the
    /// chunker does: the reference for the chunker, whose lines must not depend on where its
    /// reads end.
    func referenceLines(_ text: [UInt8], limit: Int) -> [(Int, String?)] {
        var splitter = LineSplitter(maxLineBytes: limit)
        var result: [(Int, String?)] = []
        func take(_ number: Int, _ line: UnsafeBufferPointer<UInt8>?) {
            guard let line else { return result.append((number, nil)) }
            var trimmed = trimmingBlanks(line)
            if number == 1, trimmed.starts(with: [0xEF, 0xBB, 0xBF]) {
                trimmed = trimmingBlanks(UnsafeBufferPointer(rebasing: trimmed[3...]))
            }
            if !trimmed.isEmpty { result.append((number, String(decoding: trimmed, as: UTF8.self))) }
        }
        text.withUnsafeBufferPointer { splitter.feed($0, take) }
        splitter.feed(nil, take)
        return result
    }

    /// Random streams of blanks, CRs, LFs, byte order marks and text, read in random pieces into
    /// room of random size (short reads get blocks of their own), taken after some reads and
    /// left pending over others, under limits around the lines' lengths: the same lines, numbers
    /// and oversized marks as the reference, and a carried line never over the limit and a byte.
    /// `TOKENVERIFY_LINE_STREAMS=N` compares N streams a seed (3,000 by default).
    @Test(arguments: [1, 2, 3])
    func readingIntoBlocksFindsWhatTheSplitterFinds(seed: UInt64) throws {
        let environment = ProcessInfo.processInfo.environment["TOKENVERIFY_LINE_STREAMS"]
        let streams =
            try environment.map { try #require(Int($0), "TOKENVERIFY_LINE_STREAMS=\($0) is not a count") } ?? 3_000
        var random = SplitMix64(seed)
        let alphabet: [[UInt8]] = [
            [0x61], [0x62], [0x20], [0x09], [0x0D], [0x0A], [0x0A], [0xEF, 0xBB, 0xBF], [0x7B, 0x22],
        ]
        var mismatches: [String] = []
        for round in 0..<streams {
            var text: [UInt8] = []
            for _ in 0..<Int.random(in: 0...120, using: &random) {
                text += alphabet[Int.random(in: 0..<alphabet.count, using: &random)]
                if Int.random(in: 0..<40, using: &random) == 0 {
                    text += [UInt8](repeating: 0x78, count: Int.random(in: 1...80, using: &random))
                }
            }
            let limit = Int.random(in: 1...40, using: &random)
            var chunker = LineChunker(maxLineBytes: limit)
            var found: [(Int, String?)] = []
            func take() { found += Self.numberedLines(chunker.takePending()) }
            var offset = 0
            while true {
                let room = Int.random(in: 1...64, using: &random)
                let wanted = min(Int.random(in: 1...room, using: &random), text.count - offset)
                let count = chunker.read(maxBytes: room) { buffer in
                    let piece = min(wanted, buffer.count)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[..<piece]).initialize(
                        fromContentsOf: text[offset..<offset + piece])
                    return piece
                }
                #expect(chunker.carriedCount <= limit + 1)
                if count == 0 { break }
                offset += count
                if Bool.random(using: &random) { take() }
            }
            chunker.finish()
            take()
            let expected = referenceLines(text, limit: limit)
            if found.map(\.0) != expected.map(\.0) || found.map(\.1) != expected.map(\.1) {
                mismatches.append("round \(round), limit \(limit), \(text): \(found) against \(expected)")
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) streams differ; first: \(mismatches.first ?? "")")
    }

    /// A read is given room for a quarter more than the one before it brought (64 KiB reads
    /// through a pipe get 80 KiB blocks, not a megabyte each), twice its room when it filled it;
    /// a read that fills under a quarter of its room is moved into a block of its own size, so a
    /// trickle of single lines does not hold a block of room a line; any other is handed on as
    /// read.
    @Test func theRoomFollowsWhatReadsBring() {
        var chunker = LineChunker(maxLineBytes: 1024)
        let line = Array(#"{"token":"a.b.c"}"#.utf8) + [0x0A]
        func lines(_ count: Int) -> [UInt8] { Array([[UInt8]](repeating: line, count: count).joined()) }
        /// Reads `bytes` (at most the room given) and returns the room and the block.
        func read(_ bytes: [UInt8]) -> (room: Int, block: LineBlock) {
            var room = 0
            _ = chunker.read(maxBytes: 1 << 20) { buffer in
                room = buffer.count
                let count = min(bytes.count, buffer.count)
                _ = UnsafeMutableBufferPointer(rebasing: buffer[..<count]).initialize(fromContentsOf: bytes[..<count])
                return count
            }
            return (room, chunker.takePending())
        }
        let pipeRead = lines(65_536 / line.count)
        let first = read(pipeRead)
        #expect(first.room == 1 << 20 && first.block.count == pipeRead.count / line.count)
        #expect(first.block.bytes.capacity < 2 * pipeRead.count, "a short read moved into a block of its size")
        let second = read(pipeRead)
        let pipeRoom = pipeRead.count + pipeRead.count / 4
        #expect(second.room == pipeRoom && second.block.count == pipeRead.count / line.count)
        #expect(second.block.bytes.capacity >= pipeRoom, "handed on as read, with its room")
        let full = read(lines(2 * 65_536 / line.count + 1))
        #expect(full.room == pipeRoom && full.block.bytes.count == full.room)
        let grown = read(lines(1))
        #expect(grown.room == 2 * full.room && grown.block.bytes.capacity < 4096)
        #expect(read(lines(1)).room == LineChunker.leastRoom)
    }
}

extension LineChunker {
    /// Feeds bytes already read, in as many reads as the chunker gives room for.
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < buffer.count {
            offset += read(maxBytes: buffer.count - offset) { room in
                let count = min(room.count, buffer.count - offset)
                _ = room.initialize(fromContentsOf: UnsafeBufferPointer(rebasing: buffer[offset..<offset + count]))
                return count
            }
        }
    }
}
