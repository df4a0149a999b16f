// The Ed25519 wide path (Sources/CTokenEd25519/ed25519_wide.c) against libsodium's
// crypto_sign_verify_detached: randomized signatures, valid and broken in every way the checks
// and the arithmetic care about, verified in batches of varied sizes (the keys mixed, the tails
// padded) through tv_ed25519_wide_verify_many; every verdict must equal libsodium's.
// Built and run by scripts/compare-ed25519-wide:
//
//   compare-ed25519-wide compare COUNT [SEED]   COUNT signatures; exit 1 on any disagreement
//   compare-ed25519-wide build COUNT            CPU time of a key's table (COUNT keys)
//   compare-ed25519-wide bench COUNT PASSES [KEYS [no-hash]]
//                                               COUNT valid signatures (KEYS keys, 16 unless
//                                               given, 100-byte messages, each signature's key
//                                               drawn at random) verified PASSES times through
//                                               tv_ed25519_table_verify_many (the path that
//                                               TOKENVERIFY_SIGNATURE_PATH leaves on), batches of 256,
//                                               then (unless no-hash) their SHA-512 challenges alone
#include "CTokenEd25519.h"
#include "CTokenEd25519Testing.h"
#include "ed25519_internal.h"

#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;

static uint64_t next(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint32_t below(uint32_t n) { return (uint32_t)(next() % n); }

static void fill(uint8_t *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) bytes[i] = (uint8_t)next();
}

static void hex(const char *label, const uint8_t *bytes, size_t count) {
    fprintf(stderr, "  %s ", label);
    for (size_t i = 0; i < count; i++) fprintf(stderr, "%02x", bytes[i]);
    fprintf(stderr, "\n");
}

// L, the group order.
static const uint8_t order[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
};

// The points of small order, canonical: the identity, order 2, order 4 (both signs), order 8 (both
// points, both signs).
static const char *const torsion_hex[8] = {
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
};
static uint8_t torsion[8][32];

static void unhex(uint8_t *out, const char *text) {
    for (size_t i = 0; text[2 * i]; i++) sscanf(text + 2 * i, "%2hhx", &out[i]);
}

// a + b modulo 2^256.
static void add256(uint8_t out[32], const uint8_t a[32], const uint8_t b[32]) {
    unsigned carry = 0;
    for (int i = 0; i < 32; i++) {
        carry += (unsigned)a[i] + b[i];
        out[i] = (uint8_t)carry;
        carry >>= 8;
    }
}

// a − 1 modulo 2^256.
static void minus_one(uint8_t out[32], const uint8_t a[32]) {
    memcpy(out, a, 32);
    for (int i = 0; i < 32; i++) {
        if (out[i]-- != 0) break;
    }
}

enum { NORMAL_KEYS = 32, MIXED_KEYS = 64, KEYS = NORMAL_KEYS + MIXED_KEYS, MAX_MESSAGE = 300, MAX_BATCH = 128 };

typedef struct {
    uint8_t public_key[32], secret_key[64], scalar[32];  // scalar: a, for the mixed keys
    void *table;          // with its wide comb only (the verifier's table where the wide path is on)
    void *cached_table;   // with libsodium's cached comb only (the table path's where it is off)
} key;

static key keys[KEYS];

// A signature of `message` with secret scalar a under `public_key`, R = [r]B + extra (extra NULL
// or a point of small order).
static void sign_with_scalar(uint8_t signature[64], const uint8_t a[32], const uint8_t public_key[32],
                             const uint8_t *message, size_t length, const uint8_t *extra) {
    uint8_t r[32], h[64], ha[32], wide[64];
    fill(wide, 64);
    crypto_core_ed25519_scalar_reduce(r, wide);
    crypto_scalarmult_ed25519_base_noclamp(signature, r);
    if (extra != NULL) crypto_core_ed25519_add(signature, signature, extra);
    tv_ed25519_challenge_of(h, signature, public_key, message, length);
    crypto_core_ed25519_scalar_mul(ha, h, a);
    crypto_core_ed25519_scalar_add(signature + 32, r, ha);
}

