// ES256 verification eight signatures at a time with AVX-512 IFMA (52-bit multiply-accumulate).
//
// Each 64-bit lane of a 512-bit register holds one signature's value, so eight signatures, with
// the same or different keys, go through the same instructions. A field element modulo
// p = 2²⁵⁶ − 2²²⁴ + 2¹⁹² + 2⁹⁶ − 1 is five limbs of 52 bits (radix 2⁵²), one register a limb, in
// Montgomery form with R = 2²⁶⁰: as p ≡ −1 (mod 2⁵²), −p⁻¹ mod 2⁵² is 1 and each reduction
// round's multiplier is the low limb itself. Values are kept in [0, 2p) with every limb below
// 2⁵² (vpmadd52 reads only a limb's low 52 bits): a product of two such values, ab/R + mp/R with
// m < R, is below p/4 + p < 2p (R > 16p); a sum or difference (or a chain of them, tripled) is
// brought back below 2p by taking off p times its bits above 2²⁵⁶ (fe_reduce), and one that only
// a multiplication reads is left below 4p. A product that only sums read is left uncarried
// (fe_mul_loose). Nothing here is secret, so nothing need be constant-time, but the lanes run in
// lockstep anyway.
//
// Points are added with the complete formulas of Renes, Costello and Batina ("Complete addition
// formulas for prime order elliptic curves", EUROCRYPT 2016, algorithm 5: projective + affine,
// a = −3): correct for every projective input, the point at infinity (0 : 1 : 0), P = Q and
// P = −Q included, so no lane needs a special case; only the affine input must not be the point
// at infinity, and no table entry is (n is prime and no entry's multiplier is a multiple of n).
//
// u1·G + u2·Q without a doubling: both scalars in Booth digits of 7 bits (37 windows, digits in
// [−64, 64]), and for each point a table of 1·2⁷ⁱ·P … 64·2⁷ⁱ·P for every window i (affine, in
// Montgomery form, 64 bytes a point: 151,552 bytes), as OpenSSL's nistz256 keeps for G. The sum
// is 74 mixed additions, each of one loaded entry a lane (negated for a negative digit, skipped
// for a zero one). A table's 37 window bases 2⁷ⁱ·P come from OpenSSL's point arithmetic; the
// multiples of each and their affine form are made in the lanes, eight windows at a time, with the
// same addition and one inversion a lane (about 0.6 ms a table, where OpenSSL's EC_POINT_add for
// every entry took about 15): the same bytes as OpenSSL's points give.
//
// The verdict without an inversion: for the sum (X : Y : Z), ECDSA's x mod n = r with
// x = X/Z < p < 2n is x = r or x = r + n (possible only when r + n < p), i.e. X = r·Z or
// X = (r + n)·Z (mod p), with Z ≠ 0 (the point at infinity is refused).
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "p256_wide.h"

#include <cpuid.h>
#include <immintrin.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <stdlib.h>
#include <string.h>

#define WIDE __attribute__((target("avx512f,avx512vl,avx512ifma")))

static const uint64_t MASK52 = (1ULL << 52) - 1;
// p, 2p, R² mod p, b·R mod p (the curve's b) and R mod p (one), radix 2⁵².
static const uint64_t P52[5] = {0xfffffffffffffULL, 0x00fffffffffffULL, 0x0000000000000ULL, 0x0001000000000ULL,
                                0x0ffffffff0000ULL};
static const uint64_t P2_52[5] = {0xffffffffffffeULL, 0x01fffffffffffULL, 0x0000000000000ULL, 0x0002000000000ULL,
                                  0x1fffffffe0000ULL};
static const uint64_t RR52[5] = {0x0000000000300ULL, 0xffffffff00000ULL, 0xffffefffffffbULL, 0xfdfffffffffffULL,
                                 0x0000004ffffffULL};
static const uint64_t B52[5] = {0xdf6229c4bddfdULL, 0xca8843090d89cULL, 0x212ed6acf005cULL, 0x83415a220abf7ULL,
                                0x0c30061dd4874ULL};
static const uint64_t ONE52[5] = {0x0000000000010ULL, 0xf000000000000ULL, 0xfffffffffffffULL, 0xffeffffffffffULL,
                                  0x00000000fffffULL};

// Thread-local, so that a test breaking the path for its own self-test run leaves other threads'
// verifies alone.
static _Thread_local int wide_broken = 0;

void tv_p256_wide_break_for_testing(int broken) { wide_broken = broken != 0; }

int tv_p256_wide_cpu(void) {
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid(1, a, b, c, d);
    if ((c & (1u << 27)) == 0) return 0; // OSXSAVE: XGETBV is available
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    (void)hi;
    // XMM, YMM, opmask, upper halves of ZMM0-15 and ZMM16-31 all saved by the OS.
    if ((lo & 0xE6) != 0xE6) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    const unsigned avx512f = 1u << 16, ifma = 1u << 21, vl = 1u << 31;
    return (b & (avx512f | ifma | vl)) == (avx512f | ifma | vl);
}

typedef __m512i fe[5];

WIDE static inline __m512i broadcast(uint64_t v) { return _mm512_set1_epi64((long long)v); }

WIDE static inline void fe_constant(fe r, const uint64_t c[5]) {
    for (int j = 0; j < 5; j++) r[j] = broadcast(c[j]);
}

