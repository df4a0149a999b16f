import Foundation
import LineProtocol
import TestSupport
import Testing
import TokenVerifier

@Suite struct LineBlockTests {
    @Test func aBlockHoldsEveryLineAndItsNumber() {
        let lines = (1...40).map { number in
            InputLine(
                number: number * 3, bytes: number % 7 == 0 ? nil : Array("line \(number) ".utf8) + [UInt8(number)])
        }
        let block = LineBlock(lines)
        #expect(block.count == lines.count)
        for index in 0..<block.count {
            #expect(block.entries[index].number == lines[index].number)
            #expect(block.bytes(of: index).map(Array.init) == lines[index].bytes, "line \(lines[index].number)")
        }
    }

    @Test func partsOfABlockAreAnsweredAsTheirLinesAlone() throws {
        let demo = Repository.demo
        let (keys, _) = try KeySet.load(files: [demo.appendingPathComponent("keys.jwks").path])
        let verifier = Verifier(keys: keys, options: VerificationOptions(checkTime: 1_800_000_000))
        var lines = try String(contentsOf: demo.appendingPathComponent("requests.jsonl"), encoding: .utf8)
            .split(separator: "\n").enumerated()
            .map { InputLine(number: $0.offset + 1, bytes: Array($0.element.utf8)) }
        lines.insert(InputLine(number: 100, bytes: nil), at: 3)
        let answerer = LineAnswerer(verifier: verifier, maxLineBytes: 1 << 16)
        var whole: [UInt8] = []
        let wholeReasons = answerer.answer(lines, to: &whole)
        #expect(wholeReasons.count == lines.count && wholeReasons.contains(nil))
        let block = LineBlock(lines)
        for cut in [0, 1, 3, 4, lines.count - 1, lines.count] {
            var parts: [UInt8] = []
            var reasons = answerer.answer(block, lines: 0..<cut, against: verifier.snapshot, to: &parts)
            reasons += answerer.answer(block, lines: cut..<lines.count, against: verifier.snapshot, to: &parts)
            #expect(parts == whole, "cut at \(cut)")
            #expect(reasons == wholeReasons, "cut at \(cut)")
        }
    }
}
