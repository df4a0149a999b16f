internal import CTokenCrypto

/// Both ES256 verification paths — EVP_PKEY_verify and the per-key table — on one fuzz input,
/// for the FuzzSignature harness and the replay of its corpus in the tests.
///
/// An input is read as: byte 0 picks one of three fixed keys (its value mod 3) and, with its top
/// bit set, asks for a signature made here over the message, XORed with the next 64 bytes (so
/// valid and nearly valid signatures are reached); without it, bytes 1..<65 are the signature
/// itself (shorter when the input is). The bytes after them are the message.
enum ES256PathCheck {
    /// Three fixed private scalars (any values in [1, n−1]).
    private static let scalars: [[UInt8]] = (1...3).map { seed in (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ seed &* 101) } }

    /// One key per scalar: OpenSSL's private key (for the signatures made here, with OpenSSL's own
    /// randomised signing: the verdicts do not depend on the nonce) and one verify context, for
    /// one thread at a time, as the harness and the replay run.
    nonisolated(unsafe) private static let keys: [(privateKey: UnsafeMutableRawPointer, context: P256VerifyContext)] = scalars.map { scalar in
        var x = [UInt8](repeating: 0, count: 32), y = [UInt8](repeating: 0, count: 32)
        let privateKey = tv_p256_private_key_new(scalar, &x, &y)!
        let key = P256PublicKey(x: x, y: y)!
        precondition(key.buildTable(), "OpenSSL built no table for P-256")
        return (privateKey, P256VerifyContext(key: key))
    }

    /// The verdicts of both paths on `input`, and whether the signature was made here.
    static func verdicts(_ input: UnsafeBufferPointer<UInt8>) -> (evp: Bool, table: Bool, signedHere: Bool) {
        guard let first = input.first else { return (false, false, false) }
        let key = keys[Int(first) % keys.count]
        let signatureBytes = Array(input[1..<min(input.count, 65)])
        let message = Array(input[min(input.count, 65)...])
        let signedHere = first & 0x80 != 0
        var signature = signatureBytes
        if signedHere {
            signature = [UInt8](repeating: 0, count: 64)
            precondition(tv_p256_sign(key.privateKey, message, message.count, &signature) == 1, "OpenSSL could not sign")
            for (index, mask) in signatureBytes.enumerated() { signature[index] ^= mask }
        }
        return signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                (key.context.verifyWithEVP(signature: s, message: m), key.context.verify(signature: s, message: m), signedHere)
            }
        }
    }
}
