// Ed25519 verification with per-key tables. See CTokenEd25519.h.
//
// crypto_sign_verify_detached (libsodium 1.0.18, crypto_sign/ed25519/ref10/open.c) refuses S with
// any of its top 4 bits set unless S < L, an R of small order, and a key that is not canonical or
// of small order or does not decode; it then hashes R‖A‖M with SHA-512, reduces h modulo L,
// computes R' = [h](−A) + [S]B and accepts when R' encodes to R's 32 bytes. This file does the
// same steps with the same libsodium functions; only the scalar multiplications differ: signed
// 6-bit combs over precomputed multiples (h < L and S < 2^253, so 43 windows hold them), summed
// with libsodium's complete twisted-Edwards addition. The sum is the same group element, and its
// encoding (ge25519_p3_tobytes, canonical) the same 32 bytes, so the verdict is the same.
//
// The point functions are internal to libsodium: present (global) in libsodium.a, not exported by
// the shared library, so this target links libsodium.a. Their types are declared here by size
// (libsodium's field element is 40 bytes in both of its representations). The path is compiled
// only for the libsodium version it was written against, and a self-test on first use compares
// it with crypto_sign_verify_detached on signed, tampered and forged small-order inputs; if either
// fails, no table is made and every key verifies through crypto_sign_verify_detached.
//
// The wide path (ed25519_wide.c, on where the CPU has AVX-512 IFMA: tv_ed25519_wide_status) changes
// only where a batch's sums are computed: the signatures that pass the same checks go eight at a
// time through an IFMA walk over each key's comb of the same multiples in affine form (made from
// libsodium's cached comb at table build, one inversion for all, and then kept instead of it: the
// table path reads the affine entries too), and its sums are encoded and compared here as the
// table path's are. Its groups' SHA-512 of R‖A‖M are computed eight at a time
// (ed25519_challenges.c: Intel's multi-buffer library where it is installed, libsodium's
// crypto_hash_sha512 otherwise; the same digests). It has its own self-tests (the table self-test's
// inputs as batches, and batches mixing keys) and is off unless they pass.
//
// The functions below take `faults`, a set of TV_ED25519_FAULT_* flags, so that the tests can run
// the self-test on deliberately broken paths (tv_ed25519_self_test_with_faults) and see each one
// fail. The verifier's entry points pass the constant 0 to always-inlined code, so the checks
// compile away there.
#include "CTokenEd25519.h"
#include "CTokenEd25519Testing.h"
#include "ed25519_challenges.h"
#include "ed25519_internal.h"
#include "ed25519_wide.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#if SODIUM_LIBRARY_VERSION_MAJOR == 10 && SODIUM_LIBRARY_VERSION_MINOR == 3
#define TV_ED25519_TABLES 1
#else
#define TV_ED25519_TABLES 0
#endif

#define WINDOW_BITS 6
#define DIGITS (1 << (WINDOW_BITS - 1))                 // multiples 1…32 of each window's point
#define WINDOWS ((256 + WINDOW_BITS - 1) / WINDOW_BITS)  // 43

// libsodium's point types (private/ed25519_ref10.h), by size: four 40-byte field elements.
typedef struct { uint64_t limbs[5]; } tv_fe25519;
typedef struct { tv_fe25519 X, Y, Z, T; } tv_ge25519_p3;
typedef struct { tv_fe25519 X, Y, Z, T; } tv_ge25519_p1p1;
typedef struct { tv_fe25519 YplusX, YminusX, Z, T2d; } tv_ge25519_cached;

// A comb: entry [i][j] is (j + 1)·2^(6i)·P, in libsodium's cached form.
typedef struct { tv_ge25519_cached multiples[WINDOWS][DIGITS]; } comb;

// A key's table holds the multiples of −A once: in libsodium's cached form, or where the wide path
// is on (or asked for) as a wide comb only (ed25519_wide.h: affine, 120 bytes an entry instead of
// 160), which the table path also reads (an affine entry is a cached one with Z = 1).
struct ed25519_table {
    comb *negated_key;        // the multiples of −A, cached form; NULL when `wide` holds them
    uint64_t *wide;           // the multiples of −A as a wide comb, or NULL
    uint8_t public_key[32];   // A's encoding, hashed into h
};

// The bytes of one wide comb.
#define WIDE_COMB_BYTES (TV_ED25519_WIDE_COMB_WORDS * sizeof(uint64_t))

