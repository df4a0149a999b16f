// The ES256 wide path (Sources/CTokenCrypto/p256_wide.c) against OpenSSL, verdict by verdict.
// Built and run by scripts/compare-p256-wide (which also converts the Wycheproof vectors):
//
//   compare-p256-wide COUNT [SEED] [WYCHEPROOF.txt]   the comparisons below; exit status 1 on any disagreement
//   compare-p256-wide --bench wide|tables|evp|auto COUNT [KEYS]   COUNT verifies of valid signatures, for perf
//                                                            stat (auto: tv_p256_table_verify_many's own choice)
//
// 1. The complete mixed addition on its own, lane by lane, against EC_POINT_add: random points,
//    P = Q, P = −Q, P the point at infinity, each with a random projective Z.
// 2. COUNT signatures through tv_p256_table_verify_many_using(1, …) in batches of 1 to 100 with
//    keys mixed, each verdict against EVP_PKEY_verify (tv_p256_verify): valid ones, high S, one
//    bit of r, s or the message flipped, another key, r or s one of 0, 1, n − 1, n, n + 1,
//    p − 1, 2²⁵⁶ − 1, r + n, r and s random or swapped, and signatures built so that
//    u1·G = −u2·Q (the sum is the point at infinity) or u1·G = u2·Q.
// 3. Signatures whose R has x ≥ n (so r = x − n, the r + n < p case) or a small x, built for a key
//    made for each (Q = u2⁻¹·(R − u1·G)), with their variants.
// 4. The Wycheproof ECDSA P-256 SHA-256 P1363 vectors (each 64-byte signature through the wide
//    path, one batch for all), against EVP and against the file's result.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "CTokenCrypto.h"
#include "p256_self_test.h"
#include "p256_wide.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state;
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static void random_bytes(uint8_t *out, size_t length) {
    for (size_t i = 0; i < length; i++) out[i] = (uint8_t)next_random();
}

static EC_GROUP *curve;
static BN_CTX *ctx;
static BIGNUM *order_n, *prime_p;

static void fail(const char *what) {
    fprintf(stderr, "compare-p256-wide: %s\n", what);
    exit(2);
}

// A key: its private scalar (known, for the constructed cases), point, EVP context and table.
typedef struct {
    BIGNUM *d;
    EC_KEY *ec;
    uint8_t x[32], y[32];
    void *evp_key, *evp;
    void *table;
} key;

static void key_finish(key *k, const EC_POINT *point) {
    BIGNUM *x = BN_new(), *y = BN_new();
    if (EC_POINT_get_affine_coordinates(curve, point, x, y, ctx) != 1) fail("coordinates");
    BN_bn2binpad(x, k->x, 32);
    BN_bn2binpad(y, k->y, 32);
    BN_free(x);
    BN_free(y);
    k->evp_key = tv_p256_public_key_new(k->x, k->y);
    k->evp = k->evp_key ? tv_p256_verify_context_new(k->evp_key) : NULL;
    k->table = tv_p256_table_build_with(k->x, k->y, 1);
    if (k->evp == NULL || k->table == NULL) fail("key");
}

static void key_random(key *k) {
    k->ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    if (k->ec == NULL || EC_KEY_generate_key(k->ec) != 1) fail("generate");
    k->d = BN_dup(EC_KEY_get0_private_key(k->ec));
    key_finish(k, EC_KEY_get0_public_key(k->ec));
}

// A key from the harness's own random numbers (the same keys run after run, for --bench).
static void key_seeded(key *k) {
    uint8_t bytes[32];
    random_bytes(bytes, 32);
    k->d = BN_bin2bn(bytes, 32, NULL);
    BN_nnmod(k->d, k->d, order_n, ctx);
    if (BN_is_zero(k->d)) BN_one(k->d);
    k->ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *q = EC_POINT_new(curve);
    if (k->ec == NULL || q == NULL || EC_POINT_mul(curve, q, k->d, NULL, NULL, ctx) != 1 ||
        EC_KEY_set_private_key(k->ec, k->d) != 1 || EC_KEY_set_public_key(k->ec, q) != 1)
        fail("seeded key");
    key_finish(k, q);
    EC_POINT_free(q);
}

