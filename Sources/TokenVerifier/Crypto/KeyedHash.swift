internal import CSodium

/// A 128-bit keyed hash (SipHash-2-4 with 128-bit output, libsodium's `crypto_shorthash_siphashx24`).
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

    /// The digest of `bytes`.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer) -> Digest {
        var digest = Digest(low: 0, high: 0)
        withUnsafeBytes(of: key) { keyBytes in
            withUnsafeMutableBytes(of: &digest) { out in
                _ = crypto_shorthash_siphashx24(
                    out.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
                    UInt64(bytes.count),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return digest
    }
}