#if TV_ED25519_TABLES
// libsodium.a's internal functions (libsodium 1.0.18, crypto_core/ed25519/ref10/ed25519_ref10.c).
int ge25519_frombytes(tv_ge25519_p3 *h, const unsigned char *s);
int ge25519_frombytes_negate_vartime(tv_ge25519_p3 *h, const unsigned char *s);
void ge25519_p3_to_cached(tv_ge25519_cached *r, const tv_ge25519_p3 *p);
void ge25519_add(tv_ge25519_p1p1 *r, const tv_ge25519_p3 *p, const tv_ge25519_cached *q);
void ge25519_sub(tv_ge25519_p1p1 *r, const tv_ge25519_p3 *p, const tv_ge25519_cached *q);
void ge25519_p1p1_to_p3(tv_ge25519_p3 *r, const tv_ge25519_p1p1 *p);
void ge25519_p3_tobytes(unsigned char *s, const tv_ge25519_p3 *h);
int ge25519_has_small_order(const unsigned char s[32]);
int ge25519_is_canonical(const unsigned char *s);
int sc25519_is_canonical(const unsigned char s[32]);
void sc25519_reduce(unsigned char s[64]);
void fe25519_invert(tv_fe25519 *out, const tv_fe25519 *z);
void fe25519_tobytes(unsigned char *s, const tv_fe25519 *h);

// B, the generator: y = 4/5.
const uint8_t tv_ed25519_base_point[32] = {
    0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
};
static comb *base_comb;             // the multiples of B, made once
static tv_ge25519_p3 identity;      // the neutral element (0, 1, 1, 0)
static int status = TV_ED25519_TABLES_SETUP_FAILED;  // why the path is on or off (CTokenEd25519.h)
static uint64_t *base_wide;         // the multiples of B as a wide comb, where the CPU has IFMA
static int wide_status = TV_ED25519_WIDE_NO_TABLES;  // why the wide path is on or off
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

static void tv_ed25519_build_comb(comb *table, const tv_ge25519_p3 *point) {
    tv_ge25519_p3 window = *point, sum;
    tv_ge25519_p1p1 step;
    for (int i = 0; i < WINDOWS; i++) {
        tv_ge25519_cached first;
        ge25519_p3_to_cached(&first, &window);
        table->multiples[i][0] = first;
        sum = window;
        for (int j = 1; j < DIGITS; j++) {
            ge25519_add(&step, &sum, &first);
            ge25519_p1p1_to_p3(&sum, &step);
            ge25519_p3_to_cached(&table->multiples[i][j], &sum);
        }
        // The next window's point: 2^6 · window = 2 · (32 · window).
        tv_ge25519_cached half;
        ge25519_p3_to_cached(&half, &sum);
        ge25519_add(&step, &sum, &half);
        ge25519_p1p1_to_p3(&window, &step);
    }
}

// Signed digits d[i] in [−32, 31] with Σ d[i]·2^(6i) = k (k < 2^253, so the last carry is absorbed).
// Window i's six bits lie in the two bytes from bit 6i on (the last window's in the last byte).
static void tv_ed25519_recode(int8_t digits[WINDOWS], const uint8_t k[32]) {
    int carry = 0;
    for (int i = 0; i < WINDOWS; i++) {
        int bit = i * WINDOW_BITS;
        int byte = bit >> 3;
        unsigned pair = k[byte] | (byte + 1 < 32 ? (unsigned)k[byte + 1] << 8 : 0u);
        int value = carry + (int)((pair >> (bit & 7)) & ((1u << WINDOW_BITS) - 1));
        carry = value >= DIGITS;
        digits[i] = (int8_t)(value - (carry << WINDOW_BITS));
    }
}

// How many windows ahead of its addition an entry is asked for: the digits are all known before
// the first addition, so the lines an addition reads are on their way while earlier ones run (a
// comb is 220 KiB, and the verifier's other work pushes parts of it out of the core's cache
// between batches of signatures).
enum { PREFETCH_WINDOWS = 3 };

// Asks for the cache lines (three or four) of the entry that digit `d` of window `i` reads (none
// for 0).
static inline __attribute__((always_inline)) void tv_ed25519_prefetch_entry(const comb *table, int i, int d) {
    if (d == 0) return;
    const char *entry = (const char *)&table->multiples[i][(d > 0 ? d : -d) - 1];
    __builtin_prefetch(entry);
    __builtin_prefetch(entry + 64);
    __builtin_prefetch(entry + 128);
    __builtin_prefetch(entry + sizeof(tv_ge25519_cached) - 1);
}

// Asks for the cache lines (two or three) of the wide comb's entry that digit `d` of window `i`
// reads (none for 0).
static inline __attribute__((always_inline)) void tv_ed25519_prefetch_wide_entry(const uint64_t *wide, int i, int d) {
    if (d == 0) return;
    const char *entry = (const char *)(wide + (size_t)(i * DIGITS + (d > 0 ? d : -d) - 1) * TV_ED25519_WIDE_ENTRY_WORDS);
    __builtin_prefetch(entry);
    __builtin_prefetch(entry + 64);
    __builtin_prefetch(entry + 8 * TV_ED25519_WIDE_ENTRY_WORDS - 1);
}