// An ECDSA signature with a nonce from the harness's own random numbers (for --bench: the same
// signatures run after run): r = x(k·G) mod n, s = k⁻¹·(e + r·d).
static void sign_seeded(uint8_t signature[64], const key *key_, const uint8_t *message, size_t length) {
    uint8_t digest[32], bytes[32];
    SHA256(message, length, digest);
    BIGNUM *k = BN_new(), *e = BN_bin2bn(digest, 32, NULL), *r = BN_new(), *s = BN_new(), *t = BN_new();
    EC_POINT *point = EC_POINT_new(curve);
    do {
        random_bytes(bytes, 32);
        BN_bin2bn(bytes, 32, k);
        BN_nnmod(k, k, order_n, ctx);
        EC_POINT_mul(curve, point, k, NULL, NULL, ctx);
        EC_POINT_get_affine_coordinates(curve, point, r, NULL, ctx);
        BN_nnmod(r, r, order_n, ctx);
        BN_nnmod(e, e, order_n, ctx);
        BN_mod_mul(t, r, key_->d, order_n, ctx);
        BN_mod_add(t, t, e, order_n, ctx);
        BN_mod_inverse(s, k, order_n, ctx);
        BN_mod_mul(s, s, t, order_n, ctx);
    } while (BN_is_zero(k) || BN_is_zero(r) || BN_is_zero(s));
    BN_bn2binpad(r, signature, 32);
    BN_bn2binpad(s, signature + 32, 32);
    BN_free(k);
    BN_free(e);
    BN_free(r);
    BN_free(s);
    BN_free(t);
    EC_POINT_free(point);
}

static void key_free(key *k) {
    BN_free(k->d);
    EC_KEY_free(k->ec);
    tv_p256_verify_context_free(k->evp);
    tv_p256_key_free(k->evp_key);
    tv_p256_table_free(k->table);
}

static void sign(uint8_t signature[64], const key *k, const uint8_t *message, size_t length) {
    uint8_t digest[32];
    SHA256(message, length, digest);
    ECDSA_SIG *sig = ECDSA_do_sign(digest, 32, k->ec);
    if (sig == NULL) fail("sign");
    BN_bn2binpad(ECDSA_SIG_get0_r(sig), signature, 32);
    BN_bn2binpad(ECDSA_SIG_get0_s(sig), signature + 32, 32);
    ECDSA_SIG_free(sig);
}

// 1. The mixed addition.
static void bn_limbs(uint64_t out[4], const BIGNUM *value) {
    uint8_t bytes[32];
    BN_bn2lebinpad(value, bytes, 32);
    memcpy(out, bytes, 32);
}
static void limbs_bn(BIGNUM *out, const uint64_t in[4]) { BN_lebin2bn((const uint8_t *)in, 32, out); }

static long point_tests(long rounds) {
    long failures = 0;
    BIGNUM *k = BN_new(), *x = BN_new(), *y = BN_new(), *z = BN_new(), *t = BN_new(), *u = BN_new();
    EC_POINT *a = EC_POINT_new(curve), *b = EC_POINT_new(curve), *sum = EC_POINT_new(curve);
    for (long round = 0; round < rounds; round++) {
        uint64_t p1[8][3][4], p2[8][2][4], out[8][3][4];
        int expect_infinity[8];
        BIGNUM *sx[8], *sy[8];
        for (int l = 0; l < 8; l++) {
            int kind = (int)(next_random() % 6); // 0–2 random, 3 P = Q, 4 P = −Q, 5 P at infinity
            BN_rand_range(k, order_n);
            if (BN_is_zero(k)) BN_one(k);
            EC_POINT_mul(curve, b, k, NULL, NULL, ctx);
            if (kind == 3) EC_POINT_copy(a, b);
            else if (kind == 4) {
                EC_POINT_copy(a, b);
                EC_POINT_invert(curve, a, ctx);
            } else if (kind == 5) EC_POINT_set_to_infinity(curve, a);
            else {
                BN_rand_range(k, order_n);
                if (BN_is_zero(k)) BN_one(k);
                EC_POINT_mul(curve, a, k, NULL, NULL, ctx);
            }
            EC_POINT_add(curve, sum, a, b, ctx);
            expect_infinity[l] = EC_POINT_is_at_infinity(curve, sum);
            sx[l] = BN_new();
            sy[l] = BN_new();
            if (!expect_infinity[l]) EC_POINT_get_affine_coordinates(curve, sum, sx[l], sy[l], ctx);
            // P1 projective: (x·Z, y·Z, Z) with a random Z ≠ 0, or (0, Y, 0) at infinity.
            BN_rand_range(z, prime_p);
            if (BN_is_zero(z)) BN_one(z);
            if (kind == 5) {
                BN_zero(x);
                BN_copy(y, z);
                BN_zero(z);
            } else {
                EC_POINT_get_affine_coordinates(curve, a, x, y, ctx);
                BN_mod_mul(x, x, z, prime_p, ctx);
                BN_mod_mul(y, y, z, prime_p, ctx);
            }
            bn_limbs(p1[l][0], x);
            bn_limbs(p1[l][1], y);
            bn_limbs(p1[l][2], z);
            EC_POINT_get_affine_coordinates(curve, b, x, y, ctx);
            bn_limbs(p2[l][0], x);
            bn_limbs(p2[l][1], y);
        }
        tv_p256_wide_add_for_testing(out, (const uint64_t (*)[3][4])p1, (const uint64_t (*)[2][4])p2);
        for (int l = 0; l < 8; l++) {
            limbs_bn(x, out[l][0]);
            limbs_bn(y, out[l][1]);
            limbs_bn(z, out[l][2]);
            int ok;
            if (expect_infinity[l]) {
                ok = BN_is_zero(z) && BN_is_zero(x) && !BN_is_zero(y);
            } else {
                BN_mod_mul(t, sx[l], z, prime_p, ctx);
                BN_mod_mul(u, sy[l], z, prime_p, ctx);
                ok = !BN_is_zero(z) && BN_cmp(t, x) == 0 && BN_cmp(u, y) == 0;
            }
            if (!ok) failures++;
            BN_free(sx[l]);
            BN_free(sy[l]);
        }
    }
    BN_free(k);
    BN_free(x);
    BN_free(y);
    BN_free(z);
    BN_free(t);
    BN_free(u);
    EC_POINT_free(a);
    EC_POINT_free(b);
    EC_POINT_free(sum);
    return failures;
}

