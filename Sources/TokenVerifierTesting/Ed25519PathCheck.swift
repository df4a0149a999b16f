internal import CSodium
import TokenVerifier

/// Both Ed25519 verification paths — `crypto_sign_verify_detached` and the per-key table — on one
/// fuzz input (laid out as ``SignaturePathInput`` says), for the FuzzEd25519Signature harness and
/// the replay of its corpus in the tests.
public enum Ed25519PathCheck {
    /// Three fixed keys from fixed seeds: libsodium's secret key (for the signatures made here)
    /// and the public key's paths, its table built (for one thread at a time, as the harness and
    /// the replay run).
    nonisolated(unsafe) private static let keys: [(secretKey: [UInt8], paths: SignaturePaths)] = (1...3).map { seed in
        let seedBytes = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ seed &* 83) }
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        precondition(sodium_init() >= 0 && crypto_sign_seed_keypair(&publicKey, &secretKey, seedBytes) == 0)
        guard let paths = SignaturePaths(.ed25519, publicKey: publicKey) else {
            preconditionFailure("no Ed25519 table: the table path is not available in this build")
        }
        return (secretKey, paths)
    }

    /// The verdicts of both paths on `input`: libsodium's (`standard`), the table's alone and
    /// twice in one batch.
    public static func verdicts(_ input: UnsafeBufferPointer<UInt8>) -> SignaturePathVerdicts {
        guard let input = SignaturePathInput(input, keys: keys.count) else { return .refused }
        let key = keys[input.keyIndex]
        let signature = input.signature { message in
            var signature = [UInt8](repeating: 0, count: 64)
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), key.secretKey)
            return signature
        }
        return input.verdicts(signature: signature, paths: key.paths)
    }
}