// sum += k · P, where `table` is P's comb.
// (A path with TV_ED25519_FAULT_DROP_TOP_WINDOW leaves out the top window's digit.)
static inline __attribute__((always_inline)) void tv_ed25519_add_multiple(tv_ge25519_p3 *sum, const comb *table,
                                                                          const uint8_t k[32], int faults) {
    int8_t digits[WINDOWS];
    tv_ge25519_p1p1 step;
    tv_ed25519_recode(digits, k);
    int windows = (faults & TV_ED25519_FAULT_DROP_TOP_WINDOW) ? WINDOWS - 1 : WINDOWS;
    for (int i = 0; i < PREFETCH_WINDOWS && i < windows; i++) tv_ed25519_prefetch_entry(table, i, digits[i]);
    for (int i = 0; i < windows; i++) {
        if (i + PREFETCH_WINDOWS < windows) {
            tv_ed25519_prefetch_entry(table, i + PREFETCH_WINDOWS, digits[i + PREFETCH_WINDOWS]);
        }
        int d = digits[i];
        if (d > 0) {
            ge25519_add(&step, sum, &table->multiples[i][d - 1]);
        } else if (d < 0) {
            ge25519_sub(&step, sum, &table->multiples[i][-d - 1]);
        } else {
            continue;
        }
        ge25519_p1p1_to_p3(sum, &step);
    }
}

// sum += k · P, where `wide` is P's wide comb: each entry (y + x, y − x, 2d·x·y) taken as libsodium's
// cached point (Y + X, Y − X, Z, 2d·T) with Z = 1, for the same addition as above.
static inline __attribute__((always_inline)) void tv_ed25519_add_multiple_wide(tv_ge25519_p3 *sum, const uint64_t *wide,
                                                                               const uint8_t k[32], int faults) {
    int8_t digits[WINDOWS];
    tv_ge25519_p1p1 step;
    tv_ge25519_cached entry = {.Z = {{1, 0, 0, 0, 0}}};
    tv_ed25519_recode(digits, k);
    int windows = (faults & TV_ED25519_FAULT_DROP_TOP_WINDOW) ? WINDOWS - 1 : WINDOWS;
    for (int i = 0; i < PREFETCH_WINDOWS && i < windows; i++) tv_ed25519_prefetch_wide_entry(wide, i, digits[i]);
    for (int i = 0; i < windows; i++) {
        if (i + PREFETCH_WINDOWS < windows) {
            tv_ed25519_prefetch_wide_entry(wide, i + PREFETCH_WINDOWS, digits[i + PREFETCH_WINDOWS]);
        }
        int d = digits[i];
        if (d == 0) continue;
        const uint64_t *words = wide + (size_t)(i * DIGITS + (d > 0 ? d : -d) - 1) * TV_ED25519_WIDE_ENTRY_WORDS;
        memcpy(entry.YplusX.limbs, words, sizeof entry.YplusX.limbs);
        memcpy(entry.YminusX.limbs, words + 5, sizeof entry.YminusX.limbs);
        memcpy(entry.T2d.limbs, words + 10, sizeof entry.T2d.limbs);
        if (d > 0) ge25519_add(&step, sum, &entry);
        else ge25519_sub(&step, sum, &entry);
        ge25519_p1p1_to_p3(sum, &step);
    }
}

// h = SHA-512(R‖A‖M) mod L, in h[0..32].
static inline void tv_ed25519_challenge(uint8_t h[64], const uint8_t r[32], const uint8_t public_key[32],
                                        const uint8_t *message, size_t length) {
    crypto_hash_sha512_state state;
    crypto_hash_sha512_init(&state);
    crypto_hash_sha512_update(&state, r, 32);
    crypto_hash_sha512_update(&state, public_key, 32);
    crypto_hash_sha512_update(&state, message, length);
    crypto_hash_sha512_final(&state, h);
    sc25519_reduce(h);
}

// crypto_sign_verify_detached's checks on the signature before its hashing and arithmetic, in its
// order (the key's refusals were made with the table): 0 when one refuses it.
static inline __attribute__((always_inline)) int tv_ed25519_signature_checks(const uint8_t *signature, int faults) {
    if ((signature[63] & 240) != 0 && sc25519_is_canonical(signature + 32) == 0) return 0;
    if (!(faults & TV_ED25519_FAULT_SKIP_SMALL_ORDER_R) && ge25519_has_small_order(signature) != 0) return 0;
    return 1;
}

// The checks, then h into h[0..32]: 0 when a check refuses the signature.
static inline __attribute__((always_inline)) int tv_ed25519_checks(uint8_t h[64], const struct ed25519_table *table,
                                                                   const uint8_t *message, size_t length,
                                                                   const uint8_t *signature, int faults) {
    if (!tv_ed25519_signature_checks(signature, faults)) return 0;
    tv_ed25519_challenge(h, signature, table->public_key, message, length);
    return 1;
}