// 2. Signatures, with their key and message, verified in batches.
enum { MESSAGE_MAX = 64, BATCH_MAX = 100 };
typedef struct {
    const key *k;
    uint8_t message[MESSAGE_MAX];
    size_t length;
    uint8_t signature[64];
} item;

typedef struct {
    item items[BATCH_MAX];
    int count;
    long compared, disagreements, valid, tables_compared;
    long by_kind_valid[32], by_kind[32];
    int kinds[BATCH_MAX];
} batch;

static void batch_run(batch *b, void *scratch) {
    void *tables[BATCH_MAX];
    const uint8_t *messages[BATCH_MAX], *signatures[BATCH_MAX];
    size_t lengths[BATCH_MAX];
    uint8_t verdicts[BATCH_MAX], table_verdicts[BATCH_MAX];
    for (int i = 0; i < b->count; i++) {
        tables[i] = b->items[i].k->table;
        messages[i] = b->items[i].message;
        lengths[i] = b->items[i].length;
        signatures[i] = b->items[i].signature;
    }
    memset(verdicts, 0xAA, sizeof verdicts);
    tv_p256_table_verify_many_using(1, tables, scratch, messages, lengths, signatures, (size_t)b->count, verdicts);
    int check_tables = (next_random() & 15) == 0;
    if (check_tables)
        tv_p256_table_verify_many_using(0, tables, scratch, messages, lengths, signatures, (size_t)b->count, table_verdicts);
    for (int i = 0; i < b->count; i++) {
        int expected = tv_p256_verify(b->items[i].k->evp, messages[i], lengths[i], signatures[i]) == 1;
        b->compared++;
        b->valid += expected;
        b->by_kind[b->kinds[i]]++;
        b->by_kind_valid[b->kinds[i]] += expected;
        if (verdicts[i] != expected || (check_tables && table_verdicts[i] != expected)) {
            b->disagreements++;
            if (b->disagreements <= 10) {
                fprintf(stderr, "disagreement: kind %d, EVP %d, wide %d%s, signature ", b->kinds[i], expected, verdicts[i],
                        check_tables ? (table_verdicts[i] != expected ? " (tables disagree too)" : "") : "");
                for (int j = 0; j < 64; j++) fprintf(stderr, "%02x", signatures[i][j]);
                fprintf(stderr, "\n");
            }
        }
        if (check_tables) b->tables_compared++;
    }
    b->count = 0;
}

// One of 0, 1, n − 1, n, n + 1, p − 1, 2²⁵⁶ − 1, p − n − 1 (the largest r with r + n < p).
static void edge_value(uint8_t out[32], int which) {
    BIGNUM *v = BN_new();
    switch (which) {
    case 0: BN_zero(v); break;
    case 1: BN_one(v); break;
    case 2: BN_copy(v, order_n); BN_sub_word(v, 1); break;
    case 3: BN_copy(v, order_n); break;
    case 4: BN_copy(v, order_n); BN_add_word(v, 1); break;
    case 5: BN_copy(v, prime_p); BN_sub_word(v, 1); break;
    case 6: BN_one(v); BN_lshift(v, v, 256); BN_sub_word(v, 1); break;
    default: BN_sub(v, prime_p, order_n); BN_sub_word(v, 1); break;
    }
    BN_bn2binpad(v, out, 32);
    BN_free(v);
}

// n − value, or value + n (when it fits in 32 bytes), big-endian.
static void order_minus(uint8_t out[32], const uint8_t value[32]) {
    BIGNUM *v = BN_bin2bn(value, 32, NULL);
    BN_sub(v, order_n, v);
    BN_bn2binpad(v, out, 32);
    BN_free(v);
}
static int order_plus(uint8_t out[32], const uint8_t value[32]) {
    BIGNUM *v = BN_bin2bn(value, 32, NULL);
    BN_add(v, v, order_n);
    int fits = BN_num_bytes(v) <= 32;
    if (fits) BN_bn2binpad(v, out, 32);
    BN_free(v);
    return fits;
}

