// The 8-lane walk of the Ed25519 batch path: R' = [S]B + [h](−A) for eight signatures at once,
// one signature a 64-bit lane of each AVX-512 register, with the 52-bit multiply-adds of AVX-512
// IFMA (vpmadd52luq, vpmadd52huq). See ed25519_wide.h; ed25519_table.c decides when it runs
// (tv_ed25519_wide_status) and does everything else of a verify (the checks on S, R and the key in
// libsodium's order, SHA-512, the encoding and the comparison with R).
//
// Field elements modulo p = 2^255 − 19 are five limbs in radix 2^51 (libsodium's own
// representation, as curve25519-dalek's IFMA back end also does): the multiplier takes 52-bit
// inputs, so a limb may be up to 2^52 − 1, and the one bit of headroom lets every product's
// result (limbs below 2^51 + 2^15) go into the next product unchanged; sums and differences are
// brought back below 2^52 by one parallel carry. A product a·b of limbs a_i, b_j < 2^52 has the
// low 52 bits of a_i·b_j at weight 2^(51(i+j)) and the high 52 bits at 2^(51(i+j)+52) =
// 2·2^(51(i+j+1)); columns 5…9 fold onto 0…4 times 19 (2^255 ≡ 19).
//
// The group operation is the complete twisted-Edwards addition of extended coordinates (X:Y:Z:T)
// and an affine Niels point (y + x, y − x, 2d·x·y) ("madd" in ref10, 7 products), the same group
// law as libsodium's ge25519_add: every lane sums the same 86 multiples the table path adds, so
// each lane ends at the same group element (in other projective coordinates), and ed25519_table.c
// encodes it canonically. A negative digit takes the negated entry (y + x and y − x swapped, 2d·x·y
// negated); a zero digit the neutral entry (1, 1, 0). The lanes' entries are gathered from each
// lane's own comb (vpgatherqq), so lanes may hold different keys.
#include "ed25519_wide.h"

#include "CTokenEd25519Testing.h"

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#include <cpuid.h>
#include <immintrin.h>

#define WIDE_TARGET __attribute__((target("avx512f,avx512vl,avx512ifma")))
#define WIDE_INLINE static inline __attribute__((always_inline, target("avx512f,avx512vl,avx512ifma")))

int tv_ed25519_wide_cpu(void) {
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx & (1u << 27))) return 0;  // OSXSAVE
    unsigned xcr0_low, xcr0_high;
    __asm__ volatile("xgetbv" : "=a"(xcr0_low), "=d"(xcr0_high) : "c"(0));
    // SSE, AVX, the opmask registers, the upper halves of ZMM0–15, ZMM16–31: all saved by the OS.
    if ((xcr0_low & 0xE6) != 0xE6) return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const unsigned avx512f = 1u << 16, avx512ifma = 1u << 21, avx512vl = 1u << 31;
    return (ebx & avx512f) && (ebx & avx512ifma) && (ebx & avx512vl);
}

// Eight field elements, one a lane.
typedef struct { __m512i v[5]; } fe8;
// Eight points in extended coordinates: x = X/Z, y = Y/Z, x·y = T/Z.
typedef struct { fe8 X, Y, Z, T; } point8;

// The neutral element as a Niels entry: y + x = 1, y − x = 1, 2d·x·y = 0.
static const uint64_t neutral_entry[TV_ED25519_WIDE_ENTRY_WORDS] __attribute__((aligned(64))) = {1, 0, 0, 0, 0,
                                                                                                 1, 0, 0, 0, 0};

#define MASK51 ((1ULL << 51) - 1)

// 19·x with shifts and adds (x below 2^59).
WIDE_INLINE __m512i times19(__m512i x) {
    return _mm512_add_epi64(_mm512_add_epi64(x, _mm512_slli_epi64(x, 1)), _mm512_slli_epi64(x, 4));
}

// One parallel carry: limbs below 2^63 in, limbs below 2^51 + 19·2^12 out (below 2^52).
WIDE_INLINE void carry(fe8 *r, const __m512i c[5]) {
    const __m512i mask = _mm512_set1_epi64((long long)MASK51);
    __m512i k0 = _mm512_srli_epi64(c[0], 51), k1 = _mm512_srli_epi64(c[1], 51), k2 = _mm512_srli_epi64(c[2], 51);
    __m512i k3 = _mm512_srli_epi64(c[3], 51), k4 = _mm512_srli_epi64(c[4], 51);
    r->v[0] = _mm512_add_epi64(_mm512_and_si512(c[0], mask), times19(k4));
    r->v[1] = _mm512_add_epi64(_mm512_and_si512(c[1], mask), k0);
    r->v[2] = _mm512_add_epi64(_mm512_and_si512(c[2], mask), k1);
    r->v[3] = _mm512_add_epi64(_mm512_and_si512(c[3], mask), k2);
    r->v[4] = _mm512_add_epi64(_mm512_and_si512(c[4], mask), k3);
}

