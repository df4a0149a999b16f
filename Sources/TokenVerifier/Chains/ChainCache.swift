import Atomics

/// The chains validated under one set of trust anchors (spec §3b: "validated once per distinct
/// chain and reused"), keyed by a keyed 128-bit digest of the chain's bytes as the token carries
/// them: a fixed number of slots, two-way (a chain's two slots are its digest's low bits, and
/// those with the last bit flipped), each an atomic reference, so that readers take no lock and
/// memory stays bounded by the slot count whatever the number of distinct chains.
///
/// An entry holds a trusted chain (with the interval in which its verdict holds: outside it the
/// chain is validated again) or a failure, with the whole second it holds for (every failure of
/// path validation) or none (a refusal of the bytes themselves, which holds at any time). So an
/// entry answers a line exactly as a fresh validation at the line's time would, whatever the
/// order of the lines (issue 55 G).
final class ChainCache: Sendable {
    /// One cached outcome.
    final class Entry: AtomicReference, Sendable {
        let digest: KeyedHash.Digest
        let outcome: Outcome

        init(digest: KeyedHash.Digest, outcome: Outcome) {
            self.digest = digest
            self.outcome = outcome
        }
    }

    enum Outcome: Sendable {
        case trusted(ChainKey)
        /// Why not, and the second (NumericDate, whole) it holds for; nil: at any time.
        case untrusted(String, second: Int64?)
    }

    private let slots: [ManagedAtomic<Entry?>]
    private let mask: Int
    private let hasher = KeyedHash()
    /// Lookups that did not find their chain (each a validation; a hit counts nothing: no shared
    /// counter per token).
    let misses = ManagedAtomic<Int>(0)
    /// The per-key tables the cache's keys may have (one budget per kind).
    let tableBudgets: [TableBudget]

    /// A cache of `entries` slots (rounded up to a power of two, at least 2).
    init(entries: Int, options: VerificationOptions) {
        var count = 2
        while count < entries { count <<= 1 }
        slots = (0..<count).map { _ in ManagedAtomic<Entry?>(nil) }
        mask = count - 1
        tableBudgets = KeyTableKind.all.map { TableBudget(tables: max(0, $0.memory(options)) / $0.bytesPerTable) }
    }

    /// Gives `key`'s leaf key this cache's table budgets, once: called when a cached chain is
    /// used again, so that tables go to the leaf keys seen more than once (a stream of distinct
    /// chains builds none), and a table freed with its key gives its share back.
    func armTables(_ key: ChainKey) {
        guard !key.tablesArmed.exchange(true, ordering: .relaxed) else { return }
        for (kind, budget) in zip(KeyTableKind.all, tableBudgets) { kind.key(key.key)?.arm(budget) }
    }

    /// The slot count.
    var capacity: Int { slots.count }

    /// The digest of a chain as the token carries it (`x5c` JSON or `x5chain` CBOR: the format
    /// is mixed in, so the two never share an entry).
    func digest(_ bytes: UnsafeBufferPointer<UInt8>, format: TokenFormat) -> KeyedHash.Digest {
        var digest = hasher.hash(UnsafeRawBufferPointer(bytes))
        if format == .cwt { digest.high ^= 1 }
        return digest
    }

    /// The entry for `digest`, if either of its slots holds it.
    func lookup(_ digest: KeyedHash.Digest) -> Entry? {
        let first = Int(truncatingIfNeeded: digest.low) & mask
        if let entry = slots[first].load(ordering: .acquiring), entry.digest == digest { return entry }
        if let entry = slots[first ^ 1].load(ordering: .acquiring), entry.digest == digest { return entry }
        return nil
    }

    /// Keeps `outcome` for `digest`, in an empty slot of its two, else in the one its digest's
    /// high bit picks (replacing what was there).
    func insert(_ digest: KeyedHash.Digest, _ outcome: Outcome) {
        let first = Int(truncatingIfNeeded: digest.low) & mask
        let entry = Entry(digest: digest, outcome: outcome)
        for slot in [first, first ^ 1]
        where slots[slot].compareExchange(expected: nil, desired: entry, ordering: .acquiringAndReleasing).exchanged {
            return
        }
        slots[first ^ Int(digest.high & 1)].store(entry, ordering: .releasing)
    }
}