// A signature for which u1·G = ∓u2·Q: with Q = d·G, u1 + u2·d ≡ 0 when r ≡ −e/d (the sum is
// the point at infinity), u1 = u2·d when r ≡ e/d (a doubling); any s.
static void sign_degenerate(uint8_t signature[64], const key *k, const uint8_t *message, size_t length, int negative) {
    uint8_t digest[32];
    SHA256(message, length, digest);
    BIGNUM *e = BN_bin2bn(digest, 32, NULL), *r = BN_new(), *s = BN_new();
    BN_nnmod(e, e, order_n, ctx);
    BN_mod_inverse(r, k->d, order_n, ctx);
    BN_mod_mul(r, r, e, order_n, ctx);
    if (negative) BN_mod_sub(r, order_n, r, order_n, ctx);
    BN_rand_range(s, order_n);
    if (BN_is_zero(s)) BN_one(s);
    BN_bn2binpad(r, signature, 32);
    BN_bn2binpad(s, signature + 32, 32);
    BN_free(e);
    BN_free(r);
    BN_free(s);
}

enum { KINDS = 20 };
static const char *kind_names[KINDS] = {
    "valid", "valid", "valid", "flip r", "flip s", "flip message", "other key", "high s", "r edge", "s edge",
    "r, s random", "r + n", "r, s swapped", "u1G = -u2Q", "u1G = u2Q", "r from another", "s edge, high s",
    "empty message", "r and s edge", "valid"};

static void make_item(item *it, int kind, const key *keys, int key_count) {
    const key *k = &keys[next_random() % (uint64_t)key_count];
    it->k = k;
    it->length = kind == 17 ? 0 : (size_t)(next_random() % (MESSAGE_MAX + 1));
    random_bytes(it->message, it->length);
    if (kind == 13 || kind == 14) {
        sign_degenerate(it->signature, k, it->message, it->length, kind == 13);
        return;
    }
    sign(it->signature, k, it->message, it->length);
    switch (kind) {
    case 3: it->signature[next_random() % 32] ^= (uint8_t)(1u << (next_random() % 8)); break;
    case 4: it->signature[32 + next_random() % 32] ^= (uint8_t)(1u << (next_random() % 8)); break;
    case 5:
        if (it->length == 0) it->length = 1, it->message[0] = 0;
        else it->message[next_random() % it->length] ^= (uint8_t)(1u << (next_random() % 8));
        break;
    case 6: it->k = &keys[(size_t)(k - keys + 1 + (long)(next_random() % (uint64_t)(key_count - 1))) % (size_t)key_count]; break;
    case 7: order_minus(it->signature + 32, it->signature + 32); break;
    case 8: edge_value(it->signature, (int)(next_random() % 8)); break;
    case 9: edge_value(it->signature + 32, (int)(next_random() % 8)); break;
    case 10: random_bytes(it->signature, 64); break;
    case 11: // r ≥ n: r + n where that fits in 32 bytes, else n + (r mod 2³²)
        if (!order_plus(it->signature, it->signature)) {
            uint8_t low[4];
            memcpy(low, it->signature + 28, 4);
            edge_value(it->signature, 3);
            BIGNUM *v = BN_bin2bn(it->signature, 32, NULL), *add = BN_bin2bn(low, 4, NULL);
            BN_add(v, v, add);
            BN_bn2binpad(v, it->signature, 32);
            BN_free(v);
            BN_free(add);
        }
        break;
    case 12: {
        uint8_t t[32];
        memcpy(t, it->signature, 32);
        memmove(it->signature, it->signature + 32, 32);
        memcpy(it->signature + 32, t, 32);
        break;
    }
    case 15: random_bytes(it->signature, 16); break;
    case 16: edge_value(it->signature + 32, 2); break; // s = n − 1 (−1), a high s
    case 18:
        edge_value(it->signature, (int)(next_random() % 8));
        edge_value(it->signature + 32, (int)(next_random() % 8));
        break;
    default: break;
    }
}

