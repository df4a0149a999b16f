import CSodium
import Testing

@testable import TokenVerifier

/// tokenverify's SipHash (`CTokenSipHash`: one byte string a call, or many at once, eight side by
/// side with AVX-512) against libsodium's `crypto_shorthash_siphashx24`.
@Suite struct KeyedHashTests {
    /// Key 00 01 … 0f, as the SipHash paper's test vectors use it.
    static let referenceWords: (UInt64, UInt64) = (0x0706_0504_0302_0100, 0x0f0e_0d0c_0b0a_0908)
    static let referenceKey = KeyedHash(key: referenceWords)

    /// libsodium's digest of `bytes` under the key of `words`.
    func libsodium(_ words: (UInt64, UInt64), _ bytes: [UInt8]) -> KeyedHash.Digest {
        var digest = KeyedHash.Digest(low: 0, high: 0)
        withUnsafeBytes(of: words) { key in
            withUnsafeMutableBytes(of: &digest) { out in
                bytes.withUnsafeBufferPointer { message in
                    _ = crypto_shorthash_siphashx24(
                        out.baseAddress!.assumingMemoryBound(to: UInt8.self), message.baseAddress,
                        UInt64(message.count), key.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            }
        }
        return digest
    }

    func many(_ hash: KeyedHash, _ messages: [[UInt8]]) -> [KeyedHash.Digest] {
        // One buffer for all, so that every message's bytes stay put for the call.
        let joined = messages.flatMap { $0 }
        let offsets = messages.reduce(into: [0]) { $0.append($0.last! + $1.count) }
        return joined.withUnsafeBufferPointer { all in
            let starts: [UnsafePointer<UInt8>?] = messages.indices.map { index in
                all.baseAddress.map { $0 + offsets[index] }
            }
            let counts = messages.map(\.count)
            var digests = [KeyedHash.Digest](repeating: .init(low: 0, high: 0), count: messages.count)
            digests.withUnsafeMutableBufferPointer { out in
                hash.hash(count: messages.count, starts: starts, counts: counts, into: out.baseAddress!)
            }
            return digests
        }
    }

    func single(_ hash: KeyedHash, _ bytes: [UInt8]) -> KeyedHash.Digest {
        bytes.withUnsafeBytes { hash.hash($0) }
    }

    @Test func referenceVectorOfTheEmptyMessage() {
        // SipHash-2-4-128 of the empty message under key 00…0f (vectors_sip128[0] of the
        // reference implementation): a3 81 7f 04 ba 25 a8 e6 6d f6 72 14 c7 55 02 93.
        let expected = KeyedHash.Digest(low: 0xe6a8_25ba_047f_81a3, high: 0x9302_55c7_1472_f66d)
        #expect(libsodium(Self.referenceWords, []) == expected)
        #expect(single(Self.referenceKey, []) == expected)
        #expect(many(Self.referenceKey, Array(repeating: [], count: 9)) == Array(repeating: expected, count: 9))
    }

    @Test func everyLengthUpTo300InEveryLane() {
        let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        for length in 0...300 {
            // Eight lanes of lengths around `length`, and a ninth and tenth after them.
            let lengths = (0..<10).map { max(0, min(300, length + ($0 * 5) % 17 - 8)) }
            let messages = lengths.map { Array(message[0..<$0]) }
            let expected = messages.map { libsodium(Self.referenceWords, $0) }
            #expect(messages.map { single(Self.referenceKey, $0) } == expected, "\(lengths)")
            #expect(many(Self.referenceKey, messages) == expected, "\(lengths)")
        }
    }

    @Test func randomBatchesUnderRandomKeys() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let words = (random.next() as UInt64, random.next() as UInt64)
            let hash = KeyedHash(key: words)
            let messages = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                (0..<Int.random(in: 0...700, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            }
            let expected = messages.map { libsodium(words, $0) }
            #expect(messages.map { single(hash, $0) } == expected)
            #expect(many(hash, messages) == expected)
        }
    }
}
