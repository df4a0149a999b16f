internal import CTokenSigning
import TokenVerifier

/// Both ES256 verification paths — EVP_PKEY_verify and the per-key table — on one fuzz input
/// (laid out as ``SignaturePathInput`` says), for the FuzzSignature harness and the replay of its
/// corpus in the tests.
public enum ES256PathCheck {
    /// Three fixed private scalars (any values in [1, n−1]).
    private static let scalars: [[UInt8]] = (1...3).map { seed in
        (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ seed &* 101) }
    }

    /// One key per scalar: OpenSSL's private key (for the signatures made here, with OpenSSL's own
    /// randomised signing: the verdicts do not depend on the nonce) and the public key's paths
    /// (one verify context, for one thread at a time, as the harness and the replay run).
    nonisolated(unsafe) private static let keys: [(privateKey: UnsafeMutableRawPointer, paths: SignaturePaths)] =
        scalars.map { scalar in
            var x = [UInt8](repeating: 0, count: 32)
            var y = [UInt8](repeating: 0, count: 32)
            let privateKey = tv_p256_private_key_new(scalar, &x, &y)!
            guard let paths = SignaturePaths(.p256, publicKey: x + y) else {
                preconditionFailure("OpenSSL built no table for P-256")
            }
            return (privateKey, paths)
        }

    /// The verdicts of both paths on `input`: EVP's (`standard`), the table's alone and twice in
    /// one batch.
    public static func verdicts(_ input: UnsafeBufferPointer<UInt8>) -> SignaturePathVerdicts {
        guard let input = SignaturePathInput(input, keys: keys.count) else { return .refused }
        let key = keys[input.keyIndex]
        let signature = input.signature { message in
            var signature = [UInt8](repeating: 0, count: 64)
            let signed = tv_p256_sign(key.privateKey, message, message.count, &signature)
            precondition(signed == 1, "OpenSSL could not sign")
            return signature
        }
        return input.verdicts(signature: signature, paths: key.paths)
    }
}
