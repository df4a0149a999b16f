import CSodium
import Foundation
import TestSupport
import Testing

@testable import TokenVerifier

/// Randomized signatures through `crypto_sign_verify_detached` and the per-key table, alone and in
/// batches of 100 (`tv_ed25519_table_verify_many`, the keys mixed): equal
/// verdicts on every one. 20,000 in the default run; more with TOKENVERIFY_ED25519_COMPARE=COUNT
/// (`TOKENVERIFY_ED25519_COMPARE=1000000 swift test --filter Ed25519TableRandomizedTests`).
@Suite struct Ed25519TableRandomizedTests {
    /// The group order L, little-endian.
    static let order = hexBytes("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
    /// Points of small order (2, 4, 8 and 8): added to a key, they make keys libsodium accepts
    /// whose signatures verify, without the cofactor, only when the point's order divides h.
    static let torsion = [
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "0000000000000000000000000000000000000000000000000000000000000000",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    ].map(hexBytes)

    /// What is done to a valid signature (or key) before both paths check it.
    enum Variant: CaseIterable {
        case valid, flipR, flipS, flipMessage
        case sPlusL, sIsL, sZero, sTopBits, sRandom
        case rSmallOrder, rNonCanonical, rRandom
        case mixedOrderKey
    }

    /// `a + b` of 32-byte little-endian numbers, modulo 2²⁵⁶.
    static func add(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for i in 0..<32 {
            let value = Int(a[i]) + Int(b[i]) + carry
            result[i] = UInt8(truncatingIfNeeded: value)
            carry = value >> 8
        }
        return result
    }

    static func randomBytes(_ count: Int, _ random: inout some RandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// `count` new Ed25519 key pairs (libsodium's).
    static func newKeys(_ count: Int) -> [(publicKey: [UInt8], secretKey: [UInt8])] {
        (0..<count).map { _ in
            var publicKey = [UInt8](repeating: 0, count: 32)
            var secretKey = [UInt8](repeating: 0, count: 64)
            _ = crypto_sign_keypair(&publicKey, &secretKey)
            return (publicKey: publicKey, secretKey: secretKey)
        }
    }

    /// A random message of 1 to 400 bytes signed by a random one of `keys`: the key's index, the
    /// message and the signature.
    static func signedMessage(
        _ keys: [(publicKey: [UInt8], secretKey: [UInt8])], _ random: inout some RandomNumberGenerator
    ) -> (Int, [UInt8], [UInt8]) {
        let keyIndex = Int.random(in: 0..<keys.count, using: &random)
        let message = randomBytes(Int.random(in: 1...400, using: &random), &random)
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), keys[keyIndex].secretKey)
        return (keyIndex, message, signature)
    }

