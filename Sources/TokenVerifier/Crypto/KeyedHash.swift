internal import CTokenSipHash

/// A 128-bit keyed hash: SipHash-2-4 with 128-bit output, the function of libsodium's
/// `crypto_shorthash_siphashx24` (`CTokenSipHash`, tested equal to it), and for many byte strings
/// at once eight side by side where the processor has AVX-512.
///
/// Used where a short digest stands for a byte string: revocation selectors and the signature
/// cache. The key is random per instance, so nobody outside the process can aim for a collision.
struct KeyedHash: Sendable {
    /// A 128-bit digest.
    struct Digest: Hashable, Sendable {
        var low: UInt64
        var high: UInt64
    }

    private let key: (UInt64, UInt64)

    /// A hash with a fresh random key (from the system's random source: getrandom on Linux).
    init() {
        var random = SystemRandomNumberGenerator()
        key = (random.next(), random.next())
    }

    /// A hash with the given key (the 16 bytes of the two words as they lie in memory).
    init(key: (UInt64, UInt64)) {
        self.key = key
    }

    /// The digest of `bytes`.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var digest = Digest(low: 0, high: 0)
        withUnsafeBytes(of: key) { keyBytes in
            withUnsafeMutableBytes(of: &digest) { out in
                tv_siphash24_128(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return digest
    }

    /// The digests of `count` byte strings (`starts[i]`, `counts[i]` bytes) into `digests`: the
    /// same as a call of ``hash(_:)`` each, in less time.
    @inline(__always)
    func hash(
        count: Int, starts: UnsafePointer<UnsafePointer<UInt8>?>, counts: UnsafePointer<Int>,
        into digests: UnsafeMutablePointer<Digest>
    ) {
        withUnsafeBytes(of: key) { keyBytes in
            // C writes each digest's 16 bytes: its two words, little-endian, as they lie in memory.
            tv_siphash24_128_many(
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count, starts, counts,
                UnsafeMutableRawPointer(digests).assumingMemoryBound(to: UInt8.self))
        }
    }
}