static void make_keys(void) {
    for (int i = 0; i < 8; i++) unhex(torsion[i], torsion_hex[i]);
    for (int k = 0; k < KEYS; k++) {
        key *c = &keys[k];
        uint8_t seed[32];
        fill(seed, 32);
        if (k < NORMAL_KEYS) {
            crypto_sign_seed_keypair(c->public_key, c->secret_key, seed);
        } else {
            uint8_t a_point[32], wide[64];
            fill(wide, 64);
            crypto_core_ed25519_scalar_reduce(c->scalar, wide);
            crypto_scalarmult_ed25519_base_noclamp(a_point, c->scalar);
            crypto_core_ed25519_add(c->public_key, a_point, torsion[1 + (k % 7)]);
        }
        c->table = tv_ed25519_wide_table_new(c->public_key);
        c->cached_table = tv_ed25519_make_table(c->public_key, TV_ED25519_SCALAR);
        if (c->table == NULL || c->cached_table == NULL) {
            fprintf(stderr, "no wide table for key %d\n", k);
            exit(2);
        }
    }
}

#define VARIANTS(X)                                                                                                    \
    X(valid) X(flip_r) X(flip_s) X(flip_message) X(other_key) X(s_zero) X(s_one) X(s_l_minus_1) X(s_l) X(s_l_plus_1)  \
    X(s_plus_l) X(s_top_bits) X(s_below_2_252) X(s_random) X(s_reduced_random) X(r_small_order)                       \
    X(r_small_order_noncanonical) X(r_noncanonical) X(r_random) X(r_negated) X(r_plus_torsion) X(r_identity_forgery)  \
    X(mixed_key) X(mixed_key_mixed_r) X(mixed_key_tampered)
#define AS_ENUM(name) v_##name,
#define AS_NAME(name) #name,
enum { VARIANTS(AS_ENUM) VARIANT_COUNT };
static const char *const variant_names[] = {VARIANTS(AS_NAME)};

typedef struct {
    int key, variant;
    uint8_t signature[64], message[MAX_MESSAGE];
    size_t length;
} input;

static input batch[MAX_BATCH];
// Also compare R' itself with the table path's (libsodium's additions) on both tables: the wide
// comb read one entry at a time, and libsodium's cached comb (made independently of the wide comb).
static int check_sums = 1;
static int batched, batch_target;
static uint64_t checked[VARIANT_COUNT], valid[VARIANT_COUNT], mismatches, compared, sums_compared, sum_mismatches;

static void run_batch(void) {
    const void *tables[MAX_BATCH], *cached_tables[MAX_BATCH];
    const uint8_t *signatures[MAX_BATCH], *messages[MAX_BATCH];
    size_t lengths[MAX_BATCH];
    uint8_t verdicts[MAX_BATCH];
    for (int i = 0; i < batched; i++) {
        tables[i] = keys[batch[i].key].table;
        cached_tables[i] = keys[batch[i].key].cached_table;
        signatures[i] = batch[i].signature;
        messages[i] = batch[i].message;
        lengths[i] = batch[i].length;
        verdicts[i] = 0xAA;
    }
    static uint8_t wide_sums[MAX_BATCH][32], table_sums[2][MAX_BATCH][32], table_verdicts[2][MAX_BATCH];
    tv_ed25519_encodings_of(tables, messages, lengths, signatures, (size_t)batched, verdicts, wide_sums,
                            TV_ED25519_WIDE);
    if (check_sums) {
        tv_ed25519_encodings_of(tables, messages, lengths, signatures, (size_t)batched, table_verdicts[0],
                                table_sums[0], TV_ED25519_SCALAR);
        tv_ed25519_encodings_of(cached_tables, messages, lengths, signatures, (size_t)batched, table_verdicts[1],
                                table_sums[1], TV_ED25519_SCALAR);
    }
    for (int i = 0; i < batched; i++) {
        input *in = &batch[i];
        for (int t = 0; t < 2 && check_sums; t++) {
            static const uint8_t zero[32];
            sums_compared += memcmp(table_sums[t][i], zero, 32) != 0;
            if (memcmp(table_sums[t][i], wide_sums[i], 32) != 0 || table_verdicts[t][i] != verdicts[i]) {
                if (sum_mismatches++ < 5) {
                    fprintf(stderr, "R' differs (%s, %s comb)\n", variant_names[in->variant], t ? "cached" : "wide");
                    hex("table R'", table_sums[t][i], 32);
                    hex("wide R'", wide_sums[i], 32);
                    hex("signature", in->signature, 64);
                }
            }
        }
        int standard = crypto_sign_verify_detached(in->signature, in->message, in->length, keys[in->key].public_key) == 0;
        checked[in->variant]++;
        valid[in->variant] += (uint64_t)standard;
        compared++;
        if (verdicts[i] != standard) {
            if (mismatches++ < 5) {
                fprintf(stderr, "mismatch (%s): libsodium %d, wide %d\n", variant_names[in->variant], standard,
                        verdicts[i]);
                hex("key", keys[in->key].public_key, 32);
                hex("signature", in->signature, 64);
                hex("message", in->message, in->length);
            }
        }
    }
    batched = 0;
    batch_target = 1 + (int)below(MAX_BATCH);
}