// 3. R with x ≥ n (x = n + t, t < p − n) or a small x, and a key made for it.
static int constructed_key(key *k, item *it, int large_x) {
    BIGNUM *x = BN_new(), *rhs = BN_new(), *t = BN_new(), *y = BN_new(), *r = BN_new(), *s = BN_new(), *e = BN_new();
    BIGNUM *u1 = BN_new(), *u2 = BN_new(), *w = BN_new();
    EC_POINT *R = EC_POINT_new(curve), *q = EC_POINT_new(curve);
    int found = 0;
    for (int tries = 0; tries < 200 && !found; tries++) {
        BN_sub(t, prime_p, order_n);
        BN_rand_range(x, t); // below p − n
        if (large_x) BN_add(x, x, order_n);
        // y² = x³ − 3x + b
        BN_mod_sqr(rhs, x, prime_p, ctx);
        BN_mod_mul(rhs, rhs, x, prime_p, ctx);
        BN_copy(t, x);
        BN_mul_word(t, 3);
        BN_mod_sub(rhs, rhs, t, prime_p, ctx);
        BIGNUM *b = BN_new();
        EC_GROUP_get_curve(curve, NULL, NULL, b, ctx);
        BN_mod_add(rhs, rhs, b, prime_p, ctx);
        BN_free(b);
        if (BN_mod_sqrt(y, rhs, prime_p, ctx) == NULL) {
            ERR_clear_error();
            continue;
        }
        if (EC_POINT_set_affine_coordinates(curve, R, x, y, ctx) != 1) {
            ERR_clear_error();
            continue;
        }
        found = 1;
    }
    if (found) {
        // r = x mod n, a message, s random: u1 = e/s, u2 = r/s, Q = u2⁻¹·(R − u1·G).
        BN_nnmod(r, x, order_n, ctx);
        it->length = 32;
        random_bytes(it->message, 32);
        uint8_t digest[32];
        SHA256(it->message, 32, digest);
        BN_bin2bn(digest, 32, e);
        BN_nnmod(e, e, order_n, ctx);
        BN_rand_range(s, order_n);
        if (BN_is_zero(s)) BN_one(s);
        BN_mod_inverse(w, s, order_n, ctx);
        BN_mod_mul(u1, e, w, order_n, ctx);
        BN_mod_mul(u2, r, w, order_n, ctx);
        BN_mod_inverse(w, u2, order_n, ctx);
        EC_POINT_mul(curve, q, u1, NULL, NULL, ctx);
        EC_POINT_invert(curve, q, ctx);
        EC_POINT_add(curve, q, R, q, ctx);
        EC_POINT_mul(curve, R, NULL, q, w, ctx);
        memset(k, 0, sizeof *k);
        key_finish(k, R);
        it->k = k;
        BN_bn2binpad(r, it->signature, 32);
        BN_bn2binpad(s, it->signature + 32, 32);
    }
    BN_free(x);
    BN_free(rhs);
    BN_free(t);
    BN_free(y);
    BN_free(r);
    BN_free(s);
    BN_free(e);
    BN_free(u1);
    BN_free(u2);
    BN_free(w);
    EC_POINT_free(R);
    EC_POINT_free(q);
    return found;
}

// 1b. The kernel on chosen scalars: u1 and u2 among 0, 1, 2, n − 1, n − 2, 2²⁵⁵, runs of Booth
// digits ±64 (…0100 0000 and …1100 0000 patterns) and random, lanes mixed; r = x(u1·G + u2·Q)
// mod n (expect 1 unless the sum is the point at infinity), that r + 1, or r = 1 (expect 0 mostly).
static void chosen_scalar(BIGNUM *v, int which) {
    switch (which) {
    case 0: BN_zero(v); break;
    case 1: BN_one(v); break;
    case 2: BN_set_word(v, 2); break;
    case 3: BN_copy(v, order_n); BN_sub_word(v, 1); break;
    case 4: BN_copy(v, order_n); BN_sub_word(v, 2); break;
    case 5: BN_one(v); BN_lshift(v, v, 255); break;
    case 6: // digits of +64 in every window: Σ 64·2⁷ⁱ below n
    case 7: { // a window of 65 (…1000001) in each: digit −63 and carries
        BN_zero(v);
        for (int i = 0; i < 36; i++) {
            BIGNUM *t = BN_new();
            BN_set_word(t, which == 6 ? 64 : 65);
            BN_lshift(t, t, 7 * i);
            BN_add(v, v, t);
            BN_free(t);
        }
        BN_nnmod(v, v, order_n, ctx);
        break;
    }
    default: BN_rand_range(v, order_n); break;
    }
}

