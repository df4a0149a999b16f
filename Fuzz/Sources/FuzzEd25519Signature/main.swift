import FuzzSupport
@testable import TokenTools
@testable import TokenVerifier

/// Ed25519 signatures: `crypto_sign_verify_detached` and the per-key precomputed table must give
/// the same verdict on every (key, signature, message).
///
/// An input is read as: byte 0 picks one of three fixed keys (its value mod 3) and, with its top
/// bit set, asks for a signature made here over the message, XORed with the next 64 bytes (so
/// valid and nearly valid signatures are reached); without it, bytes 1..<65 are the signature
/// itself (shorter when the input is). The bytes after them are the message.
let seeds: [[UInt8]] = (1...3).map { seed in (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ seed &* 83) } }
let keys: [(seed: [UInt8], key: Ed25519PublicKey)] = seeds.map { seed in
    let key = Ed25519PublicKey(Ed25519Signing.publicKey(seed: seed))
    precondition(key.buildTable(), "no Ed25519 table: the table path is not available in this build")
    return (seed, key)
}

runFuzzer { input in
    guard let first = input.first else { return }
    let key = keys[Int(first) % keys.count]
    let signatureBytes = Array(input[1..<min(input.count, 65)])
    let message = Array(input[min(input.count, 65)...])
    var signature = signatureBytes
    if first & 0x80 != 0 {
        signature = Ed25519Signing.sign(message, seed: key.seed)
        for (index, mask) in signatureBytes.enumerated() { signature[index] ^= mask }
    }
    signature.withUnsafeBufferPointer { s in
        message.withUnsafeBufferPointer { m in
            let standard = key.key.verifyWithSodium(signature: s, message: m)
            precondition(standard == key.key.verify(signature: s, message: m), "crypto_sign_verify_detached and the per-key table disagree")
        }
    }
}