// Carries each limb's bits above 52 into the next (signed: a negative limb borrows).
WIDE static inline void fe_carry(fe a) {
    const __m512i mask = broadcast(MASK52);
    for (int j = 0; j < 4; j++) {
        a[j + 1] = _mm512_add_epi64(a[j + 1], _mm512_srai_epi64(a[j], 52));
        a[j] = _mm512_and_si512(a[j], mask);
    }
}

// r = t − q·p with q = ⌊t₄/2⁴⁸⌋ (t's bits from 2²⁵⁶ up, less what sits in limbs 0–3 above 52
// bits), carried: in [0, 2p), limbs 0–3 below 2⁵² and limb 4 below 2⁴⁹. For t with every limb
// non-negative and below 2⁶¹, carried or not. Since every limb is non-negative, q·2²⁵⁶ ≤ t₄·2²⁰⁸
// ≤ t, so t − q·p ≥ t − q·2²⁵⁶ ≥ 0; and t − q·p = (t₄ mod 2⁴⁸)·2²⁰⁸ + (limbs 0–3) + q·(2²⁵⁶ − p)
// < 2²⁵⁶ + 2²¹⁸ + 2¹³·2²²⁴ < 2p (q < 2¹³, 2²⁵⁶ − p < 2²²⁴, 2p > 2²⁵⁷ − 2²²⁵). As
// q·p = q·2²⁵⁶ − q·2²²⁴ + q·2¹⁹² + q·2⁹⁶ − q, taking it off is: limb 4 loses q·2⁴⁸ (its bits
// from 48 up) and gains q·2¹⁶, limb 3 loses q·2³⁶, limb 1 q·2⁴⁴ (both may go negative, above
// −2⁵⁷), limb 0 gains q; the signed carry then leaves limbs 0–3 in [0, 2⁵²) and limb 4 the rest,
// ⌊r/2²⁰⁸⌋. A sum of a few values, however loose, is brought below 2p by this one pass (where
// subtracting 2p would need a carry first, a comparison, a second carry and a selection).
WIDE static inline void fe_reduce(fe r, const fe t) {
    const __m512i q = _mm512_srli_epi64(t[4], 48);
    r[0] = _mm512_add_epi64(t[0], q);
    r[1] = _mm512_sub_epi64(t[1], _mm512_slli_epi64(q, 44));
    r[2] = t[2];
    r[3] = _mm512_sub_epi64(t[3], _mm512_slli_epi64(q, 36));
    r[4] = _mm512_add_epi64(_mm512_and_si512(t[4], broadcast((1ULL << 48) - 1)), _mm512_slli_epi64(q, 16));
    fe_carry(r);
}

// 128p with each of limbs 0–3 raised by 2⁵⁸, borrowed from the limb above (2⁶ of it): limbs 0–3
// in [2⁵⁸ − 2⁶, 2⁵⁸ + 2⁵²), limb 4 in (2⁵⁴, 2⁵⁵). Added to a difference, it keeps every limb
// non-negative for any subtrahends here (their limbs 0–3 together below 2⁵⁷ + 3·2⁵², their limbs 4
// together below 2⁵³ + 3·2⁴⁹), and it is 0 mod p.
static const uint64_t BIAS52[5] = {0x40fffffffffff80ULL, 0x407ffffffffffbfULL, 0x3ffffffffffffc0ULL,
                                   0x40007ffffffffc0ULL, 0x7fffffff7fffc0ULL};

// r = a + b, carried: for a and b below 2p (either may be a loose product, below 2p with limbs
// below 2⁵⁷), r is below 4p with limbs 0–3 below 2⁵² and limb 4 below 2⁵⁰. Only for a value whose
// every use is a fe_mul (which takes inputs below 4p: their product over R is below 16p²/R < p,
// since R > 16p, so its result is still below 2p, and reads limbs of 52 bits) or a further sum
// that fe_reduce brings down.
WIDE static inline void fe_add_for_mul(fe r, const fe a, const fe b) {
    for (int j = 0; j < 5; j++) r[j] = _mm512_add_epi64(a[j], b[j]);
    fe_carry(r);
}

// r = a − b + 2p, carried, in (0, 4p) with limbs as fe_add_for_mul's: for a and b carried and
// below 2p, for fe_mul only.
WIDE static inline void fe_sub_for_mul(fe r, const fe a, const fe b) {
    for (int j = 0; j < 5; j++) r[j] = _mm512_add_epi64(_mm512_sub_epi64(a[j], b[j]), broadcast(P2_52[j]));
    fe_carry(r);
}

