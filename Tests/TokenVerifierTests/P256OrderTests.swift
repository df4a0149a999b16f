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
}