    /// `signature` of `message` changed as `variant` says (not `mixedOrderKey`).
    static func apply(
        _ variant: Variant, signature: [UInt8], message: [UInt8],
        random: inout some RandomNumberGenerator
    ) -> (signature: [UInt8], message: [UInt8]) {
        var signature = signature
        var message = message
        let s = Array(signature[32..<64])
        switch variant {
        case .valid, .mixedOrderKey: break
        case .flipR: signature[Int.random(in: 0..<32, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .flipS: signature[Int.random(in: 32..<64, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .flipMessage:
            message[Int.random(in: 0..<message.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .sPlusL: signature.replaceSubrange(32..<64, with: add(s, order))
        case .sIsL: signature.replaceSubrange(32..<64, with: order)
        case .sZero: signature.replaceSubrange(32..<64, with: [UInt8](repeating: 0, count: 32))
        case .sTopBits: signature[63] |= 0x20 << UInt8.random(in: 0..<3, using: &random)
        case .sRandom: signature.replaceSubrange(32..<64, with: randomBytes(32, &random))
        case .rSmallOrder:
            var r = torsion.randomElement(using: &random)!
            if Bool.random(using: &random) { r[31] ^= 0x80 }
            signature.replaceSubrange(0..<32, with: r)
        case .rNonCanonical:
            // y = p + k for a small k (an encoding of y = k that is not reduced), either sign of x.
            var r =
                [UInt8(0xED) &+ UInt8.random(in: 0...18, using: &random)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
            if Bool.random(using: &random) { r[31] |= 0x80 }
            signature.replaceSubrange(0..<32, with: r)
        case .rRandom: signature.replaceSubrange(0..<32, with: randomBytes(32, &random))
        }
        return (signature, message)
    }

    /// A key A' = a·B + T (T of small order) and a signature of `message` made with a and A' in
    /// the hash, the way a signer holding a would for A'.
    static func mixedOrderSignature(
        message: [UInt8], random: inout some RandomNumberGenerator
    ) -> (key: [UInt8], signature: [UInt8]) {
        var a = [UInt8](repeating: 0, count: 32)
        var r = a
        var A = a
        var R = a
        var key = a
        var h = a
        var ha = a
        var s = a
        var digest = [UInt8](repeating: 0, count: 64)
        crypto_core_ed25519_scalar_random(&a)
        crypto_core_ed25519_scalar_random(&r)
        _ = crypto_scalarmult_ed25519_base_noclamp(&A, a)
        _ = crypto_scalarmult_ed25519_base_noclamp(&R, r)
        _ = crypto_core_ed25519_add(&key, A, torsion.randomElement(using: &random)!)
        let hashed = R + key + message
        _ = crypto_hash_sha512(&digest, hashed, UInt64(hashed.count))
        crypto_core_ed25519_scalar_reduce(&h, digest)
        crypto_core_ed25519_scalar_mul(&ha, h, a)
        crypto_core_ed25519_scalar_add(&s, r, ha)
        return (key, R + s)
    }

    @Test func bothPathsAgree() throws {
        try Ed25519PathComparison.requireTablePath()
        let environment = ProcessInfo.processInfo.environment["TOKENVERIFY_ED25519_COMPARE"]
        let count =
            try environment.map { try #require(Int($0), "TOKENVERIFY_ED25519_COMPARE=\($0) is not a count") } ?? 20_000
        var random = SystemRandomNumberGenerator()
        let keys = Self.newKeys(4)
        let paths = try keys.map { try #require(Ed25519PathComparison(publicKey: $0.publicKey)) }
        var tally = PathComparisonTally<Variant>()
        // The inputs again in batches of 100, the keys mixed, as the batch engine verifies them.
        var batch: [(path: Ed25519PathComparison, signature: [UInt8], message: [UInt8])] = []
        var expected: [Bool] = []
        var batched = 0
        var batchMismatches: [String] = []
        func verifyBatch() {
            for (input, (verdict, standard)) in zip(
                batch, zip(Ed25519PathComparison.batchedVerdicts(batch), expected)) where verdict != standard
            {
                batchMismatches.append(
                    "libsodium \(standard), batched \(verdict): \(input.signature), \(input.message)")
            }
            batched += batch.count
            batch = []
            expected = []
        }
        var index = 0
        while index < count {
            let (keyIndex, message, signature) = Self.signedMessage(keys, &random)
            for variant in Variant.allCases where index < count {
                index += 1
                let verdicts: (sodium: Bool, table: Bool)
                let input: (signature: [UInt8], message: [UInt8])
                if variant == .mixedOrderKey {
                    let mixed = Self.mixedOrderSignature(message: message, random: &random)
                    let path = try #require(
                        Ed25519PathComparison(publicKey: mixed.key), "libsodium accepts a key with a small-order part")
                    input = (mixed.signature, message)
                    verdicts = path.verdicts(signature: input.signature, message: message)
                    batch.append((path, input.signature, input.message))
                } else {
                    input = Self.apply(variant, signature: signature, message: message, random: &random)
                    verdicts = paths[keyIndex].verdicts(signature: input.signature, message: input.message)
                    batch.append((paths[keyIndex], input.signature, input.message))
                }
                expected.append(verdicts.sodium)
                if batch.count == 100 { verifyBatch() }
                tally.record(
                    variant, standard: verdicts.sodium, table: verdicts.table, standardName: "libsodium",
                    input: "signature \(input.signature), message \(input.message)")
            }
        }
        if !batch.isEmpty { verifyBatch() }
        #expect(batched == count && batchMismatches.isEmpty, "\(batchMismatches.prefix(3))")
        tally.report("Ed25519 libsodium vs table: \(count) signatures over \(keys.count) keys, alone and in batches")
        let (checked, valid) = (tally.checked, tally.valid)
        #expect(tally.mismatches.isEmpty)
        // Every signature made here verifies; a mixed-order key's only when T's order divides h
        // (between an eighth and a half of them); a changed one never does.
        #expect(valid[.valid] == checked[.valid])
        let mixedValid = valid[.mixedOrderKey] ?? 0
        let mixedChecked = checked[.mixedOrderKey] ?? 0
        #expect(mixedChecked < 40 || (mixedValid > 0 && mixedValid < mixedChecked))
        for variant in [Variant.flipMessage, .sPlusL, .sIsL, .sTopBits, .rSmallOrder, .rNonCanonical] {
            #expect((valid[variant] ?? 0) == 0, "\(variant)")
        }
    }
}
