/// A worker's own cache of parsed tokens (header and type-checked claims), keyed by the same
/// 128-bit keyed hash of the whole token as the signature cache. Parsing is a function of the
/// token's bytes alone, so a repeated token can skip base64url and JSON; every check still runs
/// on the parsed claims. Direct-mapped and fixed in size; used by one thread only, so it needs
/// no lock (nor the run-time exclusivity checks of its tables).
///
/// A parse is kept only when its digest is already the last one noted in its slot (its second
/// sighting, unless another token took the slot in between): a first sighting only notes 64 bits
/// of the digest (8 bytes a slot, so that table stays in the processor's cache). A stream of distinct tokens thus stores no parse and touches little
/// memory; storing every parse cost such a stream about 3% of its cycles (perf).
final class ParsedTokenCache {
    /// The low word of the digest last noted in each slot.
    @exclusivity(unchecked) private var seen: [UInt64]
    /// The whole digest of the parse kept in each slot, and that parse (both made at the first
    /// parse kept, so that a distinct stream never allocates them).
    @exclusivity(unchecked) private var keptDigests: [KeyedHash.Digest] = []
    @exclusivity(unchecked) private var kept: [ParsedToken?] = []
    private let mask: Int

    /// A cache of `entries` entries, rounded up to a power of two.
    init(entries: Int) {
        var capacity = 1
        while capacity < entries { capacity <<= 1 }
        mask = capacity - 1
        seen = Array(repeating: 0, count: capacity)
    }

    @inline(__always)
    private func slot(_ digest: KeyedHash.Digest) -> Int {
        Int(truncatingIfNeeded: digest.high) & mask
    }

    /// The token parsed earlier with this digest, if its parse is kept.
    func lookup(_ digest: KeyedHash.Digest) -> ParsedToken? {
        let index = slot(digest)
        guard seen[index] == digest.low, !kept.isEmpty, keptDigests[index] == digest else { return nil }
        return kept[index]
    }

    /// Notes a token just parsed: keeps its parse when its digest was the last one noted in its
    /// slot, else notes the digest. Returns whether the parse was kept.
    @discardableResult
    func note(_ token: ParsedToken, for digest: KeyedHash.Digest) -> Bool {
        let index = slot(digest)
        guard seen[index] == digest.low else {
            seen[index] = digest.low
            return false
        }
        if kept.isEmpty {
            kept = Array(repeating: nil, count: mask + 1)
            keptDigests = Array(repeating: KeyedHash.Digest(low: 0, high: 0), count: mask + 1)
        }
        kept[index] = token
        keptDigests[index] = digest
        return true
    }
}