// R' = [S]B + [h](−A) for `signature` of `message` under the table's key, into `sum`; 0 (and
// no point) when crypto_sign_verify_detached refuses the signature before its arithmetic.
static inline __attribute__((always_inline)) int tv_ed25519_sum(tv_ge25519_p3 *sum, const struct ed25519_table *table,
                                                                const uint8_t *message, size_t length,
                                                                const uint8_t *signature, int faults) {
    uint8_t h[64];
    if (!tv_ed25519_checks(h, table, message, length, signature, faults)) return 0;
    *sum = identity;
    tv_ed25519_add_multiple(sum, base_comb, signature + 32, faults);
    if (table->negated_key != NULL) tv_ed25519_add_multiple(sum, table->negated_key, h, faults);
    else tv_ed25519_add_multiple_wide(sum, table->wide, h, faults);
    return 1;
}

static inline __attribute__((always_inline)) int tv_ed25519_verify_with(const struct ed25519_table *table,
                                                                        const uint8_t *message, size_t length,
                                                                        const uint8_t *signature, int faults) {
    tv_ge25519_p3 sum;
    uint8_t encoded[32];
    if (!tv_ed25519_sum(&sum, table, message, length, signature, faults)) return 0;
    ge25519_p3_tobytes(encoded, &sum);
    return crypto_verify_32(encoded, signature) == 0;
}

// h = f·g modulo p = 2^255 − 19 on libsodium's five 51-bit limbs (its fe25519_mul for the 64-bit
// platforms, which libsodium keeps static): each limb of f and g below 2^52, as every product and
// inversion of libsodium's leaves them, and so are h's.
static inline void tv_fe_mul(tv_fe25519 *h, const tv_fe25519 *f, const tv_fe25519 *g) {
    typedef unsigned __int128 u128;
    const uint64_t mask = (1ULL << 51) - 1;
    const uint64_t f0 = f->limbs[0], f1 = f->limbs[1], f2 = f->limbs[2], f3 = f->limbs[3], f4 = f->limbs[4];
    const uint64_t g0 = g->limbs[0], g1 = g->limbs[1], g2 = g->limbs[2], g3 = g->limbs[3], g4 = g->limbs[4];
    const uint64_t g1_19 = 19 * g1, g2_19 = 19 * g2, g3_19 = 19 * g3, g4_19 = 19 * g4;
    u128 r0 = (u128)f0 * g0 + (u128)f1 * g4_19 + (u128)f2 * g3_19 + (u128)f3 * g2_19 + (u128)f4 * g1_19;
    u128 r1 = (u128)f0 * g1 + (u128)f1 * g0 + (u128)f2 * g4_19 + (u128)f3 * g3_19 + (u128)f4 * g2_19;
    u128 r2 = (u128)f0 * g2 + (u128)f1 * g1 + (u128)f2 * g0 + (u128)f3 * g4_19 + (u128)f4 * g3_19;
    u128 r3 = (u128)f0 * g3 + (u128)f1 * g2 + (u128)f2 * g1 + (u128)f3 * g0 + (u128)f4 * g4_19;
    u128 r4 = (u128)f0 * g4 + (u128)f1 * g3 + (u128)f2 * g2 + (u128)f3 * g1 + (u128)f4 * g0;
    r1 += (uint64_t)(r0 >> 51);
    r2 += (uint64_t)(r1 >> 51);
    r3 += (uint64_t)(r2 >> 51);
    r4 += (uint64_t)(r3 >> 51);
    uint64_t h0 = ((uint64_t)r0 & mask) + 19 * (uint64_t)(r4 >> 51);
    uint64_t h1 = ((uint64_t)r1 & mask) + (h0 >> 51);
    h->limbs[0] = h0 & mask;
    h->limbs[1] = h1;
    h->limbs[2] = (uint64_t)r2 & mask;
    h->limbs[3] = (uint64_t)r3 & mask;
    h->limbs[4] = (uint64_t)r4 & mask;
}

// At most this many points are encoded with one inversion (their sums and running products stay
// on the stack: 200 bytes a point); a group of the wide walk can arrive when it is nearly full.
enum { ENCODE_GROUP = 32, ENCODE_CAPACITY = ENCODE_GROUP + TV_ED25519_WIDE_LANES };

// Encodes `count` points as ge25519_p3_tobytes does (y, with x's sign in the top bit), with one
// field inversion for all of them (Montgomery's trick: running products of the Z's, one
// inversion, three multiplications a point): the same canonical bytes. A Z of zero (no point in
// extended coordinates has one) would zero the product: then each is encoded on its own.
static void tv_ed25519_encode_many(uint8_t (*encoded)[32], const tv_ge25519_p3 *points, int count) {
    tv_fe25519 products[ENCODE_CAPACITY], inverse, z_inverse, x, y;
    uint8_t bytes[32], zero[32] = {0};
    products[0] = points[0].Z;
    for (int i = 1; i < count; i++) tv_fe_mul(&products[i], &products[i - 1], &points[i].Z);
    fe25519_tobytes(bytes, &products[count - 1]);
    if (memcmp(bytes, zero, 32) == 0) {
        for (int i = 0; i < count; i++) ge25519_p3_tobytes(encoded[i], &points[i]);
        return;
    }
    fe25519_invert(&inverse, &products[count - 1]);
    for (int i = count - 1; i >= 0; i--) {
        if (i > 0) {
            tv_fe_mul(&z_inverse, &inverse, &products[i - 1]);
            tv_fe_mul(&inverse, &inverse, &points[i].Z);
        } else {
            z_inverse = inverse;
        }
        tv_fe_mul(&x, &points[i].X, &z_inverse);
        tv_fe_mul(&y, &points[i].Y, &z_inverse);
        fe25519_tobytes(encoded[i], &y);
        fe25519_tobytes(bytes, &x);
        encoded[i][31] ^= (uint8_t)((bytes[0] & 1) << 7);
    }
}