static long kernel_tests(const key *keys, int key_count, long rounds, long *lanes_valid) {
    long failures = 0;
    BIGNUM *a = BN_new(), *b = BN_new(), *x = BN_new(), *q = BN_new();
    EC_POINT *sum = EC_POINT_new(curve), *Q = EC_POINT_new(curve);
    for (long round = 0; round < rounds; round++) {
        const uint64_t *tables[8];
        uint64_t u1[8][4], u2[8][4], r[8][4];
        int expected[8];
        for (int l = 0; l < 8; l++) {
            const key *k = &keys[next_random() % (uint64_t)key_count];
            tables[l] = tv_p256_table_wide_for_testing(k->table);
            chosen_scalar(a, (int)(next_random() % 10));
            chosen_scalar(b, (int)(next_random() % 10));
            if (BN_is_zero(b)) BN_one(b); // u2 = r·s⁻¹ is never 0
            BIGNUM *qx = BN_bin2bn(k->x, 32, NULL), *qy = BN_bin2bn(k->y, 32, NULL);
            EC_POINT_set_affine_coordinates(curve, Q, qx, qy, ctx);
            BN_free(qx);
            BN_free(qy);
            EC_POINT_mul(curve, sum, a, Q, b, ctx);
            int infinity = EC_POINT_is_at_infinity(curve, sum);
            int variant = (int)(next_random() % 3);
            if (!infinity) {
                EC_POINT_get_affine_coordinates(curve, sum, x, NULL, ctx);
                BN_nnmod(x, x, order_n, ctx);
            } else {
                BN_rand_range(x, order_n);
            }
            if (variant == 1) BN_add_word(x, 1);
            if (variant == 2) BN_one(x);
            BN_nnmod(x, x, order_n, ctx);
            if (BN_is_zero(x)) BN_one(x);
            // The expected verdict, from OpenSSL's point: x(sum) mod n == r and not infinity.
            if (infinity) expected[l] = 0;
            else {
                EC_POINT_get_affine_coordinates(curve, sum, q, NULL, ctx);
                BN_nnmod(q, q, order_n, ctx);
                expected[l] = BN_cmp(q, x) == 0;
            }
            bn_limbs(u1[l], a);
            bn_limbs(u2[l], b);
            bn_limbs(r[l], x);
        }
        uint8_t verdicts[8];
        tv_p256_wide_verify8(tables, (const uint64_t (*)[4])u1, (const uint64_t (*)[4])u2, (const uint64_t (*)[4])r, verdicts);
        for (int l = 0; l < 8; l++) {
            *lanes_valid += expected[l];
            if (verdicts[l] != expected[l]) failures++;
        }
    }
    BN_free(a);
    BN_free(b);
    BN_free(x);
    BN_free(q);
    EC_POINT_free(sum);
    EC_POINT_free(Q);
    return failures;
}

// 4. Wycheproof: lines "wx wy msg sig result" in hex (msg may be "-" for empty).
static int hex_decode(uint8_t *out, size_t max, const char *hex, size_t *length) {
    size_t n = strlen(hex);
    if (strcmp(hex, "-") == 0) n = 0;
    if (n % 2 != 0 || n / 2 > max) return 0;
    for (size_t i = 0; i < n / 2; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1) return 0;
        out[i] = (uint8_t)v;
    }
    *length = n / 2;
    return 1;
}

static long wycheproof(const char *path, void *scratch, long *total, long *wide_count) {
    FILE *f = fopen(path, "r");
    if (f == NULL) fail("wycheproof file");
    enum { MAX = 1024 };
    static char wx[200], wy[200], msg[4096], sig[1024], result[32];
    static uint8_t messages[MAX][2048], signatures[MAX][64];
    static size_t lengths[MAX];
    static int expected[MAX], file_valid[MAX];
    static void *tables[MAX], *contexts[MAX], *evp_keys[MAX];
    int count = 0;
    long disagreements = 0;
    uint8_t last_x[32], last_y[32];
    void *table = NULL, *evp = NULL, *evp_key = NULL;
    int have_key = 0;
    *total = 0;
    while (fscanf(f, "%199s %199s %4095s %1023s %31s", wx, wy, msg, sig, result) == 5) {
        uint8_t x[32], y[32], s[512];
        size_t xl = 0, yl = 0, ml = 0, sl = 0;
        if (!hex_decode(x, 32, wx, &xl) || !hex_decode(y, 32, wy, &yl) || xl != 32 || yl != 32) fail("wycheproof key");
        if (!hex_decode(messages[count], sizeof messages[count], msg, &ml) || !hex_decode(s, sizeof s, sig, &sl)) fail("wycheproof hex");
        (*total)++;
        if (!have_key || memcmp(x, last_x, 32) != 0 || memcmp(y, last_y, 32) != 0) {
            evp_key = tv_p256_public_key_new(x, y);
            evp = tv_p256_verify_context_new(evp_key);
            table = tv_p256_table_build_with(x, y, 1);
            if (evp == NULL || table == NULL) fail("wycheproof table");
            memcpy(last_x, x, 32);
            memcpy(last_y, y, 32);
            have_key = 1;
        }
        int is_valid = strcmp(result, "valid") == 0, is_invalid = strcmp(result, "invalid") == 0;
        if (sl != 64) {
            // Not an r‖s of 64 bytes: refused before any verify (the Swift side checks the length).
            if (is_valid) disagreements++, fprintf(stderr, "wycheproof: a valid signature of %zu bytes\n", sl);
            continue;
        }
        if (count == MAX) fail("wycheproof: too many");
        memcpy(signatures[count], s, 64);
        lengths[count] = ml;
        tables[count] = table;
        contexts[count] = evp;
        evp_keys[count] = evp_key;
        expected[count] = tv_p256_verify(evp, messages[count], ml, s) == 1;
        file_valid[count] = is_valid ? 1 : is_invalid ? 0 : -1;
        count++;
    }
    fclose(f);
    const uint8_t *mp[MAX], *sp[MAX];
    uint8_t verdicts[MAX];
    for (int i = 0; i < count; i++) mp[i] = messages[i], sp[i] = signatures[i];
    tv_p256_table_verify_many_using(1, tables, scratch, mp, lengths, sp, (size_t)count, verdicts);
    for (int i = 0; i < count; i++) {
        if (verdicts[i] != expected[i] || (file_valid[i] >= 0 && verdicts[i] != file_valid[i])) {
            disagreements++;
            fprintf(stderr, "wycheproof: item %d wide %d EVP %d file %d\n", i, verdicts[i], expected[i], file_valid[i]);
        }
    }
    (void)contexts;
    (void)evp_keys;
    *wide_count = count;
    return disagreements;
}

