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

    private init(_ verdictsOf: @escaping (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> PathVerdicts) {
        self.verdictsOf = verdictsOf
    }

    /// The paths of the ES256 key (x, y) with its table built; nil when (x, y) is not a point on
    /// P-256 or OpenSSL built no table.
    package static func es256(x: [UInt8], y: [UInt8]) -> SignaturePaths? {
        guard let key = P256PublicKey(x: x, y: y), key.buildTable() else { return nil }
        let context = P256VerifyContext(key: key)
        return SignaturePaths { signature, message in
            (
                context.verifyWithEVP(signature: signature, message: message),
                context.verify(signature: signature, message: message),
                context.verifyTwiceInOneBatch(signature: signature, message: message)
            )
        }
    }

    /// The paths of the Ed25519 public key `bytes` with its table built; nil when this build has
    /// no Ed25519 table.
    package static func ed25519(publicKey bytes: [UInt8]) -> SignaturePaths? {
        let key = Ed25519PublicKey(bytes)
        guard key.buildTable() else { return nil }
        return SignaturePaths { signature, message in
            (
                key.verifyWithSodium(signature: signature, message: message),
                key.verify(signature: signature, message: message),
                key.verifyTwiceInOneBatch(signature: signature, message: message)
            )
        }
    }

    /// The verdicts of every path on `signature` of `message`.
    package func verdicts(
        signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>
    ) -> (standard: Bool, table: Bool, batched: Bool?) {
        verdictsOf(signature, message)
    }
}