static void push(const input *in) {
    batch[batched++] = *in;
    if (batched >= batch_target) run_batch();
}

// One signed message and every variant of it.
static void round_of_variants(uint64_t *remaining) {
    input base;
    base.key = (int)below(NORMAL_KEYS);
    base.length = below(MAX_MESSAGE + 1);
    fill(base.message, base.length);
    crypto_sign_detached(base.signature, NULL, base.message, base.length, keys[base.key].secret_key);
    for (int v = 0; v < VARIANT_COUNT && *remaining > 0; v++, (*remaining)--) {
        input in = base;
        uint8_t *r = in.signature, *s = in.signature + 32;
        in.variant = v;
        switch (v) {
        case v_valid: break;
        case v_flip_r: r[below(32)] ^= (uint8_t)(1 << below(8)); break;
        case v_flip_s: s[below(32)] ^= (uint8_t)(1 << below(8)); break;
        case v_flip_message:
            if (in.length == 0) in.length = 1, in.message[0] = 0;
            else in.message[below((uint32_t)in.length)] ^= (uint8_t)(1 << below(8));
            break;
        case v_other_key: in.key = (in.key + 1 + (int)below(NORMAL_KEYS - 1)) % NORMAL_KEYS; break;
        case v_s_zero: memset(s, 0, 32); break;
        case v_s_one: memset(s, 0, 32); s[0] = 1; break;
        case v_s_l_minus_1: minus_one(s, order); break;
        case v_s_l: memcpy(s, order, 32); break;
        case v_s_l_plus_1: memcpy(s, order, 32); s[0]++; break;
        case v_s_plus_l: add256(s, s, order); break;
        case v_s_top_bits: s[31] |= (uint8_t)(0x10 << below(4)); break;
        case v_s_below_2_252: fill(s, 32); s[31] &= 0x0f; break;
        case v_s_random: fill(s, 32); break;
        case v_s_reduced_random: {
            uint8_t wide[64];
            fill(wide, 64);
            crypto_core_ed25519_scalar_reduce(s, wide);
            break;
        }
        case v_r_small_order:
            memcpy(r, torsion[below(8)], 32);
            break;
        case v_r_small_order_noncanonical:
            // y + p for y = 0 or 1 (the order-4 points and the identity), either sign; y = p − 1 + p
            // does not fit, so also y = 2^255 − 1 − k near the top.
            memset(r, 0xff, 32);
            r[31] = 0x7f;
            r[0] = below(2) ? 0xed : 0xee;
            if (below(2)) r[31] |= 0x80;
            break;
        case v_r_noncanonical:
            memset(r, 0xff, 32);
            r[31] = 0x7f;
            r[0] = (uint8_t)(0xed + below(19));
            if (below(2)) r[31] |= 0x80;
            break;
        case v_r_random: fill(r, 32); break;
        case v_r_negated: r[31] ^= 0x80; break;
        case v_r_plus_torsion: crypto_core_ed25519_add(r, r, torsion[1 + below(7)]); break;
        case v_r_identity_forgery: {
            // R the identity, S = h·a: [S]B − [h]A is the identity; only the small-order check refuses it.
            uint8_t h[64];
            key *c = &keys[NORMAL_KEYS + (int)below(MIXED_KEYS)];
            in.key = (int)(c - keys);
            memset(r, 0, 32);
            r[0] = 1;
            tv_ed25519_challenge_of(h, r, c->public_key, in.message, in.length);
            crypto_core_ed25519_scalar_mul(s, h, c->scalar);
            break;
        }
        case v_mixed_key:
        case v_mixed_key_mixed_r:
        case v_mixed_key_tampered:
            in.key = NORMAL_KEYS + (int)below(MIXED_KEYS);
            sign_with_scalar(in.signature, keys[in.key].scalar, keys[in.key].public_key, in.message, in.length,
                             v == v_mixed_key_mixed_r ? torsion[1 + below(7)] : NULL);
            if (v == v_mixed_key_tampered) in.signature[below(64)] ^= (uint8_t)(1 << below(8));
            break;
        }
        push(&in);
    }
}

