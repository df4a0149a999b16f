import Atomics
import Dispatch

/// Builds keys' precomputed tables (the kinds ``KeyTableKind/all`` lists; ES256: ``P256KeyTable``,
/// about 40 ms each; Ed25519: ``Ed25519KeyTable``, about 1 ms) in the background, on one
/// low-priority serial queue: a key's table on the key's first use, within what its key set's
/// memory cap allows (keys beyond it keep the standard call). A key set of many keys, most of them
/// unused by a run, so costs nothing at start-up. A table lives as long as its key: a rotated-out
/// key's table goes with it.
enum KeyTableBuilder {
    fileprivate static let queue = DispatchQueue(label: "tokenverify.key-tables", qos: .utility)

    /// Gives the keys of a key set put in force their budgets, one per kind of table within the
    /// memory `options` allow it: tables are built as keys are used.
    static func arm(_ keys: KeySet, options: VerificationOptions) {
        for kind in KeyTableKind.all {
            let budget = TableBudget(tables: max(0, kind.memory(options)) / kind.bytesPerTable)
            for key in keys.keys { kind.key(key)?.arm(budget) }
        }
    }

    /// Asks for the table of every key of `keys` (in key order, within the caps) and returns
    /// when every build asked for so far has ended.
    static func buildAll(_ keys: KeySet) {
        for key in keys.keys {
            for kind in KeyTableKind.all { kind.key(key)?.requestTable() }
        }
        waitUntilIdle()
    }

    /// Returns when every build scheduled so far has ended (for tests and the benchmark).
    static func waitUntilIdle() {
        queue.sync {}
    }
}

/// What one key set's tables of one kind may take: how many more may be built.
final class TableBudget: Sendable {
    private let remaining: ManagedAtomic<Int>

    init(tables: Int) {
        remaining = ManagedAtomic(tables)
    }

    /// Schedules `build` if a table may still be built; false when the budget is spent.
    func schedule(_ build: @escaping @Sendable () -> Void) -> Bool {
        var left = remaining.load(ordering: .relaxed)
        while left > 0 {
            let (exchanged, found) = remaining.weakCompareExchange(
                expected: left, desired: left - 1, ordering: .relaxed)
            if exchanged {
                KeyTableBuilder.queue.async(execute: build)
                return true
            }
            left = found
        }
        return false
    }

    /// Returns the share of a table freed with its key.
    func giveBack() {
        remaining.wrappingIncrement(ordering: .relaxed)
    }

    /// How many more tables may be built.
    var remainingTables: Int { remaining.load(ordering: .relaxed) }
}

/// A key's precomputed table: asked for on the key's first use without one, built in the
/// background within the key set's budget, then published once and read with one atomic load.
/// (Every stored property is an atomic or immutable: shared between threads as it is.)
final class LazyKeyTable<Table: AnyObject & Sendable>: @unchecked Sendable {
    private let ready = ManagedAtomicLazyReference<Table>()
    private let requested = ManagedAtomic<Bool>(false)
    private let budget = ManagedAtomicLazyReference<TableBudget>()
    /// The table `ready` holds, unretained, once it is published: read per token without taking
    /// a reference count on the table that every thread shares.
    private let published = UnsafeAtomic<UnsafeRawPointer?>.create(nil)
    /// Whether a build was scheduled within the budget: its share goes back when this is freed.
    private let spent = ManagedAtomic<Bool>(false)

    init() {}

    deinit {
        published.destroy()
        if spent.load(ordering: .acquiring) { budget.load()?.giveBack() }
    }

    /// The table, once it is built.
    @inline(__always)
    var table: Table? { ready.load() }

    /// `body` on the table, once it is built (nil before); the table is lent, not retained (it
    /// lives as long as this).
    @inline(__always)
    func withTable<R>(_ body: (Table) -> R) -> R? {
        guard let table = published.load(ordering: .acquiring) else { return nil }
        return Unmanaged<Table>.fromOpaque(table)._withUnsafeGuaranteedRef(body)
    }

    /// Whether the table was asked for (once asked, never again).
    @inline(__always)
    var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Whether the key was given a budget.
    var isArmed: Bool { budget.load() != nil }

    /// Gives the key its key set's budget (the first key set the key is put in force with).
    func arm(_ budget: TableBudget) {
        _ = self.budget.storeIfNilThenLoad(budget)
    }

    /// Schedules `make` once, if the key is armed and its budget allows. A request before the
    /// key is armed is not counted: the key's next use asks again.
    func request(_ make: @escaping @Sendable () -> Table?) {
        guard let budget = budget.load(),
            requested.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return }
        if budget.schedule({ [self] in _ = buildNow(make) }) { spent.store(true, ordering: .releasing) }
    }

    /// Builds and publishes the table now, unless there is one; true when a table was built here.
    func buildNow(_ make: () -> Table?) -> Bool {
        guard ready.load() == nil, let table = make() else { return false }
        let stored = ready.storeIfNilThenLoad(table)
        published.store(UnsafeRawPointer(Unmanaged.passUnretained(stored).toOpaque()), ordering: .releasing)
        return stored === table
    }
}

extension Verifier {
    /// Builds the per-key tables of the key set in force (ES256 and Ed25519, in key order, within
    /// the memory caps) and blocks until they are built: for benchmarks and tests that measure
    /// the steady state. Verification never needs it: a key's table is otherwise built in the
    /// background on the key's first use, and until then the key verifies through the library's
    /// standard call.
    public func waitForKeyTables() {
        KeyTableBuilder.buildAll(keys)
    }

    /// The same as ``waitForKeyTables()`` (its earlier name, from when only ES256 keys had tables).
    package func waitForES256Tables() {
        waitForKeyTables()
    }
}
