import Atomics
internal import CTokenEd25519

/// An Ed25519 public key's precomputed table (see `ed25519_table.c`): the signed multiples of −A
/// for each 6-bit window of a scalar, built from libsodium's own point functions, so that a
/// verification adds 86 precomputed points instead of decompressing A and doubling 253 times.
/// Built once, off the hot path, then read-only and shared by every worker.
final class Ed25519KeyTable: @unchecked Sendable {
    // Immutable after init; the C table is read-only, so any number of threads may use it.
    let handle: UnsafeMutableRawPointer

    /// The memory one table takes: 43 windows × 32 multiples × 160 bytes, and the key; with the
    /// wide path on, the same multiples in affine form instead, 43 × 32 × 120 bytes.
    static let bytesPerTable = tv_ed25519_table_size()

    /// Ed25519 keys' tables, capped by ``TableMemory/ed25519``.
    static let kind = KeyTableKind(name: "ed25519", path: { path }, key: { $0.ed25519 }, bytesPerTable: bytesPerTable)

    /// Whether this build has the table path (libsodium 1.0.18, and its self-test passed).
    static let isAvailable = tv_ed25519_table_available() == 1

    /// The path and why (``SignaturePath/ed25519(status:wide:compiled:running:hashLibrary:)``),
    /// decided once.
    static let path = SignaturePath.ed25519(
        status: Int(tv_ed25519_table_status()), wide: Int(tv_ed25519_wide_status()),
        compiled: SignatureLibrary.libsodiumCompiled, running: SignatureLibrary.libsodiumRunning,
        hashLibrary: tv_ed25519_wide_hash_library().map { String(cString: $0) })

    /// Nil when the path is unavailable or libsodium would refuse the key. Takes about 1 ms.
    init?(publicKey: [UInt8]) {
        guard publicKey.count == 32, let handle = tv_ed25519_table_new(publicKey) else { return nil }
        self.handle = handle
    }

    deinit { tv_ed25519_table_free(handle) }

    /// Same verdict as `crypto_sign_verify_detached` with the table's key, on every input.
    @inline(__always)
    func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == Ed25519.signatureLength else { return false }
        return tv_ed25519_table_verify(handle, message.baseAddress, message.count, signature.baseAddress!) == 1
    }
}

/// An Ed25519 public key and its table once that is built (``KeyTableBuilder``).
final class Ed25519PublicKey: Sendable, KeyWithTable {
    let bytes: [UInt8]
    /// The key's table: asked for on first use, published once when ready.
    let lazyTable = LazyKeyTable<Ed25519KeyTable>()

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The key's table, when it is ready.
    @inline(__always)
    var table: Ed25519KeyTable? { lazyTable.table }

    /// Asks for the key's table (built in the background, within its key set's budget).
    func requestTable() {
        lazyTable.request { [bytes] in Ed25519KeyTable(publicKey: bytes) }
    }

    /// Builds and publishes the key's table now unless it has one; true when a table was built here.
    func buildTable() -> Bool {
        lazyTable.buildNow { Ed25519KeyTable(publicKey: bytes) }
    }

    /// Verifies through the key's table once it is ready, through `crypto_sign_verify_detached`
    /// until then (both give the same verdict on every input); the first use asks for the table.
    @inline(__always)
    func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        if let verified = lazyTable.withTable({ $0.verify(signature: signature, message: message) }) {
            return verified
        }
        if !lazyTable.isRequested { requestTable() }
        return verifyWithSodium(signature: signature, message: message)
    }

    /// `signature` of `message` verified twice in one batch through the key's table, as the batch
    /// engine verifies a batch's signatures (`tv_ed25519_table_verify_many`): the verdict when both
    /// copies got the same, nil when they did not, or when the table is not ready or the
    /// signature is not 64 bytes (for the comparisons of the paths).
    func verifyTwiceInOneBatch(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>
    )
        -> Bool?
    {
        guard signature.count == Ed25519.signatureLength else { return nil }
        return lazyTable.withTable { table -> Bool? in
            let tables = [UnsafeRawPointer?](repeating: UnsafeRawPointer(table.handle), count: 2)
            let messages = [message.baseAddress, message.baseAddress]
            let signatures = [signature.baseAddress, signature.baseAddress]
            var verdicts: [UInt8] = [2, 2]
            tv_ed25519_table_verify_many(tables, messages, [message.count, message.count], signatures, 2, &verdicts)
            return verdicts[0] == verdicts[1] ? verdicts[0] == 1 : nil
        } ?? nil
    }

    /// The standard path, `crypto_sign_verify_detached`, whatever the key's table.
    func verifyWithSodium(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { Ed25519.verify(signature: signature, message: message, publicKey: $0) }
    }
}