// Keys libsodium refuses get no table: small order (canonical or not), y ≥ p, no point.
static int refused_keys(void) {
    uint8_t candidates[8 + 19 + 64][32];
    int n = 0, failures = 0;
    for (int i = 0; i < 8; i++) memcpy(candidates[n++], torsion[i], 32);
    for (int k = 0; k < 19; k++) {
        memset(candidates[n], 0xff, 32);
        candidates[n][31] = 0x7f;
        candidates[n++][0] = (uint8_t)(0xed + k);
    }
    for (int i = 0; i < 64; i++) fill(candidates[n++], 32);  // about half are no point
    for (int i = 0; i < n; i++) {
        uint8_t signature[64], message[8] = {0};
        fill(signature, 64);
        int refused = crypto_sign_verify_detached(signature, message, 8, candidates[i]) != 0;
        void *table = tv_ed25519_wide_table_new(candidates[i]);
        // A random signature under an acceptable random key fails too; what must hold is that a
        // key with no table is one libsodium refuses (then every verdict is 0).
        if (table == NULL && !refused) failures++;
        if (i < 8 + 19 && table != NULL) failures++;
        tv_ed25519_table_free(table);
    }
    return failures;
}

static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare(uint64_t count, uint64_t seed) {
    rng_state = seed;
    int self_test = tv_ed25519_wide_self_test_with_faults(0);
    printf("wide status %d, wide self-test %d\n", tv_ed25519_wide_status(), self_test);
    if (self_test != 1) return 2;
    make_keys();
    int refusals = refused_keys();
    batch_target = 1 + (int)below(MAX_BATCH);
    double start = cpu_seconds();
    uint64_t remaining = count;
    while (remaining > 0) round_of_variants(&remaining);
    if (batched > 0) run_batch();
    printf("%llu signatures compared (seed %llu) in %.1f CPU s: %llu verdict mismatches with "
           "crypto_sign_verify_detached; refused-key check failures %d; R' compared with the table path's (on the "
           "wide comb and on libsodium's cached comb) %llu times (every one that reached the arithmetic, twice): "
           "%llu differ\n",
           (unsigned long long)compared, (unsigned long long)seed, cpu_seconds() - start,
           (unsigned long long)mismatches, refusals, (unsigned long long)sums_compared,
           (unsigned long long)sum_mismatches);
    for (int v = 0; v < VARIANT_COUNT; v++) {
        printf("  %-28s %10llu checked %10llu valid\n", variant_names[v], (unsigned long long)checked[v],
               (unsigned long long)valid[v]);
    }
    return mismatches == 0 && sum_mismatches == 0 && refusals == 0 && compared == count ? 0 : 1;
}