// r = a·b: limbs of a and b below 2^52; r's below 2^51 + 2^15. Each column gets at most five low
// halves and five doubled high halves (below 15·2^52), and c_k = z_k + 19·z_(k+5) stays below 2^61.
WIDE_INLINE void fe8_mul(fe8 *r, const fe8 *a, const fe8 *b) {
    const __m512i zero = _mm512_setzero_si512();
    __m512i lo[10], hi[10];
    for (int k = 0; k < 10; k++) lo[k] = hi[k] = zero;
    for (int i = 0; i < 5; i++) {
        for (int j = 0; j < 5; j++) {
            lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a->v[i], b->v[j]);
            hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a->v[i], b->v[j]);
        }
    }
    __m512i z[10], c[5];
    for (int k = 0; k < 10; k++) z[k] = _mm512_add_epi64(lo[k], _mm512_slli_epi64(hi[k], 1));
    for (int k = 0; k < 5; k++) c[k] = _mm512_add_epi64(z[k], times19(z[k + 5]));
    carry(r, c);
}

// r = a + b, carried (limbs of a and b below 2^53).
WIDE_INLINE void fe8_add(fe8 *r, const fe8 *a, const fe8 *b) {
    __m512i c[5];
    for (int k = 0; k < 5; k++) c[k] = _mm512_add_epi64(a->v[k], b->v[k]);
    carry(r, c);
}

// 2p in radix 2^51: 2^52 − 38, then 2^52 − 2 four times.
WIDE_INLINE __m512i two_p(int k) {
    return _mm512_set1_epi64((long long)(k == 0 ? (1ULL << 52) - 38 : (1ULL << 52) - 2));
}

// r = a − b + 2p, carried (limbs of a below 2^53, of b below 2^52 − 38).
WIDE_INLINE void fe8_sub(fe8 *r, const fe8 *a, const fe8 *b) {
    __m512i c[5];
    for (int k = 0; k < 5; k++) c[k] = _mm512_sub_epi64(_mm512_add_epi64(a->v[k], two_p(k)), b->v[k]);
    carry(r, c);
}

// p += q, q an affine Niels point (y + x, y − x, 2d·x·y), limbs below 2^52.
WIDE_INLINE void add_niels(point8 *p, const fe8 *ypx, const fe8 *ymx, const fe8 *xy2d) {
    fe8 sum, difference, a, b, c, d, e, f, g, h;
    fe8_sub(&difference, &p->Y, &p->X);
    fe8_add(&sum, &p->Y, &p->X);
    fe8_mul(&a, &difference, ymx);
    fe8_mul(&b, &sum, ypx);
    fe8_mul(&c, &p->T, xy2d);
    for (int k = 0; k < 5; k++) d.v[k] = _mm512_add_epi64(p->Z.v[k], p->Z.v[k]);
    fe8_sub(&e, &b, &a);
    fe8_sub(&f, &d, &c);
    fe8_add(&g, &d, &c);
    fe8_add(&h, &b, &a);
    fe8_mul(&p->X, &e, &f);
    fe8_mul(&p->Y, &g, &h);
    fe8_mul(&p->T, &e, &h);
    fe8_mul(&p->Z, &f, &g);
}

// p += the entries of window `window` that the lanes' digits pick, each from its lane's comb.
WIDE_INLINE void add_window(point8 *p, const uint64_t *const combs[TV_ED25519_WIDE_LANES],
                            const int8_t digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS], int window,
                            int faults) {
    const char *origin = (const char *)neutral_entry;
    int64_t offsets[TV_ED25519_WIDE_LANES] __attribute__((aligned(64)));
    __mmask8 negative = 0;
    for (int lane = 0; lane < TV_ED25519_WIDE_LANES; lane++) {
        int d = digits[lane][window];
        const uint64_t *comb = combs[lane];
        if ((faults & TV_ED25519_FAULT_WIDE_LANE_KEY) && lane == TV_ED25519_WIDE_LANES - 1) comb = combs[0];
        const uint64_t *entry = neutral_entry;
        if (d != 0) {
            int index = window * TV_ED25519_WIDE_DIGITS + (d > 0 ? d : -d) - 1;
            entry = comb + (size_t)index * TV_ED25519_WIDE_ENTRY_WORDS;
        }
        if (d < 0) negative |= (__mmask8)(1u << lane);
        offsets[lane] = (int64_t)((uintptr_t)entry - (uintptr_t)origin);
    }
    const __m512i index = _mm512_load_si512(offsets);
    fe8 words[3];
    for (int w = 0; w < 3; w++) {
        for (int k = 0; k < 5; k++) {
            words[w].v[k] = _mm512_i64gather_epi64(index, origin + 8 * (5 * w + k), 1);
        }
    }
    fe8 ypx, ymx, xy2d;
    for (int k = 0; k < 5; k++) {
        ypx.v[k] = _mm512_mask_blend_epi64(negative, words[0].v[k], words[1].v[k]);
        ymx.v[k] = _mm512_mask_blend_epi64(negative, words[1].v[k], words[0].v[k]);
        __m512i negated = _mm512_sub_epi64(two_p(k), words[2].v[k]);
        if (faults & TV_ED25519_FAULT_WIDE_SKIP_NEGATE) negated = words[2].v[k];
        xy2d.v[k] = _mm512_mask_blend_epi64(negative, words[2].v[k], negated);
    }
    add_niels(p, &ypx, &ymx, &xy2d);
}