// Whether a batch with `faults` runs through the wide walk: the verifier's (faults 0) where the
// wide path is on, and any with TV_ED25519_WIDE (the wide self-tests and the tests).
static inline int tv_ed25519_wide_in(int faults) {
    if (faults & TV_ED25519_SCALAR) return 0;
    return (faults & TV_ED25519_WIDE) || (faults == 0 && wide_status == TV_ED25519_WIDE_ON);
}

// The signatures that passed the checks and wait for the wide walk: each lane's wide comb of −A,
// what its h is the hash of (R, A and M), the digits of S, and the signature's place in the batch.
typedef struct {
    const uint64_t *keys[TV_ED25519_WIDE_LANES];
    const uint8_t *r[TV_ED25519_WIDE_LANES], *public_keys[TV_ED25519_WIDE_LANES], *messages[TV_ED25519_WIDE_LANES];
    size_t lengths[TV_ED25519_WIDE_LANES];
    int8_t s_digits[TV_ED25519_WIDE_LANES][WINDOWS], h_digits[TV_ED25519_WIDE_LANES][WINDOWS];
    size_t positions[TV_ED25519_WIDE_LANES];
    int lanes;
} wide_group;

// The group's h, hashed side by side (ed25519_challenges.c) and reduced modulo L, as digits.
static void tv_ed25519_wide_challenges(wide_group *group, int faults) {
    uint8_t digests[TV_ED25519_WIDE_LANES][64];
    tv_ed25519_hash_lanes(digests, group->r, group->public_keys, group->messages, group->lengths, group->lanes);
    if (faults & TV_ED25519_FAULT_WIDE_HASH) digests[group->lanes - 1][0] ^= 1;
    for (int lane = 0; lane < group->lanes; lane++) {
        sc25519_reduce(digests[lane]);
        tv_ed25519_recode(group->h_digits[lane], digests[lane]);
    }
}

// Hashes the group's lanes, walks them, the empty ones padded with lane 0's input (a sum computed
// and dropped), and appends the filled lanes' sums to `sums` as libsodium points (X, Y and Z, limbs
// below 2^52; the encoding reads no T), with their places in the batch.
static void tv_ed25519_wide_run(wide_group *group, tv_ge25519_p3 *sums, size_t *positions, int *grouped, int faults) {
    uint64_t out[TV_ED25519_WIDE_LANES][3][5];
    tv_ed25519_wide_challenges(group, faults);
    for (int lane = group->lanes; lane < TV_ED25519_WIDE_LANES; lane++) {
        group->keys[lane] = group->keys[0];
        memcpy(group->s_digits[lane], group->s_digits[0], WINDOWS);
        memcpy(group->h_digits[lane], group->h_digits[0], WINDOWS);
    }
    tv_ed25519_wide_sum(out, base_wide, group->keys, (const int8_t (*)[WINDOWS])group->s_digits,
                        (const int8_t (*)[WINDOWS])group->h_digits, faults);
    for (int lane = 0; lane < group->lanes; lane++) {
        tv_ge25519_p3 *sum = &sums[*grouped];
        memcpy(sum->X.limbs, out[lane][0], sizeof sum->X.limbs);
        memcpy(sum->Y.limbs, out[lane][1], sizeof sum->Y.limbs);
        memcpy(sum->Z.limbs, out[lane][2], sizeof sum->Z.limbs);
        memset(sum->T.limbs, 0, sizeof sum->T.limbs);
        positions[(*grouped)++] = group->positions[lane];
    }
    group->lanes = 0;
}

