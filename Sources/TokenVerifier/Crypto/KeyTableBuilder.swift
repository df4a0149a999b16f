import Dispatch

/// Builds the per-key tables of a key set in the background (ES256: ``P256KeyTable``, Ed25519:
/// ``Ed25519KeyTable``): on one low-priority serial queue, in key order, each algorithm up to its
/// memory cap (keys beyond it keep the standard call). A build stops early when its key set is no
/// longer the one in force.
enum KeyTableBuilder {
    private static let queue = DispatchQueue(label: "tokenverify.key-tables", qos: .utility)

    /// The memory caps, in bytes, of the two kinds of table.
    struct Caps {
        var es256: Int
        var ed25519: Int

        /// How many ES256 and Ed25519 tables fit (the Ed25519 path's start-up self-test runs only
        /// when the key set has an Ed25519 key).
        func tableCounts(for keys: KeySet) -> (es256: Int, ed25519: Int) {
            let hasEd25519 = keys.keys.contains { $0.ed25519 != nil }
            return (max(0, es256) / P256KeyTable.bytesPerTable,
                    hasEd25519 && ed25519 > 0 && Ed25519KeyTable.isAvailable ? ed25519 / Ed25519KeyTable.bytesPerTable : 0)
        }
    }

    /// Schedules the tables of `keys` (nothing when no key can have one within the caps).
    /// `stillWanted` is asked before each key; the build stops when it answers false.
    static func start(for keys: KeySet, caps: Caps, stillWanted: @escaping @Sendable (KeySet) -> Bool) {
        let budget = caps.tableCounts(for: keys)
        let wanted = keys.keys.contains { ($0.p256 != nil && budget.es256 > 0) || ($0.ed25519 != nil && budget.ed25519 > 0) }
        guard wanted else { return }
        queue.async {
            var built = (es256: 0, ed25519: 0)
            for key in keys.keys {
                guard built.es256 < budget.es256 || built.ed25519 < budget.ed25519, stillWanted(keys) else { return }
                if let p256 = key.p256, built.es256 < budget.es256, p256.buildTable() { built.es256 += 1 }
                if let ed25519 = key.ed25519, built.ed25519 < budget.ed25519, ed25519.buildTable() { built.ed25519 += 1 }
            }
        }
    }

    /// Returns when every build scheduled so far has ended (for tests and the benchmark).
    static func waitUntilIdle() {
        queue.sync {}
    }
}

extension TokenVerifier {
    /// Blocks until the per-key tables scheduled so far (ES256 and Ed25519, for this verifier's
    /// key set and any other) are built or skipped: for benchmarks and tests that measure the
    /// steady state. Verification never needs it; a key without its table verifies through the
    /// library's standard call.
    public func waitForKeyTables() {
        KeyTableBuilder.waitUntilIdle()
    }

    /// The same as ``waitForKeyTables()`` (its earlier name, from when only ES256 keys had tables).
    public func waitForES256Tables() {
        KeyTableBuilder.waitUntilIdle()
    }
}
