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
}