// The batch: each signature's checks in libsodium's order, then its sum, alone (the table path)
// or in a group of eight (the wide path, when `faults` says so and its table has a wide comb);
// the sums encoded with shared inversions and compared with R. Where `encodings` is not NULL, each
// signature's R' encoded goes there too (32 zero bytes where the checks refused it before the
// arithmetic), for the comparisons of the paths.
static void tv_ed25519_verify_many_with(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                        const uint8_t *const *signatures, size_t count, uint8_t *verdicts,
                                        uint8_t (*encodings)[32], int faults) {
    tv_ge25519_p3 sums[ENCODE_CAPACITY];
    uint8_t encoded[ENCODE_CAPACITY][32];
    size_t positions[ENCODE_CAPACITY];
    wide_group group;
    group.lanes = 0;
    int grouped = 0, wide = tv_ed25519_wide_in(faults);
    for (size_t i = 0; i < count; i++) {
        const struct ed25519_table *table = tables[i];
        verdicts[i] = 0;
        if (encodings != NULL) memset(encodings[i], 0, 32);
        if (wide && table->wide != NULL) {
            if (tv_ed25519_signature_checks(signatures[i], faults)) {
                int lane = group.lanes++;
                group.keys[lane] = table->wide;
                group.r[lane] = signatures[i];
                group.public_keys[lane] = table->public_key;
                group.messages[lane] = messages[i];
                group.lengths[lane] = lengths[i];
                tv_ed25519_recode(group.s_digits[lane], signatures[i] + 32);
                group.positions[lane] = i;
                if (group.lanes == TV_ED25519_WIDE_LANES) tv_ed25519_wide_run(&group, sums, positions, &grouped, faults);
            }
        } else if (tv_ed25519_sum(&sums[grouped], table, messages[i], lengths[i], signatures[i], faults)) {
            positions[grouped++] = i;
        }
        if (i + 1 == count && group.lanes > 0) tv_ed25519_wide_run(&group, sums, positions, &grouped, faults);
        if (grouped >= ENCODE_GROUP || (i + 1 == count && grouped > 0)) {
            tv_ed25519_encode_many(encoded, sums, grouped);
            for (int k = 0; k < grouped; k++) {
                verdicts[positions[k]] = crypto_verify_32(encoded[k], signatures[positions[k]]) == 0;
                if (encodings != NULL) memcpy(encodings[positions[k]], encoded[k], 32);
            }
            grouped = 0;
        }
    }
}

// 255 bits (a canonical field element's bytes) as five 51-bit limbs.
static void tv_fe_limbs(uint64_t limbs[5], const uint8_t s[32]) {
    uint64_t w[4];
    for (int k = 0; k < 4; k++) {
        w[k] = 0;
        for (int b = 7; b >= 0; b--) w[k] = (w[k] << 8) | s[8 * k + b];
    }
    const uint64_t mask = (1ULL << 51) - 1;
    limbs[0] = w[0] & mask;
    limbs[1] = ((w[0] >> 51) | (w[1] << 13)) & mask;
    limbs[2] = ((w[1] >> 38) | (w[2] << 26)) & mask;
    limbs[3] = ((w[2] >> 25) | (w[3] << 39)) & mask;
    limbs[4] = (w[3] >> 12) & mask;
}

// The wide comb of a comb's points (ed25519_wide.h): each entry (Y + X, Y − X, Z, 2d·T) made
// affine, (y + x, y − x, 2d·x·y), with one inversion for all of them (Montgomery's trick), each
// element canonical (fe25519_tobytes) in 51-bit limbs. NULL when memory fails or a Z is zero
// (no point has one).
static uint64_t *tv_ed25519_wide_comb(const comb *table) {
    enum { ENTRIES = WINDOWS * DIGITS };
    const tv_ge25519_cached *entries = &table->multiples[0][0];
    uint64_t *wide = aligned_alloc(64, WIDE_COMB_BYTES);
    tv_fe25519 *products = malloc(ENTRIES * sizeof *products);
    if (wide == NULL || products == NULL) {
        free(wide);
        free(products);
        return NULL;
    }
    tv_fe25519 inverse, z_inverse, value;
    uint8_t bytes[32], zero[32] = {0};
    products[0] = entries[0].Z;
    for (int i = 1; i < ENTRIES; i++) tv_fe_mul(&products[i], &products[i - 1], &entries[i].Z);
    fe25519_tobytes(bytes, &products[ENTRIES - 1]);
    if (memcmp(bytes, zero, 32) == 0) {
        free(wide);
        free(products);
        return NULL;
    }
    fe25519_invert(&inverse, &products[ENTRIES - 1]);
    for (int i = ENTRIES - 1; i >= 0; i--) {
        if (i > 0) {
            tv_fe_mul(&z_inverse, &inverse, &products[i - 1]);
            tv_fe_mul(&inverse, &inverse, &entries[i].Z);
        } else {
            z_inverse = inverse;
        }
        const tv_fe25519 *elements[3] = {&entries[i].YplusX, &entries[i].YminusX, &entries[i].T2d};
        for (int e = 0; e < 3; e++) {
            tv_fe_mul(&value, elements[e], &z_inverse);
            fe25519_tobytes(bytes, &value);
            tv_fe_limbs(wide + (size_t)i * TV_ED25519_WIDE_ENTRY_WORDS + 5 * e, bytes);
        }
    }
    free(products);
    return wide;
}

