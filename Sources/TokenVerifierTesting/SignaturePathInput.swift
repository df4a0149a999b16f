import TokenVerifier

/// How the signature-path fuzz harnesses (FuzzSignature, FuzzEd25519Signature) and the replays of
/// their corpora read an input, so that both paths of an algorithm see every kind of signature.
///
/// Byte 0 picks one of the fixed keys (its value modulo their count) and, with its top bit set,
/// asks for a signature made here over the message, XORed with the next 64 bytes (so valid and
/// nearly valid signatures are reached); without it, bytes 1..<65 are the signature itself
/// (shorter when the input is). The bytes after them are the message.
struct SignaturePathInput {
    let keyIndex: Int
    let message: [UInt8]
    let signedHere: Bool
    private let signatureBytes: [UInt8]

    init?(_ input: UnsafeBufferPointer<UInt8>, keys: Int) {
        guard let first = input.first else { return nil }
        keyIndex = Int(first) % keys
        signedHere = first & 0x80 != 0
        signatureBytes = Array(input[1..<min(input.count, 65)])
        message = Array(input[min(input.count, 65)...])
    }

    /// The signature to check: the input's bytes, or `sign(message)` XORed with them.
    func signature(signingWith sign: ([UInt8]) -> [UInt8]) -> [UInt8] {
        guard signedHere else { return signatureBytes }
        var signature = sign(message)
        for (index, mask) in signatureBytes.enumerated() { signature[index] ^= mask }
        return signature
    }

    /// The verdicts of `paths` on this input's signature and message.
    func verdicts(signature: [UInt8], paths: SignaturePaths) -> SignaturePathVerdicts {
        signature.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                let verdicts = paths.verdicts(signature: s, message: m)
                return SignaturePathVerdicts(
                    standard: verdicts.standard, table: verdicts.table, batched: verdicts.batched,
                    signedHere: signedHere, wholeSignature: s.count == 64)
            }
        }
    }
}

/// What the verification paths of one algorithm said of one signature-path fuzz input.
public struct SignaturePathVerdicts: Sendable {
    /// The library's standard call (EVP_PKEY_verify, crypto_sign_verify_detached).
    public var standard: Bool
    /// The per-key table path, one signature alone.
    public var table: Bool
    /// The per-key table path with the signature twice in one batch: the verdict when both copies
    /// got the same, nil when they did not or the signature is not 64 bytes (no batch takes it).
    public var batched: Bool?
    /// The signature was made here (then valid unless the input's mask changed it).
    public var signedHere: Bool
    /// The signature is 64 bytes, so a batch verifies it.
    public var wholeSignature: Bool

    /// A 64-byte signature got the standard verdict in the batch too; any other went to none.
    public var batchAgrees: Bool { wholeSignature ? batched == standard : batched == nil }

    /// An empty input's: nothing to verify.
    static let refused = SignaturePathVerdicts(
        standard: false, table: false, batched: nil, signedHere: false, wholeSignature: false)
}
