internal import CTokenPrefetch

/// A worker's own cache of parsed tokens (header and type-checked claims), keyed by the same
/// 128-bit keyed hash of the whole token as the signature cache. Parsing is a function of the
/// token's bytes alone, so a repeated token can skip base64url and JSON; every check still runs
/// on the parsed claims. Direct-mapped and fixed in size; used by one thread only, so it needs
/// no lock.
///
/// A parse is kept only when its digest is already the last one noted in its slot (its second
/// sighting, unless another token took the slot in between): a first sighting only notes 64 bits
/// of the digest (8 bytes a slot, so that table stays in the processor's cache). A stream of distinct tokens thus stores no parse and touches little
/// memory; storing every parse cost such a stream about 3% of its cycles (perf).
final class ParsedTokenCache {
    /// A kept parse (retained by the table) and its whole digest.
    private struct Entry {
        var digest: KeyedHash.Digest
        var token: Unmanaged<ParsedToken>?
    }

    /// The low word of the digest last noted in each slot (made at the first note).
    private var seen: UnsafeMutablePointer<UInt64>?
    /// The parse kept in each slot (made at the first parse kept, so that a distinct stream
    /// never allocates it).
    private var kept: UnsafeMutablePointer<Entry>?
    private let mask: Int

    /// A cache of `entries` entries, rounded up to a power of two.
    init(entries: Int) {
        var capacity = 1
        while capacity < entries { capacity <<= 1 }
        mask = capacity - 1
    }

    deinit {
        seen?.deallocate()
        if let kept {
            for index in 0...mask { kept[index].token?.release() }
            kept.deallocate()
        }
    }

    @inline(__always)
    private func slot(_ digest: KeyedHash.Digest) -> Int {
        Int(truncatingIfNeeded: digest.high) & mask
    }

    /// Starts bringing the memory of this digest's slot into the processor's caches.
    @inline(__always)
    func prefetch(_ digest: KeyedHash.Digest) {
        let index = slot(digest)
        if let seen { tv_prefetch(seen + index) }
        if let kept { tv_prefetch(kept + index) }
    }

    /// Starts bringing the parse kept for this digest into the processor's caches, if there is
    /// one: the object (its slot should be in the caches by now: ``prefetch(_:)``).
    @inline(__always)
    func prefetchToken(_ digest: KeyedHash.Digest) {
        guard let token = peek(digest) else { return }
        let object = UnsafeRawPointer(token.toOpaque())
        for line in 0..<Self.objectLines { tv_prefetch(object + line * 64) }
    }

    /// The lines of a parsed token's object asked for ahead.
    private static let objectLines = 4

    /// The parse kept for this digest, lent (not retained: it stays valid until the slot's next
    /// ``note(_:for:)``), if there is one.
    @inline(__always)
    private func peek(_ digest: KeyedHash.Digest) -> Unmanaged<ParsedToken>? {
        guard let seen, let kept else { return nil }
        let index = slot(digest)
        guard seen[index] == digest.low, kept[index].digest == digest else { return nil }
        return kept[index].token
    }

    /// The token parsed earlier with this digest, if its parse is kept.
    func lookup(_ digest: KeyedHash.Digest) -> ParsedToken? {
        guard let seen, let kept else { return nil }
        let index = slot(digest)
        guard seen[index] == digest.low, kept[index].digest == digest else { return nil }
        return kept[index].token?.takeUnretainedValue()
    }

    /// The most bytes a kept parse's storage may hold: the cache's memory stays bounded
    /// (entries × this) whatever the tokens' length; a longer token is parsed each time.
    static let maxKeptStorageBytes = 4096

    /// Notes a token just parsed: keeps its parse when its digest was the last one noted in its
    /// slot (and its storage is at most ``maxKeptStorageBytes``), else notes the digest. Returns
    /// whether the parse was kept.
    @discardableResult
    func note(_ token: ParsedToken, for digest: KeyedHash.Digest) -> Bool {
        let seen = self.seen ?? makeSeen()
        let index = slot(digest)
        guard seen[index] == digest.low, token.storage.count <= Self.maxKeptStorageBytes else {
            seen[index] = digest.low
            return false
        }
        let kept = self.kept ?? makeKept()
        kept[index].token?.release()
        kept[index] = Entry(digest: digest, token: Unmanaged.passRetained(token))
        return true
    }

    private func makeSeen() -> UnsafeMutablePointer<UInt64> {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: mask + 1)
        table.initialize(repeating: 0, count: mask + 1)
        seen = table
        return table
    }

    private func makeKept() -> UnsafeMutablePointer<Entry> {
        let table = UnsafeMutablePointer<Entry>.allocate(capacity: mask + 1)
        table.initialize(repeating: Entry(digest: KeyedHash.Digest(low: 0, high: 0), token: nil), count: mask + 1)
        kept = table
        return table
    }
}
