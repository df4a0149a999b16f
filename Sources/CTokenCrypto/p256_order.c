// Arithmetic modulo the P-256 group order n, for the per-key table's verification (p256_table.c)
// and the deterministic ES256 signer (CTokenSigning): Montgomery multiplication on four 64-bit
// limbs; inversion of public values by the binary extended Euclidean algorithm, one value at a
// time or many together (Montgomery's trick: one inversion for all of them); and, for the
// signer's secret nonce, inversion by Fermat (x^(n-2)) with a fixed window over the public
// exponent, so every such inversion runs the same sequence of operations whatever x is.
// OpenSSL 3.0 keeps its fast inversion modulo n internal, and its public BIGNUM inversion costs
// more than the point multiplication itself.
#include "p256_order.h"

#include <string.h>

typedef unsigned __int128 u128;

// n, little-endian limbs.
static const uint64_t N[4] = {0xF3B9CAC2FC632551ULL, 0xBCE6FAADA7179E84ULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFF00000000ULL};
// n - 2, the Fermat exponent.
static const uint64_t N_MINUS_2[4] = {0xF3B9CAC2FC63254FULL, 0xBCE6FAADA7179E84ULL, 0xFFFFFFFFFFFFFFFFULL, 0xFFFFFFFF00000000ULL};

// -n⁻¹ mod 2⁶⁴ (checked against Newton's iteration in tv_order_self_check).
static const uint64_t N0 = 0xCCD1C8AAEE00BC4FULL;

int tv_order_self_check(void) {
    uint64_t x = N[0]; // correct to 3 bits for odd N[0]
    for (int i = 0; i < 5; i++) x *= 2 - N[0] * x;
    return (uint64_t)0 - x == N0;
}

// r = a - n when a (with `high` as a fifth limb) is at least n, else a; without branches on the value.
static inline void reduce_once(uint64_t r[4], const uint64_t a[4], uint64_t high) {
    uint64_t difference[4], borrow = 0;
    for (int i = 0; i < 4; i++) {
        u128 t = (u128)a[i] - N[i] - borrow;
        difference[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    // keep a when it was below n: borrow out of the subtraction and no fifth limb
    uint64_t keep = (uint64_t)0 - (borrow & (high ^ 1));
    for (int i = 0; i < 4; i++) r[i] = (a[i] & keep) | (difference[i] & ~keep);
}

// One CIOS round: t += a·b_i, then t = (t + m·n) / 2⁶⁴ with m chosen to clear the low limb.
#define MONT_ROUND(bi)                                                                              \
    do {                                                                                            \
        u128 c;                                                                                     \
        uint64_t b_i = (bi);                                                                        \
        c = (u128)a0 * b_i + t0; t0 = (uint64_t)c;                                                  \
        c = (u128)a1 * b_i + t1 + (uint64_t)(c >> 64); t1 = (uint64_t)c;                            \
        c = (u128)a2 * b_i + t2 + (uint64_t)(c >> 64); t2 = (uint64_t)c;                            \
        c = (u128)a3 * b_i + t3 + (uint64_t)(c >> 64); t3 = (uint64_t)c;                            \
        c = (u128)t4 + (uint64_t)(c >> 64); t4 = (uint64_t)c; uint64_t t5 = (uint64_t)(c >> 64);    \
        uint64_t m = t0 * N0;                                                                       \
        c = (u128)m * N[0] + t0;                                                                    \
        c = (u128)m * N[1] + t1 + (uint64_t)(c >> 64); t0 = (uint64_t)c;                            \
        c = (u128)m * N[2] + t2 + (uint64_t)(c >> 64); t1 = (uint64_t)c;                            \
        c = (u128)m * N[3] + t3 + (uint64_t)(c >> 64); t2 = (uint64_t)c;                            \
        c = (u128)t4 + (uint64_t)(c >> 64); t3 = (uint64_t)c; t4 = t5 + (uint64_t)(c >> 64);        \
    } while (0)

void tv_order_mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    const uint64_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
    const uint64_t b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
    uint64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0, t4 = 0;
    MONT_ROUND(b0);
    MONT_ROUND(b1);
    MONT_ROUND(b2);
    MONT_ROUND(b3);
    const uint64_t t[4] = {t0, t1, t2, t3};
    reduce_once(r, t, t4);
}

void tv_order_from_bytes(uint64_t r[4], const uint8_t bytes[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t limb = 0;
        for (int j = 0; j < 8; j++) limb = (limb << 8) | bytes[(3 - i) * 8 + j];
        r[i] = limb;
    }
    reduce_once(r, r, 0); // any 256-bit value is below 2n
}

void tv_order_to_bytes(uint8_t bytes[32], const uint64_t a[4]) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) bytes[(3 - i) * 8 + j] = (uint8_t)(a[i] >> (56 - 8 * j));
}

void tv_order_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t sum[4], carry = 0;
    for (int i = 0; i < 4; i++) {
        u128 t = (u128)a[i] + b[i] + carry;
        sum[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    reduce_once(r, sum, carry);
}

void tv_order_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t rr[4]) {
    uint64_t t[4];
    tv_order_mont_mul(t, a, b);   // a·b·R⁻¹
    tv_order_mont_mul(r, t, rr);  // · R² · R⁻¹ = a·b
}