struct ed25519_table *tv_ed25519_make_table(const uint8_t *public_key, int faults) {
    tv_ge25519_p3 negated;
    int small_order = !(faults & TV_ED25519_FAULT_SKIP_SMALL_ORDER_KEY) && ge25519_has_small_order(public_key) != 0;
    if (ge25519_is_canonical(public_key) == 0 || small_order ||
        ge25519_frombytes_negate_vartime(&negated, public_key) != 0) return NULL;
    struct ed25519_table *table = malloc(sizeof *table);
    comb *negated_key = malloc(sizeof *negated_key);
    if (table == NULL || negated_key == NULL) {
        free(table);
        free(negated_key);
        return NULL;
    }
    tv_ed25519_build_comb(negated_key, &negated);
    memcpy(table->public_key, public_key, 32);
    table->negated_key = negated_key;
    table->wide = tv_ed25519_wide_in(faults) && base_wide != NULL ? tv_ed25519_wide_comb(negated_key) : NULL;
    if (table->wide != NULL) {
        // The wide comb holds the same multiples for both paths.
        free(negated_key);
        table->negated_key = NULL;
    }
    return table;
}

// The table path's verdict on `signature`, or 0 when it makes no table for `public_key` (the
// self-test's view of a key the standard call refuses).
int tv_ed25519_table_verdict(const uint8_t public_key[32], const uint8_t *message, size_t length,
                                    const uint8_t signature[64], int faults) {
    struct ed25519_table *table = tv_ed25519_make_table(public_key, faults);
    if (table == NULL) return 0;
    int verdict = tv_ed25519_verify_with(table, message, length, signature, faults);
    tv_ed25519_table_free(table);
    return verdict;
}

// Whether the top window's digit of the scalar k is non-zero (the window only 253-bit scalars reach).
int tv_ed25519_top_digit(const uint8_t k[32]) {
    int8_t digits[WINDOWS];
    tv_ed25519_recode(digits, k);
    return digits[WINDOWS - 1] != 0;
}

// For the self-test (ed25519_self_test.c, ed25519_internal.h): the table path with `faults`, and
// the pieces it checks, as calls.
int tv_ed25519_verify_faulty(const struct ed25519_table *table, const uint8_t *message, size_t length,
                             const uint8_t *signature, int faults) {
    return tv_ed25519_verify_with(table, message, length, signature, faults);
}

void tv_ed25519_verify_many_faulty(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                   const uint8_t *const *signatures, size_t count, uint8_t *verdicts, int faults) {
    tv_ed25519_verify_many_with(tables, messages, lengths, signatures, count, verdicts, NULL, faults);
}

void tv_ed25519_encodings_of(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                             const uint8_t *const *signatures, size_t count, uint8_t *verdicts,
                             uint8_t (*encodings)[32], int faults) {
    tv_ed25519_verify_many_with(tables, messages, lengths, signatures, count, verdicts, encodings, faults);
}

void tv_ed25519_challenge_of(uint8_t h[64], const uint8_t r[32], const uint8_t public_key[32], const uint8_t *message,
                             size_t length) {
    tv_ed25519_challenge(h, r, public_key, message, length);
}

// The table path runs libsodium.a's internal point functions (linked from the static archive, see
// Package.swift), while the binary takes libsodium's public calls (crypto_sign_verify_detached,
// SHA-512) from the shared library at run time. Those are one libsodium only while the -dev
// package (header and archive) and the runtime package have the same version; when they differ,
// no table is made and every key keeps the standard call.
static int tv_ed25519_same_libsodium(void) {
    return strcmp(sodium_version_string(), SODIUM_VERSION_STRING) == 0;
}

static int tv_ed25519_wide_setup(void);

static void tv_ed25519_setup(void) {
    static const uint8_t neutral[32] = {1};
    tv_ge25519_p3 base;
    if (sodium_init() < 0 || ge25519_frombytes(&identity, neutral) != 0 || ge25519_frombytes(&base, tv_ed25519_base_point) != 0) return;
    base_comb = malloc(sizeof *base_comb);
    if (base_comb == NULL) return;
    tv_ed25519_build_comb(base_comb, &base);
    if (!tv_ed25519_same_libsodium()) status = TV_ED25519_TABLES_OTHER_RUNTIME;
    else status = tv_ed25519_self_test(0) ? TV_ED25519_TABLES_ON : TV_ED25519_TABLES_SELF_TEST_FAILED;
    wide_status = tv_ed25519_wide_setup();
}

// Both self-tests of the wide path: the table self-test's inputs with its batch through the wide
// walk, and batches mixing keys (ed25519_self_test.c).
static int tv_ed25519_wide_self_tests(int faults) {
    return tv_ed25519_self_test(faults | TV_ED25519_WIDE) && tv_ed25519_wide_self_test(faults | TV_ED25519_WIDE);
}