// r = a·b/R (mod p), below 2p, for a and b below 4p with limbs of 52 bits (a carried value), left
// loose: every limb non-negative and below 2⁵⁷ (limb 4 below 2⁵³), not carried. Only for sums
// that carry or fe_reduce. The full product by columns, then five reduction rounds, each adding
// m·p with m the lowest remaining limb (−p⁻¹ ≡ 1 mod 2⁵²) and carrying it out. Its value is
// (ab + Mp)/R for some M < R, below 16p²/R + p < 2p. Each output limb t₅…t₉ sums at most 15
// terms below 2⁵² (t₅: 9 of the product, 6 of the rounds; fewer above; t₉ two) and t₅ a carry
// below 2⁶: below 2⁵⁷. The rounds add only non-negative terms.
WIDE static inline void fe_mul_loose(fe r, const fe a, const fe b) {
    const __m512i mask = broadcast(MASK52);
    const __m512i p3 = broadcast(P52[3]), p4 = broadcast(P52[4]);
    __m512i t[10];
    for (int k = 0; k < 10; k++) t[k] = _mm512_setzero_si512();
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 5; j++) {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a[i], b[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a[i], b[j]);
        }
    }
    for (int i = 0; i < 5; i++) {
        __m512i m = _mm512_and_si512(t[i], mask);
        // p's limbs 0 and 1 together are 2⁹⁶ − 1: m·(2⁹⁶ − 1) at limb i clears t[i]'s low 52
        // bits (t[i] − m, carried out whole as t[i] >> 52) and adds m·2⁴⁴ at limb i + 1, its
        // low 8 bits there (below 2⁵²) and the rest, m >> 8, at limb i + 2: shifts, not four
        // multiply-adds. p's limb 2 is zero; limbs 3 and 4 by multiply-adds.
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_add_epi64(_mm512_srli_epi64(t[i], 52),
                                                               _mm512_and_si512(_mm512_slli_epi64(m, 44), mask)));
        t[i + 2] = _mm512_add_epi64(t[i + 2], _mm512_srli_epi64(m, 8));
        t[i + 3] = _mm512_madd52lo_epu64(t[i + 3], m, p3);
        t[i + 4] = _mm512_madd52hi_epu64(t[i + 4], m, p3);
        t[i + 4] = _mm512_madd52lo_epu64(t[i + 4], m, p4);
        t[i + 5] = _mm512_madd52hi_epu64(t[i + 5], m, p4);
    }
    for (int j = 0; j < 5; j++) r[j] = t[5 + j];
}

// fe_mul_loose carried: below 2p, limbs 0–3 below 2⁵², limb 4 below 2⁴⁹.
WIDE static inline void fe_mul(fe r, const fe a, const fe b) {
    fe_mul_loose(r, a, b);
    fe_carry(r);
}

// a in [0, 2p) to [0, p).
WIDE static inline void fe_canonical(fe r, const fe a) {
    fe u;
    for (int j = 0; j < 5; j++) u[j] = _mm512_sub_epi64(a[j], broadcast(P52[j]));
    fe_carry(u);
    __mmask8 negative = _mm512_cmplt_epi64_mask(u[4], _mm512_setzero_si512());
    for (int j = 0; j < 5; j++) r[j] = _mm512_mask_blend_epi64(negative, u[j], a[j]);
}

// The lanes where canonical a and b are equal.
WIDE static inline __mmask8 fe_equal(const fe a, const fe b) {
    __mmask8 equal = 0xFF;
    for (int j = 0; j < 5; j++) equal &= _mm512_cmpeq_epi64_mask(a[j], b[j]);
    return equal;
}

// Four 64-bit limbs (one register each) to five of 52.
WIDE static inline void fe_from_64(fe r, const __m512i w[4]) {
    const __m512i mask = broadcast(MASK52);
    r[0] = _mm512_and_si512(w[0], mask);
    r[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), mask);
    r[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), mask);
    r[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), mask);
    r[4] = _mm512_srli_epi64(w[3], 16);
}