void tv_order_inverse(uint64_t r[4], const uint64_t a[4], const uint64_t rr[4]) {
    static const uint64_t one[4] = {1, 0, 0, 0};
    uint64_t table[16][4], result[4];
    tv_order_mont_mul(table[1], a, rr);   // a in Montgomery form
    tv_order_mont_mul(table[0], one, rr); // 1 in Montgomery form
    for (int i = 2; i < 16; i++) tv_order_mont_mul(table[i], table[i - 1], table[1]);
    memcpy(result, table[0], sizeof result);
    for (int bit = 252; bit >= 0; bit -= 4) {
        for (int s = 0; s < 4; s++) tv_order_mont_mul(result, result, result);
        unsigned window = (unsigned)(N_MINUS_2[bit / 64] >> (bit % 64)) & 0xF;
        tv_order_mont_mul(result, result, table[window]); // the exponent is public: no secret index
    }
    tv_order_mont_mul(r, result, one);    // out of Montgomery form
}

// Variable-time inversion for public values (a signature's s): the binary extended Euclidean
// algorithm on four limbs, with x1·a ≡ u and x2·a ≡ v (mod n) kept throughout. Several times
// faster than the fixed-sequence inversion above, which the signer needs for its secret nonce.
static inline int is_one(const uint64_t a[4]) { return a[0] == 1 && (a[1] | a[2] | a[3]) == 0; }

static inline int at_least(const uint64_t a[4], const uint64_t b[4]) {
    for (int i = 3; i >= 0; i--) {
        if (a[i] != b[i]) return a[i] > b[i];
    }
    return 1;
}

// a -= b, returning the borrow.
static inline uint64_t subtract(uint64_t a[4], const uint64_t b[4]) {
    uint64_t borrow = 0;
    for (int i = 0; i < 4; i++) {
        u128 t = (u128)a[i] - b[i] - borrow;
        a[i] = (uint64_t)t;
        borrow = (uint64_t)(t >> 64) & 1;
    }
    return borrow;
}

// a += b, returning the carry.
static inline uint64_t add(uint64_t a[4], const uint64_t b[4]) {
    uint64_t carry = 0;
    for (int i = 0; i < 4; i++) {
        u128 t = (u128)a[i] + b[i] + carry;
        a[i] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
    }
    return carry;
}

// a = a / 2 with `high` as the bit above the top limb.
static inline void halve(uint64_t a[4], uint64_t high) {
    for (int i = 0; i < 3; i++) a[i] = (a[i] >> 1) | (a[i + 1] << 63);
    a[3] = (a[3] >> 1) | (high << 63);
}

// x = x / 2 mod n, for x < n.
static inline void halve_modulo(uint64_t x[4]) {
    uint64_t high = 0;
    if (x[0] & 1) high = add(x, N);
    halve(x, high);
}

// a = a - b mod n, for a, b < n.
static inline void subtract_modulo(uint64_t a[4], const uint64_t b[4]) {
    if (subtract(a, b)) add(a, N);
}

void tv_order_inverse_public(uint64_t r[4], const uint64_t a[4]) {
    uint64_t u[4], v[4], x1[4] = {1, 0, 0, 0}, x2[4] = {0, 0, 0, 0};
    memcpy(u, a, sizeof u);
    memcpy(v, N, sizeof v);
    // Reduced first: a < 2²⁵⁶ < 2n, so one subtraction suffices. Then u is in [0, n−1] and, n being
    // prime, gcd(u, n) = 1 for every u ≠ 0, so the loop below ends (an unreduced u = n would
    // reach u = 0 and halve it for ever).
    if (at_least(u, N)) subtract(u, N);
    if ((u[0] | u[1] | u[2] | u[3]) == 0) { // 0 (or n): no inverse; the result is 0
        memset(r, 0, 4 * sizeof r[0]);
        return;
    }
    while (!is_one(u) && !is_one(v)) {
        while ((u[0] & 1) == 0) {
            halve(u, 0);
            halve_modulo(x1);
        }
        while ((v[0] & 1) == 0) {
            halve(v, 0);
            halve_modulo(x2);
        }
        if (at_least(u, v)) {
            subtract(u, v);
            subtract_modulo(x1, x2);
        } else {
            subtract(v, u);
            subtract_modulo(x2, x1);
        }
    }
    memcpy(r, is_one(u) ? x1 : x2, 4 * sizeof r[0]);
}

int tv_order_is_inverse(const uint64_t a[4], const uint64_t b[4]) {
    static const uint64_t one[4] = {1, 0, 0, 0};
    if (at_least(a, N) || at_least(b, N)) return 0;
    // a·b·R⁻¹ is R⁻¹ = 1·1·R⁻¹ exactly when a·b ≡ 1 (mod n).
    uint64_t product[4], r_inverse[4];
    tv_order_mont_mul(product, a, b);
    tv_order_mont_mul(r_inverse, one, one);
    return memcmp(product, r_inverse, sizeof product) == 0;
}

// Montgomery's trick. The running products carry powers of R⁻¹ from the Montgomery
// multiplications, and they cancel: with p_i = v_0⋯v_i·R⁻ⁱ and t = (v_0⋯v_i)⁻¹·Rⁱ,
// t·p_(i−1)·R⁻¹ = v_i⁻¹ and t·v_i·R⁻¹ = (v_0⋯v_(i−1))⁻¹·Rⁱ⁻¹. `inverses` holds the running
// products until each is replaced by its inverse (p_i is last read at step i + 1, before slot i
// is written).
void tv_order_inverse_public_many(uint64_t (*inverses)[4], const uint64_t (*values)[4], size_t count) {
    if (count == 0) return;
    memcpy(inverses[0], values[0], sizeof inverses[0]);
    for (size_t i = 1; i < count; i++) tv_order_mont_mul(inverses[i], inverses[i - 1], values[i]);
    uint64_t t[4];
    tv_order_inverse_public(t, inverses[count - 1]);
    for (size_t i = count - 1; i > 0; i--) {
        tv_order_mont_mul(inverses[i], t, inverses[i - 1]);
        tv_order_mont_mul(t, t, values[i]);
    }
    memcpy(inverses[0], t, sizeof t);
}
