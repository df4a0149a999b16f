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
    /// OpenSSL 3.0, rounded up; and, where the CPU and the environment allow the wide path
    /// (`p256_wide.c`), the key's wide table: 37 × 64 affine points of 64 bytes, 64-byte
    /// aligned (151,616 bytes: `tv_p256_wide_table_bytes`).
    static let bytesPerTable = 160_000 + Int(tv_p256_wide_table_bytes())

    /// ES256 keys' tables, capped by ``TableMemory/es256``.
    static let kind = KeyTableKind(name: "es256", path: { path }, key: { $0.p256 }, bytesPerTable: bytesPerTable)

    /// The path and why (``SignaturePath/es256(status:wide:running:)``), decided once: the first
    /// call runs the self-test (`p256_self_test.c`) unless a table was built before.
    static let path = SignaturePath.es256(
        status: Int(tv_p256_table_status()), wide: Int(tv_p256_wide_status()), running: SignatureLibrary.openSSLRunning)

    /// Whether a batch's ES256 signatures whose keys have their tables go through the wide path
    /// (`tv_p256_table_verify_many`, eight at a time). Never runs the self-tests (a batch must
    /// not wait for them): false until the status is decided, which happens before the first
    /// table is built (`tv_p256_table_new`), so every key with a table sees the decided status.
    static var isWide: Bool { tv_p256_wide_status_decided() == TV_P256_WIDE_ON }

    /// Builds the table for the point (x, y); nil when the table path is off (``path``: OpenSSL
    /// built no precomputed table, or the self-test failed; the key then verifies through EVP),
    /// or the point is not valid. Takes ~40 ms.
    init?(x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32, let handle = tv_p256_table_new(x, y) else { return nil }
        self.handle = handle
    }

    deinit { tv_p256_table_free(handle) }
}