// Canonical five 52-bit limbs to four of 64.
WIDE static inline void fe_to_64(__m512i w[4], const fe a) {
    w[0] = _mm512_or_si512(a[0], _mm512_slli_epi64(a[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(a[1], 12), _mm512_slli_epi64(a[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(a[2], 24), _mm512_slli_epi64(a[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(a[3], 36), _mm512_slli_epi64(a[4], 16));
}

// Loads lane l's value from values[l] (four little-endian limbs).
WIDE static inline void fe_load_lanes(fe r, const uint64_t values[8][4]) {
    __m512i w[4];
    for (int k = 0; k < 4; k++) {
        w[k] = _mm512_set_epi64((long long)values[7][k], (long long)values[6][k], (long long)values[5][k],
                                (long long)values[4][k], (long long)values[3][k], (long long)values[2][k],
                                (long long)values[1][k], (long long)values[0][k]);
    }
    fe_from_64(r, w);
}

typedef struct {
    fe x, y, z;
} projective;

// The sums and differences of the addition below that feed a further sum or the next addition,
// each brought below 2p by one fe_reduce. BIAS52 (0 mod p) keeps a difference's limbs
// non-negative: every subtrahend here is a loose product (limbs 0–3 below 2⁵⁷, limb 4 below 2⁵³),
// a carried value (limbs 0–3 below 2⁵², limb 4 below 2⁵⁰) or 3·Z₁ (limbs below 3·2⁵², limb 4
// below 3·2⁴⁹), and two of them at most, so within BIAS52's limbs. Every minuend or addend is a
// loose product or a carried value, so before fe_reduce a limb is below 2⁵⁷ + 2⁵⁸ + 2⁵², or three
// times that (below 2⁶¹) for the tripled ones, as fe_reduce asks.

// r = a + b below 2p.
WIDE static inline void fe_add_reduce(fe r, const fe a, const fe b) {
    fe t;
    for (int j = 0; j < 5; j++) t[j] = _mm512_add_epi64(a[j], b[j]);
    fe_reduce(r, t);
}

// r = a − b − c (mod p) below 2p.
WIDE static inline void fe_sub2_reduce(fe r, const fe a, const fe b, const fe c) {
    fe t;
    for (int j = 0; j < 5; j++)
        t[j] = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(a[j], b[j]), c[j]), broadcast(BIAS52[j]));
    fe_reduce(r, t);
}

// r = a − b (mod p) below 2p.
WIDE static inline void fe_sub_reduce(fe r, const fe a, const fe b) {
    fe t;
    for (int j = 0; j < 5; j++) t[j] = _mm512_add_epi64(_mm512_sub_epi64(a[j], b[j]), broadcast(BIAS52[j]));
    fe_reduce(r, t);
}

// r = 3·(a − b) (mod p) below 2p.
WIDE static inline void fe_triple_sub_reduce(fe r, const fe a, const fe b) {
    fe t;
    for (int j = 0; j < 5; j++) {
        __m512i d = _mm512_add_epi64(_mm512_sub_epi64(a[j], b[j]), broadcast(BIAS52[j]));
        t[j] = _mm512_add_epi64(_mm512_add_epi64(d, d), d);
    }
    fe_reduce(r, t);
}

// r = 3·(a − b − c) (mod p) below 2p.
WIDE static inline void fe_triple_sub2_reduce(fe r, const fe a, const fe b, const fe c) {
    fe t;
    for (int j = 0; j < 5; j++) {
        __m512i d = _mm512_add_epi64(_mm512_sub_epi64(_mm512_sub_epi64(a[j], b[j]), c[j]), broadcast(BIAS52[j]));
        t[j] = _mm512_add_epi64(_mm512_add_epi64(d, d), d);
    }
    fe_reduce(r, t);
}

// (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (x2, y2): Renes–Costello–Batina 2016, algorithm 5 (a = −3),
// 11 multiplications and 2 by b; complete for any projective P1 and affine P2. Inputs and outputs
// below 2p and carried (the table's x2 below p, y2 at most p). The algorithm's steps are
// numbered; its chains of sums are taken together: 6–7 (t3 − (t0 + t1)), 13–15 (3·(y3 − z3)),
// 19–24 (3·(y3 − 3·Z1 − t0)) and 25–27 (3·t0 − 3·Z1 as 3·(t0 − Z1)), each with one fe_reduce. A
// product that only sums read is left loose (fe_mul_loose); a sum that only multiplications read
// is left below 4p, carried (fe_add_for_mul, fe_sub_for_mul).
WIDE static inline void point_add_affine(projective *out, const projective *p1, const fe x2, const fe y2) {
    fe t0, t1, t2, t3, t4, x3, y3, z3, b;
    fe_constant(b, B52);
    fe_mul_loose(t0, p1->x, x2);       // 1: into 6–7, 21–24, 25–27
    fe_mul(t1, p1->y, y2);             // 2: into 6–7, 16, 17
    fe_add_for_mul(t3, x2, y2);        // 3
    fe_add_for_mul(t4, p1->x, p1->y);  // 4
    fe_mul_loose(t3, t3, t4);          // 5: into 6–7
    fe_sub2_reduce(t3, t3, t0, t1);    // 6–7: t3 − (t0 + t1), into 32 and 35
    fe_mul_loose(t4, y2, p1->z);       // 8
    fe_add_for_mul(t4, t4, p1->y);     // 9: into 28 and 34
    fe_mul_loose(y3, x2, p1->z);       // 10
    fe_add_for_mul(y3, y3, p1->x);     // 11: into 13 and 18
    fe_mul_loose(z3, b, p1->z);        // 12
    fe_triple_sub_reduce(x3, y3, z3);  // 13–15: 3·(y3 − z3)
    fe_sub_for_mul(z3, t1, x3);        // 16: into 30 and 34
    fe_add_for_mul(x3, t1, x3);        // 17: into 30 and 32
    fe_mul_loose(y3, b, y3);           // 18
    for (int j = 0; j < 5; j++)        // 19–20: t2 = 3·Z1, uncarried
        t2[j] = _mm512_add_epi64(_mm512_add_epi64(p1->z[j], p1->z[j]), p1->z[j]);
    fe_triple_sub2_reduce(y3, y3, t2, t0); // 21–24: 3·(y3 − t2 − t0), into 28 and 29
    fe_triple_sub_reduce(t0, t0, p1->z);   // 25–27: 3·t0 − t2, into 29 and 35
    fe_mul_loose(t1, t4, y3);          // 28
    fe_mul_loose(t2, t0, y3);          // 29
    fe_mul_loose(y3, x3, z3);          // 30
    fe_add_reduce(y3, y3, t2);         // 31
    fe_mul_loose(x3, t3, x3);          // 32
    fe_sub_reduce(x3, x3, t1);         // 33
    fe_mul_loose(z3, t4, z3);          // 34
    fe_mul_loose(t1, t3, t0);          // 35
    fe_add_reduce(z3, z3, t1);         // 36
    memcpy(out->x, x3, sizeof x3);
    memcpy(out->y, y3, sizeof y3);
    memcpy(out->z, z3, sizeof z3);
}

// One window's step for all lanes: each lane's entry |digit| of its table's window (its address
// in `addresses`, one 64-byte line, 64-byte aligned: loaded whole and transposed, which costs less
// than eight gathers of a word from each lane), negated where the digit is negative, added where
// it is not zero.
WIDE static inline void add_entry(projective *acc, const long long addresses[8], __mmask8 negative, __mmask8 nonzero) {
    __m512i row[8], a[8], b[8], w[8];
    for (int l = 0; l < 8; l++) row[l] = _mm512_load_si512((const void *)(uintptr_t)addresses[l]);
    // 8×8 transpose of 64-bit words, so that w[k] holds word k of every lane's entry: a[l], a[l + 1]
    // hold the even and the odd words of rows l and l + 1 side by side; b[g + k] (k < 4) words k
    // and k + 4 of rows g … g + 3; w[k] and w[k + 4] their halves from rows 0–3 and 4–7.
    for (int l = 0; l < 8; l += 2) {
        a[l] = _mm512_unpacklo_epi64(row[l], row[l + 1]);
        a[l + 1] = _mm512_unpackhi_epi64(row[l], row[l + 1]);
    }
    const __m512i lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0), hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    for (int g = 0; g < 8; g += 4) {
        for (int k = 0; k < 2; k++) {
            b[g + k] = _mm512_permutex2var_epi64(a[g + k], lo, a[g + k + 2]);
            b[g + k + 2] = _mm512_permutex2var_epi64(a[g + k], hi, a[g + k + 2]);
        }
    }
    for (int k = 0; k < 4; k++) {
        w[k] = _mm512_shuffle_i64x2(b[k], b[k + 4], 0x44);
        w[k + 4] = _mm512_shuffle_i64x2(b[k], b[k + 4], 0xEE);
    }
    fe x, y;
    fe_from_64(x, w);
    fe_from_64(y, w + 4);
    // p − y in the negative lanes: y is below p, so in (0, p]; the carry leaves the other lanes'
    // limbs (all below 2⁵²) as they are.
    for (int j = 0; j < 5; j++) y[j] = _mm512_mask_sub_epi64(y[j], negative, broadcast(P52[j]), y[j]);
    fe_carry(y);
    projective sum;
    point_add_affine(&sum, acc, x, y);
    for (int j = 0; j < 5; j++) {
        acc->x[j] = _mm512_mask_blend_epi64(nonzero, acc->x[j], sum.x[j]);
        acc->y[j] = _mm512_mask_blend_epi64(nonzero, acc->y[j], sum.y[j]);
        acc->z[j] = _mm512_mask_blend_epi64(nonzero, acc->z[j], sum.z[j]);
    }
}

// Each lane's table addresses, signs and zero digits for the 37 windows of one scalar a lane.
typedef struct {
    long long addresses[TV_P256_WIDE_WINDOWS][8];
    __mmask8 negative[TV_P256_WIDE_WINDOWS], nonzero[TV_P256_WIDE_WINDOWS];
} lane_digits;

// Each lane's scalar (below 2²⁵⁶, four little-endian limbs) in Booth digits of 7 bits, all lanes
// at once: 37 digits in [−64, 64] with scalar = Σ digitᵢ·2⁷ⁱ, digit i being window i's 7 bits
// plus the carry out of window i − 1, less 128 (with a carry of 1 into window i + 1) where that
// exceeds 64. The top window has 4 bits, so it carries nothing out. For each window, each lane's
// entry address (entry |digit| − 1 of its table's window; entry 0 for a zero digit, never added),
// and which lanes' digits are negative and not zero.
WIDE static void lane_digits_make(lane_digits *out, const uint64_t *const tables[8], const uint64_t scalars[8][4]) {
    __m512i limbs[4];
    for (int k = 0; k < 4; k++) {
        limbs[k] = _mm512_set_epi64((long long)scalars[7][k], (long long)scalars[6][k], (long long)scalars[5][k],
                                    (long long)scalars[4][k], (long long)scalars[3][k], (long long)scalars[2][k],
                                    (long long)scalars[1][k], (long long)scalars[0][k]);
    }
    const __m512i bases = _mm512_loadu_si512((const void *)tables), zero = _mm512_setzero_si512();
    const __m512i one = broadcast(1);
    __m512i carry = zero;
    for (int i = 0; i < TV_P256_WIDE_WINDOWS; i++) {
        int bit = 7 * i, word = bit / 64, shift = bit % 64;
        // The window's bits from the next limb too (a shift by 64 gives 0).
        __m512i window = _mm512_srlv_epi64(limbs[word], broadcast((uint64_t)shift));
        if (word < 3)
            window = _mm512_or_si512(window, _mm512_sllv_epi64(limbs[word + 1], broadcast((uint64_t)(64 - shift))));
        __m512i value = _mm512_add_epi64(_mm512_and_si512(window, broadcast(0x7F)), carry);
        __mmask8 high = _mm512_cmpgt_epi64_mask(value, broadcast(64));
        __m512i digit = _mm512_mask_sub_epi64(value, high, value, broadcast(128));
        carry = _mm512_maskz_mov_epi64(high, one);
        __m512i entry = _mm512_max_epi64(_mm512_sub_epi64(_mm512_abs_epi64(digit), one), zero);
        __m512i offset =
            _mm512_add_epi64(_mm512_slli_epi64(entry, 6), broadcast(64 * (uint64_t)(i * TV_P256_WIDE_ENTRIES)));
        _mm512_storeu_si512(out->addresses[i], _mm512_add_epi64(bases, offset));
        out->negative[i] = _mm512_cmplt_epi64_mask(digit, zero);
        out->nonzero[i] = _mm512_cmpneq_epi64_mask(digit, zero);
    }
}

// How many windows ahead of its addition a window's entries are asked for: the digits are all
// known before the first addition, and the loads otherwise wait on the lines (a table is
// 151,552 bytes, a batch of many keys is megabytes, and even one key's table and G's leave the
// core's first-level cache), as the out-of-order window does not reach past an addition.
enum { PREFETCH_WINDOWS = 2 };

// Asks for each lane's entry of window `i` (one 64-byte line: the tables are 64-byte aligned).
static inline __attribute__((always_inline)) void prefetch_window(const lane_digits *d, int i) {
    for (int l = 0; l < 8; l++) __builtin_prefetch((const void *)(uintptr_t)d->addresses[i][l]);
}

WIDE void tv_p256_wide_verify8(const uint64_t *const q_tables[8], const uint64_t u1[8][4], const uint64_t u2[8][4],
                               const uint64_t r[8][4], uint8_t verdicts[8]) {
    const uint64_t *g = tv_p256_wide_generator_table();
    const uint64_t *g_tables[8] = {g, g, g, g, g, g, g, g};
    lane_digits d1, d2;
    lane_digits_make(&d1, g_tables, u1);
    lane_digits_make(&d2, q_tables, u2);
    // The accumulator starts at the point at infinity (0 : 1 : 0).
    projective acc;
    for (int j = 0; j < 5; j++) acc.x[j] = acc.z[j] = _mm512_setzero_si512();
    fe_constant(acc.y, ONE52);
    for (int i = 0; i < PREFETCH_WINDOWS; i++) {
        prefetch_window(&d1, i);
        prefetch_window(&d2, i);
    }
    for (int i = 0; i < TV_P256_WIDE_WINDOWS; i++) {
        if (i + PREFETCH_WINDOWS < TV_P256_WIDE_WINDOWS) {
            prefetch_window(&d1, i + PREFETCH_WINDOWS);
            prefetch_window(&d2, i + PREFETCH_WINDOWS);
        }
        add_entry(&acc, d1.addresses[i], d1.negative[i], d1.nonzero[i]);
        add_entry(&acc, d2.addresses[i], d2.negative[i], d2.nonzero[i]);
    }
    // r and, where r + n < p, r + n, in Montgomery form (their plain values are below p).
    static const uint64_t N[4] = {0xF3B9CAC2FC632551ULL, 0xBCE6FAADA7179E84ULL, 0xFFFFFFFFFFFFFFFFULL,
                                  0xFFFFFFFF00000000ULL};
    static const uint64_t P_MINUS_N[4] = {0x0c46353d039cdaaeULL, 0x4319055358e8617bULL, 0, 0};
    uint64_t r_plus_n[8][4];
    __mmask8 has_twin = 0;
    for (int l = 0; l < 8; l++) {
        // r + n < p exactly when r < p − n (a 127-bit value).
        int below = r[l][3] == 0 && r[l][2] == 0 &&
                    (r[l][1] < P_MINUS_N[1] || (r[l][1] == P_MINUS_N[1] && r[l][0] < P_MINUS_N[0]));
        unsigned __int128 carry = 0;
        for (int k = 0; k < 4; k++) {
            carry += (unsigned __int128)r[l][k] + N[k];
            r_plus_n[l][k] = (uint64_t)carry;
            carry >>= 64;
        }
        if (below) has_twin |= (__mmask8)(1u << l);
        else memcpy(r_plus_n[l], r[l], sizeof r_plus_n[l]);
    }
    fe rr, rm, twin, x, z, rz, twin_z, zero;
    fe_constant(rr, RR52);
    fe_load_lanes(rm, r);
    fe_mul(rm, rm, rr);
    fe_load_lanes(twin, (const uint64_t (*)[4])r_plus_n);
    fe_mul(twin, twin, rr);
    fe_canonical(x, acc.x);
    fe_canonical(z, acc.z);
    fe_mul(rz, rm, acc.z);
    fe_canonical(rz, rz);
    fe_mul(twin_z, twin, acc.z);
    fe_canonical(twin_z, twin_z);
    for (int j = 0; j < 5; j++) zero[j] = _mm512_setzero_si512();
    __mmask8 at_infinity = fe_equal(z, zero);
    __mmask8 match = fe_equal(x, rz) | (fe_equal(x, twin_z) & has_twin);
    __mmask8 valid = match & (__mmask8)~at_infinity;
    for (int l = 0; l < 8; l++) verdicts[l] = (uint8_t)(((valid >> l) & 1) ^ (wide_broken ? 1 : 0));
}

WIDE void tv_p256_wide_add_for_testing(uint64_t out[8][3][4], const uint64_t p1[8][3][4], const uint64_t p2[8][2][4]) {
    uint64_t lanes[8][4];
    fe rr, one, coordinates[5];
    fe_constant(rr, RR52);
    for (int j = 0; j < 5; j++) one[j] = broadcast(j == 0 ? 1 : 0);
    for (int c = 0; c < 5; c++) {
        for (int l = 0; l < 8; l++) memcpy(lanes[l], c < 3 ? p1[l][c] : p2[l][c - 3], sizeof lanes[l]);
        fe_load_lanes(coordinates[c], (const uint64_t (*)[4])lanes);
        fe_mul(coordinates[c], coordinates[c], rr);
    }
    projective a, sum;
    memcpy(a.x, coordinates[0], sizeof a.x);
    memcpy(a.y, coordinates[1], sizeof a.y);
    memcpy(a.z, coordinates[2], sizeof a.z);
    point_add_affine(&sum, &a, coordinates[3], coordinates[4]);
    fe *results[3] = {&sum.x, &sum.y, &sum.z};
    for (int c = 0; c < 3; c++) {
        fe plain;
        __m512i w[4];
        uint64_t stored[4][8];
        fe_mul(plain, *results[c], one);
        fe_canonical(plain, plain);
        fe_to_64(w, plain);
        for (int k = 0; k < 4; k++) _mm512_storeu_si512(stored[k], w[k]);
        for (int l = 0; l < 8; l++)
            for (int k = 0; k < 4; k++) out[l][c][k] = stored[k][l];
    }
}

// The table building: the window bases through OpenSSL's point arithmetic, the entries in the lanes.

static EC_GROUP *wide_group = NULL;
static BIGNUM *wide_prime = NULL;
static CRYPTO_ONCE wide_group_once = CRYPTO_ONCE_STATIC_INIT;

static void make_wide_group(void) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *p = BN_new();
    if (group != NULL && p != NULL && EC_GROUP_get_curve(group, p, NULL, NULL, NULL) == 1) {
        wide_group = group;
        wide_prime = p;
        return;
    }
    EC_GROUP_free(group);
    BN_free(p);
}

static const EC_GROUP *group(void) {
    return CRYPTO_THREAD_run_once(&wide_group_once, make_wide_group) ? wide_group : NULL;
}

// value·2²⁶⁰ mod p as four little-endian limbs.
static int to_montgomery(uint64_t out[4], const BIGNUM *value, BIGNUM *t, BN_CTX *ctx) {
    uint8_t bytes[32];
    if (BN_lshift(t, value, 260) != 1 || BN_nnmod(t, t, wide_prime, ctx) != 1) return 0;
    if (BN_bn2lebinpad(t, bytes, 32) != 32) return 0;
    for (int k = 0; k < 4; k++) {
        uint64_t limb = 0;
        for (int b = 7; b >= 0; b--) limb = (limb << 8) | bytes[8 * k + b];
        out[k] = limb;
    }
    return 1;
}

// r = a⁻¹ = a^(p−2) (mod p), below 2p, for a below 2p and not 0 mod p; both in Montgomery form
// (Montgomery products of aR give a^k·R). 255 squarings and 128 products.
WIDE static void fe_invert(fe r, const fe a) {
    static const uint64_t P_MINUS_2[4] = {0xfffffffffffffffdULL, 0x00000000ffffffffULL, 0, 0xffffffff00000001ULL};
    fe power;
    fe_constant(power, ONE52);
    for (int bit = 255; bit >= 0; bit--) {
        fe_mul(power, power, power);
        if ((P_MINUS_2[bit / 64] >> (bit % 64)) & 1) fe_mul(power, power, a);
    }
    memcpy(r, power, sizeof power);
}

// Stores lane l's a (below 2p), made canonical, as four little-endian limbs at entries[l], for the
// lanes in `stored`.
WIDE static void fe_store_lanes(uint64_t *const entries[8], __mmask8 stored, const fe a) {
    fe c;
    __m512i w[4];
    uint64_t words[4][8];
    fe_canonical(c, a);
    fe_to_64(w, c);
    for (int k = 0; k < 4; k++) _mm512_storeu_si512(words[k], w[k]);
    for (int l = 0; l < 8; l++)
        if ((stored >> l) & 1)
            for (int k = 0; k < 4; k++) entries[l][k] = words[k][l];
}

// Eight windows of a table at once, a lane a window (`windows`; the lanes in `stored` are kept):
// from each window's base B (affine, Montgomery form), B … 64·B by point_add_affine (complete, so
// B + B needs no doubling), then all 64 made affine with one inversion a lane (Montgomery's trick:
// the running products of the Z, one inverse, each Z⁻¹ out of it on the way back). `scratch`
// holds 64 points and 64 products.
WIDE static void build_windows(uint64_t *table, const uint64_t bx[8][4], const uint64_t by[8][4], const int windows[8],
                               __mmask8 stored, projective *points, fe *products) {
    enum { N = TV_P256_WIDE_ENTRIES };
    fe x, y, inverse, z_inverse, affine;
    fe_load_lanes(x, bx);
    fe_load_lanes(y, by);
    memcpy(points[0].x, x, sizeof x);
    memcpy(points[0].y, y, sizeof y);
    fe_constant(points[0].z, ONE52);
    for (int j = 1; j < N; j++) point_add_affine(&points[j], &points[j - 1], x, y);
    memcpy(products[0], points[0].z, sizeof products[0]);
    for (int j = 1; j < N; j++) fe_mul(products[j], products[j - 1], points[j].z);
    fe_invert(inverse, products[N - 1]);
    for (int j = N - 1; j >= 0; j--) {
        if (j > 0) {
            fe_mul(z_inverse, inverse, products[j - 1]);
            fe_mul(inverse, inverse, points[j].z);
        } else {
            memcpy(z_inverse, inverse, sizeof inverse);
        }
        uint64_t *entries[8];
        for (int l = 0; l < 8; l++) entries[l] = table + 8 * (size_t)(windows[l] * N + j);
        fe_mul(affine, points[j].x, z_inverse);
        fe_store_lanes(entries, stored, affine);
        for (int l = 0; l < 8; l++) entries[l] += 4;
        fe_mul(affine, points[j].y, z_inverse);
        fe_store_lanes(entries, stored, affine);
    }
}

// The table of P: the 37 windows' bases 2⁷ⁱ·P by OpenSSL (EC_POINT_dbl, then one
// EC_POINTs_make_affine for all), the entries in the lanes, eight windows at a time
// (build_windows; the last five windows' lanes padded with the last). No entry is the point at
// infinity (n is prime and every entry is k·P with 0 < k < n), so every Z is invertible.
static uint64_t *build_table(const EC_GROUP *curve, const EC_POINT *point, BN_CTX *ctx) {
    enum { W = TV_P256_WIDE_WINDOWS };
    uint64_t *table = aligned_alloc(64, TV_P256_WIDE_TABLE_BYTES);
    projective *points = aligned_alloc(64, TV_P256_WIDE_ENTRIES * sizeof *points);
    fe *products = aligned_alloc(64, TV_P256_WIDE_ENTRIES * sizeof *products);
    EC_POINT *bases[W] = {NULL};
    uint64_t (*base_x)[4] = calloc(W, sizeof *base_x), (*base_y)[4] = calloc(W, sizeof *base_y);
    BIGNUM *x = BN_new(), *y = BN_new(), *t = BN_new();
    int ok = table != NULL && points != NULL && products != NULL && base_x != NULL && base_y != NULL && x != NULL &&
             y != NULL && t != NULL;
    for (int i = 0; ok && i < W; i++) {
        ok = (bases[i] = i == 0 ? EC_POINT_dup(point, curve) : EC_POINT_dup(bases[i - 1], curve)) != NULL;
        for (int k = 0; ok && i > 0 && k < 7; k++) ok = EC_POINT_dbl(curve, bases[i], bases[i], ctx) == 1;
        ok = ok && !EC_POINT_is_at_infinity(curve, bases[i]);
    }
    ok = ok && EC_POINTs_make_affine(curve, W, bases, ctx) == 1;
    for (int i = 0; ok && i < W; i++) {
        ok = EC_POINT_get_affine_coordinates(curve, bases[i], x, y, ctx) == 1 && to_montgomery(base_x[i], x, t, ctx) &&
             to_montgomery(base_y[i], y, t, ctx);
    }
    for (int first = 0; ok && first < W; first += 8) {
        uint64_t bx[8][4], by[8][4];
        int windows[8];
        __mmask8 stored = 0;
        for (int l = 0; l < 8; l++) {
            windows[l] = first + l < W ? first + l : W - 1;
            if (first + l < W) stored |= (__mmask8)(1u << l);
            memcpy(bx[l], base_x[windows[l]], sizeof bx[l]);
            memcpy(by[l], base_y[windows[l]], sizeof by[l]);
        }
        build_windows(table, (const uint64_t (*)[4])bx, (const uint64_t (*)[4])by, windows, stored, points, products);
    }
    for (int i = 0; i < W; i++) EC_POINT_free(bases[i]);
    free(points);
    free(products);
    free(base_x);
    free(base_y);
    BN_free(x);
    BN_free(y);
    BN_free(t);
    if (!ok) {
        free(table);
        table = NULL;
    }
    return table;
}

uint64_t *tv_p256_wide_table_build(const uint8_t *x, const uint8_t *y) {
    const EC_GROUP *curve = group();
    uint64_t *table = NULL;
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *bx = BN_bin2bn(x, 32, NULL), *by = BN_bin2bn(y, 32, NULL);
    EC_POINT *point = curve != NULL ? EC_POINT_new(curve) : NULL;
    if (tv_p256_wide_cpu() && ctx != NULL && bx != NULL && by != NULL && point != NULL && BN_cmp(bx, wide_prime) < 0 &&
        BN_cmp(by, wide_prime) < 0 &&
        EC_POINT_set_affine_coordinates(curve, point, bx, by, ctx) == 1 && EC_POINT_is_on_curve(curve, point, ctx) == 1 &&
        !EC_POINT_is_at_infinity(curve, point)) {
        table = build_table(curve, point, ctx);
    }
    EC_POINT_free(point);
    BN_free(bx);
    BN_free(by);
    BN_CTX_free(ctx);
    ERR_clear_error();
    return table;
}

void tv_p256_wide_table_free(uint64_t *table) { free(table); }

static uint64_t *generator_table = NULL;
static CRYPTO_ONCE generator_once = CRYPTO_ONCE_STATIC_INIT;

static void make_generator_table(void) {
    const EC_GROUP *curve = group();
    BN_CTX *ctx = BN_CTX_new();
    if (tv_p256_wide_cpu() && curve != NULL && ctx != NULL)
        generator_table = build_table(curve, EC_GROUP_get0_generator(curve), ctx);
    BN_CTX_free(ctx);
    ERR_clear_error();
}

const uint64_t *tv_p256_wide_generator_table(void) {
    return CRYPTO_THREAD_run_once(&generator_once, make_generator_table) ? generator_table : NULL;
}