// The wide path's status, once the table path's is known (run by the set-up). B's wide comb is
// made wherever the CPU runs the walk, so that the tests can run it when the path is forced off.
static int tv_ed25519_wide_setup(void) {
    if (status != TV_ED25519_TABLES_ON) return TV_ED25519_WIDE_NO_TABLES;
    if (!tv_ed25519_wide_cpu()) return TV_ED25519_WIDE_NO_CPU;
    base_wide = tv_ed25519_wide_comb(base_comb);
    if (base_wide == NULL) return TV_ED25519_WIDE_SETUP_FAILED;
    const char *forced = getenv("TOKENVERIFY_SIGNATURE_PATH");
    if (forced != NULL && (strcmp(forced, "tables") == 0 || strcmp(forced, "standard") == 0)) {
        return TV_ED25519_WIDE_FORCED_OFF;
    }
    return tv_ed25519_wide_self_tests(0) ? TV_ED25519_WIDE_ON : TV_ED25519_WIDE_SELF_TEST_FAILED;
}

int tv_ed25519_table_status(void) {
    pthread_once(&setup_once, tv_ed25519_setup);
    return status;
}

int tv_ed25519_table_available(void) { return tv_ed25519_table_status() == TV_ED25519_TABLES_ON; }

void *tv_ed25519_table_new(const uint8_t *public_key) {
    if (!tv_ed25519_table_available()) return NULL;
    return tv_ed25519_make_table(public_key, 0);
}

int tv_ed25519_table_verify(const void *table, const uint8_t *message, size_t message_length, const uint8_t *signature) {
    return tv_ed25519_verify_with(table, message, message_length, signature, 0);
}

void tv_ed25519_table_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                  const uint8_t *const *signatures, size_t count, uint8_t *verdicts) {
    tv_ed25519_verify_many_with(tables, messages, lengths, signatures, count, verdicts, NULL, 0);
}

int tv_ed25519_self_test_with_faults(int faults) {
    pthread_once(&setup_once, tv_ed25519_setup);
    return base_comb != NULL && tv_ed25519_self_test(faults);
}

int tv_ed25519_wide_status(void) {
    pthread_once(&setup_once, tv_ed25519_setup);
    return wide_status;
}

int tv_ed25519_wide_self_test_with_faults(int faults) {
    pthread_once(&setup_once, tv_ed25519_setup);
    if (base_wide == NULL) return -1;
    return tv_ed25519_wide_self_tests(faults);
}

void *tv_ed25519_wide_table_new(const uint8_t *public_key) {
    pthread_once(&setup_once, tv_ed25519_setup);
    if (base_wide == NULL) return NULL;
    struct ed25519_table *table = tv_ed25519_make_table(public_key, TV_ED25519_WIDE);
    if (table != NULL && table->wide == NULL) {
        tv_ed25519_table_free(table);
        return NULL;
    }
    return table;
}

void tv_ed25519_wide_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                 const uint8_t *const *signatures, size_t count, uint8_t *verdicts) {
    pthread_once(&setup_once, tv_ed25519_setup);
    if (base_wide == NULL) {
        memset(verdicts, 0, count);
        return;
    }
    tv_ed25519_verify_many_with(tables, messages, lengths, signatures, count, verdicts, NULL, TV_ED25519_WIDE);
}

size_t tv_ed25519_table_size(void) {
    return sizeof(struct ed25519_table) + (tv_ed25519_wide_status() == TV_ED25519_WIDE_ON ? WIDE_COMB_BYTES : sizeof(comb));
}
#else
int tv_ed25519_table_status(void) { return TV_ED25519_TABLES_NOT_COMPILED; }
int tv_ed25519_table_available(void) { return 0; }
int tv_ed25519_self_test_with_faults(int faults) { (void)faults; return 0; }
int tv_ed25519_wide_status(void) { return TV_ED25519_WIDE_NO_TABLES; }
int tv_ed25519_wide_self_test_with_faults(int faults) { (void)faults; return -1; }
void *tv_ed25519_wide_table_new(const uint8_t *public_key) { (void)public_key; return NULL; }
void tv_ed25519_wide_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                 const uint8_t *const *signatures, size_t count, uint8_t *verdicts) {
    (void)tables; (void)messages; (void)lengths; (void)signatures;
    memset(verdicts, 0, count);
}
size_t tv_ed25519_table_size(void) { return sizeof(struct ed25519_table) + sizeof(comb); }
void *tv_ed25519_table_new(const uint8_t *public_key) { (void)public_key; return NULL; }
int tv_ed25519_table_verify(const void *table, const uint8_t *message, size_t message_length, const uint8_t *signature) {
    (void)table; (void)message; (void)message_length; (void)signature;
    return 0;
}
void tv_ed25519_table_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                  const uint8_t *const *signatures, size_t count, uint8_t *verdicts) {
    (void)tables; (void)messages; (void)lengths; (void)signatures;
    memset(verdicts, 0, count);
}
#endif

const char *tv_ed25519_libsodium_compiled(void) { return SODIUM_VERSION_STRING; }

void tv_ed25519_table_free(void *table) {
    if (table != NULL) {
        free(((struct ed25519_table *)table)->negated_key);
        free(((struct ed25519_table *)table)->wide);
    }
    free(table);
}