static int bench(int count, int passes, int key_count, int hash) {
    enum { BENCH_KEYS = 16, LENGTH = 100, BATCH = 256 };
    if (key_count < 1 || key_count > BENCH_KEYS) return 2;
    rng_state = 1;
    if (tv_ed25519_table_status() != TV_ED25519_TABLES_ON) return 2;
    printf("wide status %d\n", tv_ed25519_wide_status());
    uint8_t (*public_keys)[32] = malloc(BENCH_KEYS * 32), (*secret_keys)[64] = malloc(BENCH_KEYS * 64);
    void *tables[BENCH_KEYS];
    for (int k = 0; k < BENCH_KEYS; k++) {
        uint8_t seed[32];
        fill(seed, 32);
        crypto_sign_seed_keypair(public_keys[k], secret_keys[k], seed);
        tables[k] = tv_ed25519_table_new(public_keys[k]);
    }
    uint8_t (*signatures)[64] = malloc((size_t)count * 64), (*messages)[LENGTH] = malloc((size_t)count * LENGTH);
    const void **table_of = malloc((size_t)count * sizeof *table_of);
    const uint8_t **signature_of = malloc((size_t)count * sizeof *signature_of);
    const uint8_t **message_of = malloc((size_t)count * sizeof *message_of);
    size_t *lengths = malloc((size_t)count * sizeof *lengths);
    uint8_t *verdicts = malloc((size_t)count);
    for (int i = 0; i < count; i++) {
        int k = (int)below((uint32_t)key_count);
        fill(messages[i], LENGTH);
        crypto_sign_detached(signatures[i], NULL, messages[i], LENGTH, secret_keys[k]);
        table_of[i] = tables[k];
        signature_of[i] = signatures[i];
        message_of[i] = messages[i];
        lengths[i] = LENGTH;
    }
    double start = cpu_seconds();
    uint64_t accepted = 0;
    for (int pass = 0; pass < passes; pass++) {
        for (int i = 0; i < count; i += BATCH) {
            size_t n = (size_t)(count - i < BATCH ? count - i : BATCH);
            tv_ed25519_table_verify_many(table_of + i, message_of + i, lengths + i, signature_of + i, n, verdicts + i);
        }
        for (int i = 0; i < count; i++) accepted += verdicts[i];
    }
    double verify = cpu_seconds() - start;
    start = cpu_seconds();
    uint8_t h[64];
    for (int pass = 0; pass < passes && hash; pass++) {
        for (int i = 0; i < count; i++) tv_ed25519_challenge_of(h, signatures[i], public_keys[0], messages[i], LENGTH);
    }
    double hashing = cpu_seconds() - start;
    double total = (double)count * passes;
    printf("%.0f verifies (%llu accepted) in %.3f CPU s: %.0f signatures per CPU-second", total,
           (unsigned long long)accepted, verify, total / verify);
    if (hash) {
        printf("; SHA-512 challenge alone %.0f per CPU-second (%.1f%% of the verify time)", total / hashing,
               100.0 * hashing / verify);
    }
    printf("\n");
    return accepted == (uint64_t)total ? 0 : 1;
}

// CPU time of tv_ed25519_table_new (with the wide comb where the wide path is on), per key.
static int build(int count) {
    if (tv_ed25519_table_status() != TV_ED25519_TABLES_ON) return 2;
    uint8_t public_key[32], secret_key[64], seed[32];
    double total = 0;
    for (int k = 0; k < count; k++) {
        fill(seed, 32);
        crypto_sign_seed_keypair(public_key, secret_key, seed);
        double start = cpu_seconds();
        void *table = tv_ed25519_table_new(public_key);
        total += cpu_seconds() - start;
        if (table == NULL) return 1;
        tv_ed25519_table_free(table);
    }
    printf("wide status %d: %d tables of %zu bytes, %.3f ms of CPU each\n", tv_ed25519_wide_status(), count,
           tv_ed25519_table_size(), 1e3 * total / count);
    return 0;
}

int main(int argc, char **argv) {
    if (sodium_init() < 0) return 2;
    if (argc >= 3 && strcmp(argv[1], "compare") == 0) {
        return compare(strtoull(argv[2], NULL, 10), argc >= 4 ? strtoull(argv[3], NULL, 10) : 1);
    }
    if (argc >= 4 && strcmp(argv[1], "bench") == 0) {
        return bench(atoi(argv[2]), atoi(argv[3]), argc >= 5 ? atoi(argv[4]) : 16,
                     !(argc >= 6 && strcmp(argv[5], "no-hash") == 0));
    }
    if (argc >= 3 && strcmp(argv[1], "build") == 0) return build(atoi(argv[2]));
    if (argc >= 2 && strcmp(argv[1], "status") == 0) {
        printf("tables %d wide %d wide self-test %d\n", tv_ed25519_table_status(), tv_ed25519_wide_status(),
               tv_ed25519_wide_self_test_with_faults(0));
        return 0;
    }
    fprintf(stderr, "usage: %s compare COUNT [SEED] | bench COUNT PASSES [KEYS [no-hash]] | build COUNT | status\n",
            argv[0]);
    return 2;
}
