import CTokenEd25519
import TestSupport
import Testing

@testable import TokenVerifier

/// One Ed25519 public key checked through both verification paths: libsodium's
/// `crypto_sign_verify_detached` and the key's precomputed table (built here, synchronously).
struct Ed25519PathComparison {
    let publicKey: [UInt8]
    let table: Ed25519KeyTable

    /// Nil when libsodium refuses the key (then no table is made), or the table path is not
    /// available in this build (the test requires it; see ``requireTablePath()``).
    init?(publicKey: [UInt8]) {
        guard let table = Ed25519KeyTable(publicKey: publicKey) else { return nil }
        self.publicKey = publicKey
        self.table = table
    }

    /// The table path must exist where the tests run: skipped on another libsodium, failed in CI.
    static func requireTablePath() throws {
        try ExternalRequirement.require(
            Ed25519KeyTable.isAvailable,
            "the Ed25519 table path needs libsodium 1.0.18's libsodium.a (its self-test must pass)")
    }

    /// The two verdicts on `signature` of `message`: (libsodium, table).
    func verdicts(signature: [UInt8], message: [UInt8]) -> (sodium: Bool, table: Bool) {
        signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                let sodium = publicKey.withUnsafeBufferPointer {
                    Ed25519.verify(signature: s, message: m, publicKey: $0)
                }
                return (sodium, table.verify(signature: s, message: m))
            }
        }
    }

    /// The table path's verdicts on `inputs` verified as the batch engine verifies a batch's
    /// Ed25519 signatures: every 64-byte one through `tv_ed25519_table_verify_many` at once (the
    /// keys mixed, the encodings sharing their inversions), any other alone.
    static func batchedVerdicts(
        _ inputs: [(path: Ed25519PathComparison, signature: [UInt8], message: [UInt8])]
    ) -> [Bool] {
        let batched = inputs.filter { $0.signature.count == 64 }
        let tables: [UnsafeRawPointer?] = batched.map { UnsafeRawPointer($0.path.table.handle) }
        let signatures = batched.map(\.signature)
        let messages = batched.map(\.message)
        var verdicts = [UInt8](repeating: 0xAA, count: batched.count)
        withPointers(signatures) { signaturePointers in
            withPointers(messages) { messagePointers in
                tv_ed25519_table_verify_many(
                    tables, messagePointers, messages.map(\.count), signaturePointers, batched.count, &verdicts)
            }
        }
        var next = 0
        return inputs.map { input in
            guard input.signature.count == 64 else {
                return input.path.verdicts(signature: input.signature, message: input.message).table
            }
            defer { next += 1 }
            return verdicts[next] == 1
        }
    }

    /// `body` with a pointer to each of `arrays`' bytes (valid for the call).
    private static func withPointers<R>(_ arrays: [[UInt8]], _ body: ([UnsafePointer<UInt8>?]) -> R) -> R {
        let buffers = arrays.map { array in
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, array.count))
            _ = buffer.initialize(from: array)
            return buffer
        }
        defer { for buffer in buffers { buffer.deallocate() } }
        return body(buffers.map { UnsafePointer($0.baseAddress) })
    }
}
