internal import CTokenCrypto
import Dispatch

/// A P-256 public key's precomputed table for ES256 verification (see `p256_table.c`): OpenSSL's
/// comb table for the key's point, so that u2·Q costs what u1·G costs. Built once, off the hot
/// path, then read-only and shared by every worker; freed with the key that owns it.
final class P256KeyTable: @unchecked Sendable {
    // Immutable after init; the C table is read-only, so any number of threads may use it.
    let handle: UnsafeMutableRawPointer

    /// The memory one table takes: OpenSSL's comb table for one point (37 × 64 precomputed
    /// points of 64 bytes) and the copied group: 159,872–159,952 bytes measured with mallinfo2 on
    /// OpenSSL 3.0, rounded up.
    static let bytesPerTable = 160_000

    /// Builds the table for the point (x, y); nil when OpenSSL offers no precomputed method for
    /// P-256 (the key then verifies through EVP), or the point is not valid. Takes ~40 ms.
    init?(x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32, let handle = tv_p256_table_new(x, y) else { return nil }
        self.handle = handle
    }

    deinit { tv_p256_table_free(handle) }
}

/// Builds the tables of a key set's P-256 keys in the background: on one low-priority serial
/// queue, in key order, up to a memory cap (keys beyond it stay on EVP). A build stops early
/// when its key set is no longer the one in force.
enum P256TableBuilder {
    private static let queue = DispatchQueue(label: "tokenverify.p256-tables", qos: .utility)

    /// How many tables fit in `memoryCap` bytes.
    static func tableCount(memoryCap: Int) -> Int {
        max(0, memoryCap) / P256KeyTable.bytesPerTable
    }

    /// Schedules the tables of `keys` (nothing when the cap is 0 or no key is P-256).
    /// `stillWanted` is asked before each key; the build stops when it answers false.
    static func start(for keys: KeySet, memoryCap: Int, stillWanted: @escaping @Sendable (KeySet) -> Bool) {
        let budget = tableCount(memoryCap: memoryCap)
        guard budget > 0, keys.keys.contains(where: { $0.p256 != nil }) else { return }
        queue.async {
            var built = 0
            for key in keys.keys {
                guard built < budget, stillWanted(keys) else { return }
                guard let p256 = key.p256 else { continue }
                if p256.buildTable() { built += 1 }
            }
        }
    }

    /// Returns when every build scheduled so far has ended (for tests and the benchmark).
    static func waitUntilIdle() {
        queue.sync {}
    }
}

extension TokenVerifier {
    /// Blocks until the ES256 per-key tables scheduled so far (for this verifier's key set and
    /// any other) are built or skipped: for benchmarks and tests that measure the steady state.
    /// Verification never needs it; a key without its table verifies through EVP_PKEY_verify.
    public func waitForES256Tables() {
        P256TableBuilder.waitUntilIdle()
    }
}
