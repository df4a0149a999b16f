import CTokenCrypto
import Testing

/// Arithmetic modulo the P-256 group order n (p256_order.c): the public inversion the table path
/// uses is total, reduced inputs and unreduced ones alike.
@Suite struct P256OrderTests {
    /// n, little-endian 64-bit limbs.
    static let n: [UInt64] = [
        0xF3B9_CAC2_FC63_2551, 0xBCE6_FAAD_A717_9E84, 0xFFFF_FFFF_FFFF_FFFF, 0xFFFF_FFFF_0000_0000,
    ]

    static func inverse(_ a: [UInt64]) -> [UInt64] {
        var r = [UInt64](repeating: 0xAA, count: 4)
        tv_order_inverse_public(&r, a)
        return r
    }

    /// Whether a·b ≡ 1 (mod n): Montgomery multiplication gives a·b·R⁻¹, which is R⁻¹ = 1·1·R⁻¹
    /// exactly then.
    static func isInverse(_ a: [UInt64], _ b: [UInt64]) -> Bool {
        var y = [UInt64](repeating: 0, count: 4)
        var rInverse = [UInt64](repeating: 0, count: 4)
        tv_order_mont_mul(&y, a, b)
        tv_order_mont_mul(&rInverse, [1, 0, 0, 0], [1, 0, 0, 0])
        return y == rInverse
    }

    @Test func invertsReducedValues() {
        let nMinusOne: [UInt64] = [Self.n[0] - 1, Self.n[1], Self.n[2], Self.n[3]]
        for a: [UInt64] in [[1, 0, 0, 0], [2, 0, 0, 0], [0x1234_5678, 9, 0, 1 << 40], nMinusOne] {
            #expect(Self.isInverse(a, Self.inverse(a)))
        }
    }

    @Test func isTotalOnUnreducedValues() {
        #expect(Self.inverse([0, 0, 0, 0]) == [0, 0, 0, 0])
        #expect(Self.inverse(Self.n) == [0, 0, 0, 0], "n ≡ 0 has no inverse")
        let nPlusOne: [UInt64] = [Self.n[0] + 1, Self.n[1], Self.n[2], Self.n[3]]
        #expect(Self.inverse(nPlusOne) == [1, 0, 0, 0])
        let nPlusTwo: [UInt64] = [Self.n[0] + 2, Self.n[1], Self.n[2], Self.n[3]]
        #expect(Self.isInverse([2, 0, 0, 0], Self.inverse(nPlusTwo)))
        let max: [UInt64] = [.max, .max, .max, .max]
        let maxReduced: [UInt64] = [~Self.n[0], ~Self.n[1], ~Self.n[2], ~Self.n[3]]  // 2²⁵⁶ − 1 − n
        #expect(Self.inverse(max) == Self.inverse(maxReduced))
    }

    /// A random value in [1, n − 1]: four random limbs, the top one kept below n's.
    static func randomValue(using random: inout some RandomNumberGenerator) -> [UInt64] {
        var value = (0..<4).map { _ in UInt64.random(in: 0...UInt64.max, using: &random) }
        value[3] = UInt64.random(in: 0..<n[3], using: &random)
        if value == [0, 0, 0, 0] { value[0] = 1 }
        return value
    }

    static func bytes(_ limbs: [UInt64]) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 32)
        tv_order_to_bytes(&bytes, limbs)
        return bytes
    }

    @Test func manyInversesAreTheSingleOnes() {
        var random = SystemRandomNumberGenerator()
        let nMinusOne: [UInt64] = [Self.n[0] - 1, Self.n[1], Self.n[2], Self.n[3]]
        for count in [1, 2, 3, 63, 64, 65, 150] {
            var values = (0..<count).map { _ in Self.randomValue(using: &random) }
            values[0] = [1, 0, 0, 0]
            values[count - 1] = nMinusOne
            var inverses = [UInt64](repeating: 0xAA, count: 4 * count)
            let flat = values.flatMap { $0 }
            flat.withUnsafeBytes { valuesBytes in
                inverses.withUnsafeMutableBytes { inversesBytes in
                    tv_order_inverse_public_many(
                        inversesBytes.baseAddress!.assumingMemoryBound(to: (UInt64, UInt64, UInt64, UInt64).self),
                        valuesBytes.baseAddress!.assumingMemoryBound(to: (UInt64, UInt64, UInt64, UInt64).self),
                        count)
                }
            }
            for index in 0..<count {
                #expect(
                    Array(inverses[4 * index..<4 * index + 4]) == Self.inverse(values[index]),
                    "\(count) values, #\(index)")
            }
        }
    }

    /// The hints of a batch's signatures: each (s mod n)'s inverse, across groups of 64, and 0 for
    /// an s ≡ 0 (0 or n), which takes no part in the product; s above n (which a verify refuses
    /// before it looks at a hint) reduced.
    @Test func signatureInversesAreEachSsInverse() {
        var random = SystemRandomNumberGenerator()
        let zero: [[UInt8]] = [[UInt8](repeating: 0, count: 32), Self.bytes(Self.n)]
        let refused: [[UInt8]] =
            zero + [Self.bytes([Self.n[0] + 1, Self.n[1], Self.n[2], Self.n[3]]), [UInt8](repeating: 0xFF, count: 32)]
        for count in [2, 64, 65, 130] {
            var sValues: [[UInt8]] = (0..<count).map { _ in Self.bytes(Self.randomValue(using: &random)) }
            for (offset, value) in refused.enumerated() where offset * 37 < count { sValues[offset * 37] = value }
            var inverses = [UInt64](repeating: 0xAA, count: 4 * count)
            tv_p256_table_inverses(sValues.flatMap { $0 }, count, &inverses)
            for (index, s) in sValues.enumerated() {
                let hint = Array(inverses[4 * index..<4 * index + 4])
                if zero.contains(s) {
                    #expect(hint == [0, 0, 0, 0], "\(count) values, #\(index)")
                } else {
                    var limbs = [UInt64](repeating: 0, count: 4)
                    tv_order_from_bytes(&limbs, s)
                    #expect(hint == Self.inverse(limbs), "\(count) values, #\(index)")
                }
            }
        }
    }

    /// What decides whether the table path takes a hint: both below n, product 1.
    @Test func isInverseOnlyForTheInverse() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<100 {
            let a = Self.randomValue(using: &random)
            let inverse = Self.inverse(a)
            #expect(tv_order_is_inverse(inverse, a) == 1 && tv_order_is_inverse(a, inverse) == 1)
            var other = inverse
            other[0] ^= 1 << UInt64.random(in: 0..<64, using: &random)
            #expect(tv_order_is_inverse(other, a) == 0)
            #expect(tv_order_is_inverse(Self.randomValue(using: &random), a) == 0 || a == [1, 0, 0, 0])
        }
        #expect(tv_order_is_inverse([1, 0, 0, 0], [1, 0, 0, 0]) == 1)
        #expect(tv_order_is_inverse([0, 0, 0, 0], [1, 0, 0, 0]) == 0)
        // n + 1 ≡ 1, but not below n: refused.
        #expect(tv_order_is_inverse([Self.n[0] + 1, Self.n[1], Self.n[2], Self.n[3]], [1, 0, 0, 0]) == 0)
    }
}
