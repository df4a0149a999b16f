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

    /// `verify(signature, message)` of each path, on this input's signature and message.
    func verdicts<Verdicts>(
        signature: [UInt8],
        _ paths: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<UInt8>) -> Verdicts
    ) -> Verdicts {
        signature.withUnsafeBufferPointer { s in message.withUnsafeBufferPointer { m in paths(s, m) } }
    }
}
