internal import CSodium
internal import CTokenEd25519
internal import CTokenEd25519.Testing
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

    /// The fixed keys' tables with their wide combs (`tv_ed25519_wide_table_new`), where the CPU
    /// has the wide path; empty elsewhere.
    nonisolated(unsafe) private static let wideTables: [UnsafeMutableRawPointer] = keys.indices.compactMap { index in
        let seedBytes = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ (index + 1) &* 83) }
        var publicKey = [UInt8](repeating: 0, count: 32)
        var secretKey = [UInt8](repeating: 0, count: 64)
        precondition(crypto_sign_seed_keypair(&publicKey, &secretKey, seedBytes) == 0)
        return tv_ed25519_wide_table_new(publicKey)
    }

    /// Whether the wide path gives `input`'s signature libsodium's verdict in a batch of 11 (the
    /// signature at lanes 0, 5 and 9, other keys' copies between them: a full group of eight and
    /// a padded tail of three); true where the CPU has no wide path, or the signature is not 64
    /// bytes (no batch takes it).
    public static func wideAgrees(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard wideTables.count == keys.count, let input = SignaturePathInput(bytes, keys: keys.count) else {
            return true
        }
        let key = keys[input.keyIndex]
        let signature = input.signature { message in
            var signature = [UInt8](repeating: 0, count: 64)
            _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), key.secretKey)
            return signature
        }
        guard signature.count == 64 else { return true }
        let standard = verdicts(bytes).standard
        let batch = 11
        let tables: [UnsafeRawPointer?] = (0..<batch).map { lane in
            UnsafeRawPointer(
                wideTables[[0, 5, 9].contains(lane) ? input.keyIndex : (input.keyIndex + lane) % keys.count])
        }
        var verdicts = [UInt8](repeating: 0xAA, count: batch)
        signature.withUnsafeBufferPointer { s in
            input.message.withUnsafeBufferPointer { m in
                var byte: UInt8 = 0
                withUnsafePointer(to: &byte) { empty in
                    let message = m.count > 0 ? m.baseAddress! : empty
                    tv_ed25519_wide_verify_many(
                        tables, [UnsafePointer<UInt8>?](repeating: message, count: batch),
                        [Int](repeating: m.count, count: batch),
                        [UnsafePointer<UInt8>?](repeating: s.baseAddress, count: batch), batch, &verdicts)
                }
            }
        }
        return [0, 5, 9].allSatisfy { verdicts[$0] == (standard ? 1 : 0) }
    }
}
