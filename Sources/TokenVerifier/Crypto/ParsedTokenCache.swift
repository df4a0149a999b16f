/// A worker's own cache of parsed tokens (header and type-checked claims), keyed by the same
/// 128-bit keyed hash of the whole token as the signature cache. Parsing is a function of the
/// token's bytes alone, so a repeated token can skip base64url and JSON; every check still runs
/// on the parsed claims. Direct-mapped and fixed in size; used by one thread only, so it needs
/// no lock.
final class ParsedTokenCache {
    private var digests: [KeyedHash.Digest]
    private var tokens: [ParsedToken?]
    private let mask: Int

    /// A cache of `entries` entries, rounded up to a power of two.
    init(entries: Int) {
        var capacity = 1
        while capacity < entries { capacity <<= 1 }
        mask = capacity - 1
        digests = Array(repeating: KeyedHash.Digest(low: 0, high: 0), count: capacity)
        tokens = Array(repeating: nil, count: capacity)
    }

    @inline(__always)
    private func slot(_ digest: KeyedHash.Digest) -> Int {
        Int(truncatingIfNeeded: digest.high) & mask
    }

    /// The token parsed earlier with this digest.
    func lookup(_ digest: KeyedHash.Digest) -> ParsedToken? {
        let index = slot(digest)
        return digests[index] == digest ? tokens[index] : nil
    }

    func store(_ token: ParsedToken, for digest: KeyedHash.Digest) {
        let index = slot(digest)
        digests[index] = digest
        tokens[index] = token
    }
}
