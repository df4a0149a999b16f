import Atomics
internal import CTokenCrypto

/// A P-256 public key decoded once into an OpenSSL `EVP_PKEY`, and its precomputed table once
/// that is built (``KeyTableBuilder``).
final class P256PublicKey: @unchecked Sendable, KeyWithTable {
    // Immutable after init; OpenSSL allows concurrent use of one EVP_PKEY by many contexts.
    fileprivate let handle: UnsafeMutableRawPointer
    private let x: [UInt8]
    private let y: [UInt8]
    /// The key's table: asked for on first use, published once when ready.
    let lazyTable = LazyKeyTable<P256KeyTable>()

    /// Nil when (x, y) is not a point on P-256 or a coordinate is not 32 bytes.
    init?(x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32, let handle = tv_p256_public_key_new(x, y) else { return nil }
        self.handle = handle
        self.x = x
        self.y = y
    }

    deinit { tv_p256_key_free(handle) }

    /// The key's table, when it is ready.
    @inline(__always)
    var table: P256KeyTable? { lazyTable.table }

    /// Asks for the key's table (built in the background, within its key set's budget).
    func requestTable() {
        lazyTable.request { [x, y] in P256KeyTable(x: x, y: y) }
    }

    /// Builds and publishes the key's table now unless it has one; true when a table was built
    /// here. False too when OpenSSL offers no table for P-256: the key keeps verifying through EVP.
    func buildTable() -> Bool {
        lazyTable.buildNow { P256KeyTable(x: x, y: y) }
    }
}

/// An OpenSSL verify context for one key, for one thread at a time: through the key's table once
/// it is ready, through EVP_PKEY_verify until then (both give the same verdict on every input).
final class P256VerifyContext {
    private let key: P256PublicKey
    private let handle: UnsafeMutableRawPointer
    /// The scratch for table verification, made when the key's table is first seen (so, for the
    /// tests, non-nil once this context has verified through the table).
    private(set) var tableScratch: UnsafeMutableRawPointer?

    init(key: P256PublicKey) {
        guard let handle = tv_p256_verify_context_new(key.handle) else {
            fatalError("OpenSSL could not create a verify context for a valid P-256 key")
        }
        self.key = key
        self.handle = handle
    }

    deinit {
        tv_p256_verify_context_free(handle)
        tv_p256_table_scratch_free(tableScratch)
    }

    /// Verifies a 64-byte r‖s `signature` of `message` (hashed with SHA-256 here). A signature of
    /// another length, or with r or s zero or not below the group order, is invalid. `inverse`,
    /// s⁻¹ mod n as four little-endian limbs (`tv_p256_table_inverses`), spares the table
    /// path its inversion when it is that inverse; it never changes the verdict.
    @inline(__always)
    func verify(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>,
        inverse: UnsafePointer<UInt64>? = nil
    ) -> Bool {
        guard signature.count == 64 else { return false }
        if let table = key.table, let scratch = scratch() {
            return withExtendedLifetime(table) {
                tv_p256_table_verify_hinted(
                    table.handle, scratch, message.baseAddress, message.count, signature.baseAddress, inverse) == 1
            }
        }
        if !key.lazyTable.isRequested { key.requestTable() }
        return verifyWithEVP(signature: signature, message: message)
    }

    /// The key's table when it is ready, for a batch's verify of many signatures at once
    /// (`tv_p256_table_verify_many`); nil until then, the table asked for as ``verify`` would.
    @inline(__always)
    var tableForBatch: P256KeyTable? {
        if let table = key.table { return table }
        if !key.lazyTable.isRequested { key.requestTable() }
        return nil
    }

    /// `signature` of `message` verified twice as one batch's signatures are: both copies' s
    /// inverted together (`tv_p256_table_inverses`), each verified with its inverse as the hint;
    /// and, on the wide path (``P256KeyTable/isWide``), five times through the wide batch verify
    /// (``verifyInWideBatch(signature:message:)``). The verdict when all got the same, nil when
    /// they did not or the signature is not 64 bytes (for the comparisons of the paths: the fuzz
    /// harness FuzzSignature and the replay of its corpus).
    func verifyTwiceInOneBatch(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>
    )
        -> Bool?
    {
        guard signature.count == 64 else { return nil }
        var inverses = [UInt64](repeating: 0, count: 8)
        let sValues = Array(signature[32..<64]) + Array(signature[32..<64])
        tv_p256_table_inverses(sValues, 2, &inverses)
        let verdicts = inverses.withUnsafeBufferPointer { limbs in
            (0..<2).map { verify(signature: signature, message: message, inverse: limbs.baseAddress! + 4 * $0) }
        }
        guard verdicts[0] == verdicts[1] else { return nil }
        if P256KeyTable.isWide, verifyInWideBatch(signature: signature, message: message) != verdicts[0] { return nil }
        return verdicts[0]
    }

    /// `signature` of `message` five times in one `tv_p256_table_verify_many` call: on the wide
    /// path, one group of eight lanes with three padded (their verdicts never reported). The
    /// verdict when all five agree; nil when they do not, or the signature is not 64 bytes, or the
    /// key's table is not ready.
    func verifyInWideBatch(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard signature.count == 64, let table = key.table, let scratch = scratch() else { return nil }
        let copies = 5
        var verdicts = [UInt8](repeating: 0xAA, count: copies)
        withExtendedLifetime(table) {
            let tables = [UnsafeMutableRawPointer?](repeating: table.handle, count: copies)
            let messages = [UnsafePointer<UInt8>?](repeating: message.baseAddress, count: copies)
            let lengths = [Int](repeating: message.count, count: copies)
            let signatures = [UnsafePointer<UInt8>?](repeating: signature.baseAddress, count: copies)
            tv_p256_table_verify_many(tables, scratch, messages, lengths, signatures, copies, &verdicts)
        }
        guard verdicts[0] <= 1, verdicts.allSatisfy({ $0 == verdicts[0] }) else { return nil }
        return verdicts[0] == 1
    }

    /// The standard path, EVP_PKEY_verify, whatever the key's table (for the comparisons).
    func verifyWithEVP(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>) -> Bool {
        guard signature.count == 64 else { return false }
        return tv_p256_verify(handle, message.baseAddress, message.count, signature.baseAddress) == 1
    }

    @inline(__always)
    private func scratch() -> UnsafeMutableRawPointer? {
        if let tableScratch { return tableScratch }
        tableScratch = tv_p256_table_scratch_new()
        return tableScratch
    }
}
