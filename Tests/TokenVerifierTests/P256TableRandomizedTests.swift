import CTokenCrypto
import Foundation
import TestSupport
import Testing

@testable import TokenTools
@testable import TokenVerifier

/// Randomized signatures through EVP_PKEY_verify and the per-key table, alone and in batches
/// that share their inversions (as the batch engine verifies): equal verdicts on every one. 20,000 in the default run; more with TOKENVERIFY_P256_COMPARE=COUNT (the issue's
/// million: `TOKENVERIFY_P256_COMPARE=1000000 swift test --filter P256TableRandomizedTests`).
@Suite struct P256TableRandomizedTests {
    /// The P-256 group order n, big-endian.
    static let order = hexBytes("FFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551")

    /// What is done to a valid signature before both paths check it.
    enum Variant: CaseIterable {
        case valid, flipR, flipS, flipMessage, highS
        case r0, r1, rNMinus1, rN, rNPlus1, rMax
        case s0, s1, sNMinus1, sN, sNPlus1, sMax
    }

    /// `a − b` (a ≥ b) or `a + b` of 32-byte big-endian numbers, modulo 2²⁵⁶.
    static func add(_ a: [UInt8], _ b: [UInt8], subtract: Bool = false) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var carry = 0
        for i in (0..<32).reversed() {
            let value = subtract ? Int(a[i]) - Int(b[i]) + carry : Int(a[i]) + Int(b[i]) + carry
            result[i] = UInt8(truncatingIfNeeded: value)
            carry = subtract ? (value < 0 ? -1 : 0) : value >> 8
        }
        return result
    }

    static func small(_ value: UInt8) -> [UInt8] { [UInt8](repeating: 0, count: 31) + [value] }

    static func scalar(_ variant: Variant) -> [UInt8]? {
        switch variant {
        case .r0, .s0: small(0)
        case .r1, .s1: small(1)
        case .rNMinus1, .sNMinus1: add(order, small(1), subtract: true)
        case .rN, .sN: order
        case .rNPlus1, .sNPlus1: add(order, small(1))
        case .rMax, .sMax: [UInt8](repeating: 0xFF, count: 32)
        default: nil
        }
    }

    /// `signature` of `message` changed as `variant` says.
    static func apply(
        _ variant: Variant, signature: [UInt8], message: [UInt8],
        random: inout some RandomNumberGenerator
    ) -> (signature: [UInt8], message: [UInt8]) {
        var signature = signature
        var message = message
        switch variant {
        case .valid: break
        case .flipR: signature[Int.random(in: 0..<32, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .flipS: signature[Int.random(in: 32..<64, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .flipMessage:
            message[Int.random(in: 0..<message.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case .highS: signature.replaceSubrange(32..<64, with: add(order, Array(signature[32..<64]), subtract: true))
        case .r0, .r1, .rNMinus1, .rN, .rNPlus1, .rMax: signature.replaceSubrange(0..<32, with: scalar(variant)!)
        case .s0, .s1, .sNMinus1, .sN, .sNPlus1, .sMax: signature.replaceSubrange(32..<64, with: scalar(variant)!)
        }
        return (signature, message)
    }

    @Test func bothPathsAgree() throws {
        let environment = ProcessInfo.processInfo.environment["TOKENVERIFY_P256_COMPARE"]
        let count =
            try environment.map { try #require(Int($0), "TOKENVERIFY_P256_COMPARE=\($0) is not a count") } ?? 20_000
        var random = SystemRandomNumberGenerator()
        let keys = (0..<4).map { _ in P256PrivateKey() }
        let paths = try keys.map { try #require(P256PathComparison(x: $0.x, y: $0.y)) }
        var tally = PathComparisonTally<Variant>()
        // Each key's inputs, verified again as one batch once 100 have gathered (and at the end).
        var batches = [[(signature: [UInt8], message: [UInt8], evp: Bool)]](repeating: [], count: keys.count)
        var batchMismatches: [String] = []
        var batched = 0
        func verifyBatch(_ keyIndex: Int) {
            let batch = batches[keyIndex]
            let verdicts = paths[keyIndex].batchedVerdicts(batch.map { ($0.signature, $0.message) })
            for (input, verdict) in zip(batch, verdicts) where verdict != input.evp {
                batchMismatches.append(
                    "EVP \(input.evp), batched \(verdict): signature \(input.signature), message \(input.message)")
            }
            batched += batch.count
            batches[keyIndex] = []
        }
        var index = 0
        while index < count {
            let keyIndex = Int.random(in: 0..<keys.count, using: &random)
            let message = (0..<Int.random(in: 1...400, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            let signature = keys[keyIndex].sign(message)
            for variant in Variant.allCases where index < count {
                index += 1
                let input = Self.apply(variant, signature: signature, message: message, random: &random)
                let verdicts = paths[keyIndex].verdicts(signature: input.signature, message: input.message)
                tally.record(
                    variant, standard: verdicts.evp, table: verdicts.table, standardName: "EVP",
                    input: "signature \(input.signature), message \(input.message)")
                batches[keyIndex].append((input.signature, input.message, verdicts.evp))
                if batches[keyIndex].count == 100 { verifyBatch(keyIndex) }
            }
        }
        for keyIndex in keys.indices where !batches[keyIndex].isEmpty { verifyBatch(keyIndex) }
        #expect(batched == count && batchMismatches.isEmpty, "\(batchMismatches.prefix(3))")
        tally.report("P-256 EVP vs table: \(count) signatures over \(keys.count) keys")
        let (checked, valid) = (tally.checked, tally.valid)
        #expect(tally.mismatches.isEmpty)
        // Every signature the test made verifies; a changed one almost never does.
        #expect(valid[.valid] == checked[.valid] && valid[.highS] == checked[.highS])
        #expect((valid[.flipMessage] ?? 0) == 0 && (valid[.r0] ?? 0) == 0 && (valid[.sN] ?? 0) == 0)
    }

    /// A hint that is not the signature's inverse (another signature's, a near miss, the
    /// inverse plus n, nonsense) leaves the verdict that of EVP: the table path inverts s itself.
    @Test func aWrongHintNeverChangesTheVerdict() throws {
        var random = SystemRandomNumberGenerator()
        let key = P256PrivateKey()
        let path = try #require(P256PathComparison(x: key.x, y: key.y))
        for round in 0..<50 {
            let message = (0..<Int.random(in: 1...200, using: &random)).map { _ in
                UInt8.random(in: 0...255, using: &random)
            }
            var signature = key.sign(message)
            if round % 2 == 1 { signature[Int.random(in: 0..<64, using: &random)] ^= 1 }
            let other = key.sign(message + [1])
            var inverses = [UInt64](repeating: 0, count: 8)
            tv_p256_table_inverses(Array(signature[32..<64]) + Array(other[32..<64]), 2, &inverses)
            var nearMiss = Array(inverses[0..<4])
            nearMiss[0] ^= 1
            var plusN = Array(inverses[0..<4])
            var carry: UInt64 = 0
            for limb in 0..<4 {
                let (sum, overflow1) = plusN[limb].addingReportingOverflow(P256OrderTests.n[limb])
                let (total, overflow2) = sum.addingReportingOverflow(carry)
                plusN[limb] = total
                carry = (overflow1 || overflow2) ? 1 : 0
            }
            let hints: [[UInt64]] = [
                Array(inverses[4..<8]), nearMiss, plusN, [0, 0, 0, 0], [.max, .max, .max, .max],
                (0..<4).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) },
            ]
            let expected = path.verdicts(signature: signature, message: message).evp
            for hint in hints {
                let verdict = signature.withUnsafeBufferPointer { s in
                    message.withUnsafeBufferPointer { m in
                        hint.withUnsafeBufferPointer {
                            path.context.verify(signature: s, message: m, inverse: $0.baseAddress)
                        }
                    }
                }
                #expect(verdict == expected, "round \(round), hint \(hint)")
            }
        }
    }
}
