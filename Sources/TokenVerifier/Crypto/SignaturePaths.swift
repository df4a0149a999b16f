/// One public key's verification paths side by side, for the path comparisons of the fuzz
/// harnesses and the replays of their corpora (TokenVerifierTesting): the library's standard call
/// (EVP_PKEY_verify, `crypto_sign_verify_detached`) and the per-key table, alone and twice in one
/// batch. The key's table is built when the paths are made; the back-end classes stay internal.
///
/// For one thread at a time (an ES256 key's verify context is).
package final class SignaturePaths {
    private let verdictsOf: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> PathVerdicts

    /// What the paths said of one signature: the standard call's, the table's alone, and the
    /// table's with the signature twice in one batch (nil when the two copies disagreed or no
    /// batch takes the signature).
    typealias PathVerdicts = (standard: Bool, table: Bool, batched: Bool?)

    /// The paths of a public key of kind `type` with its table built: for P-256 the point's x‖y
    /// (64 bytes), for Ed25519 the key's 32 bytes. Nil when the bytes are no such key or this
    /// build has no table for it (OpenSSL built none for P-256, no Ed25519 table).
    package init?(_ type: KeyType, publicKey bytes: [UInt8]) {
        switch type {
        case .p256:
            guard bytes.count == 64, let key = P256PublicKey(x: Array(bytes[..<32]), y: Array(bytes[32...])),
                key.buildTable()
            else { return nil }
            let context = P256VerifyContext(key: key)
            verdictsOf = { signature, message in
                (
                    context.verifyWithEVP(signature: signature, message: message),
                    context.verify(signature: signature, message: message),
                    context.verifyTwiceInOneBatch(signature: signature, message: message)
                )
            }
        case .ed25519:
            let key = Ed25519PublicKey(bytes)
            guard key.buildTable() else { return nil }
            verdictsOf = { signature, message in
                (
                    key.verifyWithSodium(signature: signature, message: message),
                    key.verify(signature: signature, message: message),
                    key.verifyTwiceInOneBatch(signature: signature, message: message)
                )
            }
        }
    }

    /// The verdicts of every path on `signature` of `message`.
    package func verdicts(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>
    ) -> (standard: Bool, table: Bool, batched: Bool?) {
        verdictsOf(signature, message)
    }
}