// How many windows ahead the lanes' entries of a key's comb are asked for (a comb is 161 KiB, and
// the lanes' combs together do not stay in the core's cache).
enum { PREFETCH_WINDOWS = 2 };

// Asks for the cache lines of the entries that window `window`'s digits pick from the lanes' combs.
WIDE_INLINE void prefetch_window(const uint64_t *const combs[TV_ED25519_WIDE_LANES],
                                 const int8_t digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS], int window) {
    for (int lane = 0; lane < TV_ED25519_WIDE_LANES; lane++) {
        int d = digits[lane][window];
        if (d == 0) continue;
        const char *entry = (const char *)(combs[lane] + (size_t)(window * TV_ED25519_WIDE_DIGITS + (d > 0 ? d : -d) - 1) *
                                                             TV_ED25519_WIDE_ENTRY_WORDS);
        __builtin_prefetch(entry);
        __builtin_prefetch(entry + 64);
        __builtin_prefetch(entry + 8 * TV_ED25519_WIDE_ENTRY_WORDS - 1);
    }
}

WIDE_TARGET
void tv_ed25519_wide_sum(uint64_t out[TV_ED25519_WIDE_LANES][3][5], const uint64_t *base,
                         const uint64_t *const keys[TV_ED25519_WIDE_LANES],
                         const int8_t s_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS],
                         const int8_t h_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS], int faults) {
    const uint64_t *bases[TV_ED25519_WIDE_LANES];
    for (int lane = 0; lane < TV_ED25519_WIDE_LANES; lane++) bases[lane] = base;
    point8 p;
    const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi64(1);
    for (int k = 0; k < 5; k++) {
        p.X.v[k] = p.T.v[k] = zero;
        p.Y.v[k] = p.Z.v[k] = k == 0 ? one : zero;
    }
    int windows = (faults & TV_ED25519_FAULT_WIDE_DROP_TOP_WINDOW) ? TV_ED25519_WIDE_WINDOWS - 1
                                                                   : TV_ED25519_WIDE_WINDOWS;
    for (int i = 0; i < PREFETCH_WINDOWS && i < windows; i++) prefetch_window(keys, h_digits, i);
    for (int i = 0; i < windows; i++) {
        if (i + PREFETCH_WINDOWS < windows) prefetch_window(keys, h_digits, i + PREFETCH_WINDOWS);
        add_window(&p, bases, s_digits, i, faults);
        add_window(&p, keys, h_digits, i, faults);
    }
    uint64_t limbs[3][5][TV_ED25519_WIDE_LANES] __attribute__((aligned(64)));
    for (int k = 0; k < 5; k++) {
        _mm512_store_si512(limbs[0][k], p.X.v[k]);
        _mm512_store_si512(limbs[1][k], p.Y.v[k]);
        _mm512_store_si512(limbs[2][k], p.Z.v[k]);
    }
    for (int lane = 0; lane < TV_ED25519_WIDE_LANES; lane++) {
        for (int w = 0; w < 3; w++) {
            for (int k = 0; k < 5; k++) out[lane][w][k] = limbs[w][k][lane];
        }
    }
}
#else
int tv_ed25519_wide_cpu(void) { return 0; }

void tv_ed25519_wide_sum(uint64_t out[TV_ED25519_WIDE_LANES][3][5], const uint64_t *base,
                         const uint64_t *const keys[TV_ED25519_WIDE_LANES],
                         const int8_t s_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS],
                         const int8_t h_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS], int faults) {
    (void)out; (void)base; (void)keys; (void)s_digits; (void)h_digits; (void)faults;
}
#endif