static void setup(void) {
    curve = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    ctx = BN_CTX_new();
    order_n = BN_new();
    prime_p = BN_new();
    if (curve == NULL || ctx == NULL || EC_GROUP_get_order(curve, order_n, ctx) != 1 ||
        EC_GROUP_get_curve(curve, prime_p, NULL, NULL, ctx) != 1)
        fail("setup");
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

// --bench PATH COUNT [KEYS]: COUNT valid signatures (made once, 4096 of them cycled) under KEYS
// keys (1: every lane the same key), verified in batches of 64 by the path given.
static int bench(const char *path, long count, int key_count) {
    enum { DISTINCT = 4096, BATCH = 64 };
    key *keys = calloc((size_t)key_count, sizeof *keys);
    double build_start = seconds();
    for (int i = 0; i < key_count; i++) key_seeded(&keys[i]);
    double build = (seconds() - build_start) / key_count, without_start = seconds();
    for (int i = 0; i < key_count; i++) tv_p256_table_free(tv_p256_table_build_with(keys[i].x, keys[i].y, 0));
    double without = (seconds() - without_start) / key_count;
    printf("a key's table: %.1f ms with its wide table, %.1f ms without (wall clock)\n", 1e3 * build, 1e3 * without);
    static item items[DISTINCT];
    for (int i = 0; i < DISTINCT; i++) {
        item *it = &items[i];
        it->k = &keys[next_random() % (uint64_t)key_count];
        it->length = 32 + (size_t)(next_random() % 33);
        random_bytes(it->message, it->length);
        sign_seeded(it->signature, it->k, it->message, it->length);
    }
    void *scratch = tv_p256_table_scratch_new();
    int wide = strcmp(path, "wide") == 0, evp = strcmp(path, "evp") == 0, automatic = strcmp(path, "auto") == 0;
    if (!wide && !evp && !automatic && strcmp(path, "tables") != 0) fail("--bench wide|tables|evp|auto");
    if (automatic) printf("auto: wide status %d\n", tv_p256_wide_status());
    long valid = 0;
    double start = seconds();
    for (long done = 0; done < count; done += BATCH) {
        void *tables[BATCH];
        const uint8_t *messages[BATCH], *signatures[BATCH];
        size_t lengths[BATCH];
        uint8_t verdicts[BATCH];
        for (int i = 0; i < BATCH; i++) {
            item *it = &items[(done + i) % DISTINCT];
            tables[i] = it->k->table;
            messages[i] = it->message;
            lengths[i] = it->length;
            signatures[i] = it->signature;
        }
        if (evp) {
            for (int i = 0; i < BATCH; i++)
                verdicts[i] = (uint8_t)tv_p256_verify(items[(done + i) % DISTINCT].k->evp, messages[i], lengths[i], signatures[i]);
        } else if (automatic) {
            tv_p256_table_verify_many(tables, scratch, messages, lengths, signatures, BATCH, verdicts);
        } else {
            tv_p256_table_verify_many_using(wide, tables, scratch, messages, lengths, signatures, BATCH, verdicts);
        }
        for (int i = 0; i < BATCH; i++) valid += verdicts[i];
    }
    double elapsed = seconds() - start;
    long verified = (count + BATCH - 1) / BATCH * BATCH;
    printf("%s: %ld verifies (%ld valid), %d keys, %.3f s, %.0f verifies/s\n", path, verified, valid, key_count, elapsed,
           (double)verified / elapsed);
    return valid == verified ? 0 : 1;
}

int main(int argc, char **argv) {
    setup();
    if (argc >= 4 && strcmp(argv[1], "--bench") == 0) {
        rng_state = 1;
        if (!tv_p256_wide_cpu() && strcmp(argv[2], "wide") == 0) fail("no AVX-512 IFMA");
        return bench(argv[2], atol(argv[3]), argc > 4 ? atoi(argv[4]) : 16);
    }
    if (argc < 2) fail("usage: compare-p256-wide COUNT [SEED] [WYCHEPROOF.txt]");
    long count = atol(argv[1]);
    rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    printf("seed %llu\n", (unsigned long long)rng_state);
    printf("cpu has AVX-512 IFMA: %d; table status %d; wide status %d; wide self-test %d\n", tv_p256_wide_cpu(),
           tv_p256_table_status(), tv_p256_wide_status(), tv_p256_wide_cpu() ? tv_p256_wide_self_test() : -1);
    if (!tv_p256_wide_cpu()) {
        printf("no AVX-512 IFMA here (or the OS does not save ZMM): the wide path is off, nothing to compare\n");
        return 0;
    }
    int failed = 0;
    double start = seconds();

    long point_rounds = count / 80 < 12500 ? 12500 : count / 80;
    if (point_rounds > 125000) point_rounds = 125000;
    long point_failures = point_tests(point_rounds);
    printf("point additions: %ld lanes, %ld wrong\n", 8 * point_rounds, point_failures);
    failed |= point_failures != 0;

    enum { KEYS = 48 };
    static key keys[KEYS];
    for (int i = 0; i < KEYS; i++) key_random(&keys[i]);
    void *scratch = tv_p256_table_scratch_new();
    long kernel_valid = 0, kernel_rounds = point_rounds / 4;
    long kernel_failures = kernel_tests(keys, KEYS, kernel_rounds, &kernel_valid);
    printf("chosen scalars (u1 = 0, 1, n - 1, Booth digit runs, ...): %ld lanes (%ld valid), %ld wrong\n", 8 * kernel_rounds,
           kernel_valid, kernel_failures);
    failed |= kernel_failures != 0;
    static batch b;
    int target = 1 + (int)(next_random() % BATCH_MAX);
    for (long i = 0; i < count; i++) {
        int kind = (int)(next_random() % KINDS);
        b.kinds[b.count] = kind;
        make_item(&b.items[b.count++], kind, keys, KEYS);
        if (b.count == target || i + 1 == count) {
            batch_run(&b, scratch);
            target = 1 + (int)(next_random() % BATCH_MAX);
        }
        if ((i + 1) % 1000000 == 0) {
            printf("  %ld signatures, %ld disagreements, %.0f s\n", i + 1, b.disagreements, seconds() - start);
            fflush(stdout);
        }
    }
    printf("randomized: %ld signatures (%ld valid per EVP), %ld disagreements with EVP_PKEY_verify; %ld also through the "
           "one-at-a-time table path\n",
           b.compared, b.valid, b.disagreements, b.tables_compared);
    for (int kind = 0; kind < KINDS; kind++)
        printf("  kind %2d %-16s %9ld signatures, %9ld valid\n", kind, kind_names[kind], b.by_kind[kind], b.by_kind_valid[kind]);
    failed |= b.disagreements != 0;

    // 3. Constructed R: 2 × CONSTRUCTED keys, each with its signature and variants.
    long constructed = count / 20000 < 64 ? 64 : count / 20000;
    if (constructed > 512) constructed = 512;
    static batch c;
    for (long i = 0; i < 2 * constructed; i++) {
        key *k = calloc(1, sizeof *k);
        item base;
        if (!constructed_key(k, &base, (int)(i & 1))) fail("constructed point");
        for (int v = 0; v < 6; v++) {
            item *it = &c.items[c.count];
            *it = base;
            c.kinds[c.count] = 0;
            switch (v) {
            case 1: order_minus(it->signature + 32, it->signature + 32); break; // −R: the same x
            case 2: order_plus(it->signature, base.signature); break;           // r + n = x itself, ≥ n
            case 3: it->signature[31] ^= 1; break;
            case 4: it->message[0] ^= 1; break;
            case 5: it->signature[63] ^= 1; break;
            default: break;
            }
            c.count++;
        }
        if (c.count + 6 > BATCH_MAX || i + 1 == 2 * constructed) batch_run(&c, scratch);
        // keys are kept (their tables are read in the batch); freed at exit
    }
    printf("constructed R (x ≥ n and small x): %ld keys, %ld signatures (%ld valid per EVP), %ld disagreements\n",
           2 * constructed, c.compared, c.valid, c.disagreements);
    failed |= c.disagreements != 0 || c.valid < 2 * constructed;

    if (argc > 3) {
        long total = 0, through_wide = 0;
        long d = wycheproof(argv[3], scratch, &total, &through_wide);
        printf("wycheproof: %ld vectors, %ld of them 64-byte signatures through the wide path, %ld disagreements\n", total,
               through_wide, d);
        failed |= d != 0;
    }
    tv_p256_table_scratch_free(scratch);
    for (int i = 0; i < KEYS; i++) key_free(&keys[i]);
    printf("%s in %.0f s\n", failed ? "FAILED" : "all agree", seconds() - start);
    return failed ? 1 : 0;
}
