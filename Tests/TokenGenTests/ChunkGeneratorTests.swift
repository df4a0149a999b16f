import Testing
import TokenVerifier

@testable import TokenGen

/// The chunk generator: the same seed gives the same set whatever the number of threads, and
/// the ordered hand-over gives chunks in order, stops early and passes errors on.
@Suite struct ChunkGeneratorTests {
    /// A set of a few chunks, Ed25519 only (fast in a debug build).
    static func spec(chunks: Int, seed: UInt64 = 7) -> TokenSetSpec {
        var spec = TokenSetSpec.realistic(count: TokenSetSpec.linesPerChunk * (chunks - 1) + 11, seed: seed)
        spec.es256Share = 0
        return spec
    }

    @Test func sameSeedSameSetOnAnyNumberOfThreads() {
        let small = TokenSetSpec.realistic(count: 300, seed: 21)
        let one = TokenSetGenerator.generate(small, threads: 1)
        let four = TokenSetGenerator.generate(small, threads: 4)
        #expect(one.tokens.count == 300)
        #expect(one.tokens == four.tokens)
        #expect(one.requests == four.requests)
        #expect(one.expected == four.expected)
        #expect(one.revocations == four.revocations)
        #expect(one.keySet == four.keySet)
        #expect(
            Set(one.tokens.map { $0.split(separator: ".")[0] }).count == 2,
            "both key types sign (Ed25519 and ES256 headers)")
        let other = TokenSetGenerator.generate(TokenSetSpec.realistic(count: 300, seed: 22), threads: 2)
        #expect(other.tokens != one.tokens, "another seed gives another set")
    }

    @Test func chunksArriveInOrder() {
        let spec = Self.spec(chunks: 5)
        var firstLines: [Int] = []
        var lines = 0
        let finished = OrderedChunks.run(spec, keys: spec.signingKeys(), threads: 3) { (chunk) -> Bool in
            firstLines.append(chunk.firstLine)
            lines += chunk.lineCount
            return true
        }
        #expect(finished)
        #expect(firstLines == (0..<5).map { $0 * TokenSetSpec.linesPerChunk })
        #expect(lines == spec.count)
    }

    @Test func consumerStopsEarly() {
        let spec = Self.spec(chunks: 6)
        var seen = 0
        let finished = OrderedChunks.run(spec, keys: spec.signingKeys(), threads: 2) { (_) -> Bool in
            seen += 1
            return seen < 2
        }
        #expect(!finished)
        #expect(seen == 2, "no chunk is handed over after the consumer said stop")
    }

    struct Interrupted: Error, Equatable {}

    @Test func consumerErrorStopsTheRunAndIsRethrown() {
        let spec = Self.spec(chunks: 4)
        var seen = 0
        #expect(throws: Interrupted()) {
            _ = try OrderedChunks.run(spec, keys: spec.signingKeys(), threads: 2) { (_) throws(Interrupted) -> Bool in
                seen += 1
                throw Interrupted()
            }
        }
        #expect(seen == 1)
    }
}
