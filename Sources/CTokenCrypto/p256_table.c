// ES256 verification with a per-key precomputed table.
//
// OpenSSL's EVP_PKEY_verify computes u1·G + u2·Q: G has a built-in comb table in the nistz256
// code, while Q is multiplied with a window rebuilt on every call. OpenSSL can give Q the same
// kind of table: a copy of the named P-256 group whose generator is set to Q, on which
// EC_GROUP_precompute_mult builds the comb table for Q. Verification then is u1·G with the
// standard group (its built-in table), u2·Q with the key's group (the key's table), one point
// addition and the comparison of the x-coordinate with r. All curve arithmetic stays in OpenSSL;
// the scalars w = s⁻¹, u1 = e·w and u2 = r·w modulo n use p256_order.c (as the signer does), since
// OpenSSL keeps its fast inversion modulo n internal and BN_mod_inverse cost a third of a verify.
// Even so, inverting s is about a fifth of a verify, so the signatures of a batch can share one
// inversion (`tv_p256_table_inverses`, Montgomery's trick); a verify takes such a hint only
// once it has checked that the hint is its s's inverse.
//
// These EC_GROUP functions are deprecated in OpenSSL 3 but present. A table is made only when the
// copied group really holds a precomputed table afterwards (EC_GROUP_have_precompute_mult);
// otherwise `tv_p256_table_new` returns NULL and the caller keeps the EVP path. No table is made
// either unless the start-up self-test (p256_self_test.c) passed: `tv_p256_table_status`.
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include "CTokenCrypto.h"
#include "p256_digest.h"
#include "p256_order.h"
#include "p256_self_test.h"
#include "p256_wide.h"

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/sha.h>
#include <string.h>

// A key's table: the copied group with generator Q and the comb table for it. Read-only after
// construction, so any number of threads may verify with it at once.
struct p256_table {
    EC_GROUP *group_q;
    // The key's table for the 8-lane path (p256_wide.c), or NULL when that path is off.
    uint64_t *wide;
};

// The standard named group, made once: its generator uses OpenSSL's built-in table. With it,
// R² mod n for the Montgomery arithmetic modulo the order, and the field prime p.
static EC_GROUP *standard_group = NULL;
static uint64_t order_rr[4];
static BIGNUM *field_prime = NULL;
static CRYPTO_ONCE standard_group_once = CRYPTO_ONCE_STATIC_INIT;

static void make_standard_group(void) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *rr = BN_new(), *p = BN_new();
    uint8_t rr_bytes[32];
    if (group != NULL && ctx != NULL && rr != NULL && p != NULL && tv_order_self_check() && BN_set_word(rr, 1) == 1 &&
        BN_lshift(rr, rr, 512) == 1 && BN_nnmod(rr, rr, EC_GROUP_get0_order(group), ctx) == 1 &&
        BN_bn2binpad(rr, rr_bytes, 32) == 32 && EC_GROUP_get_curve(group, p, NULL, NULL, ctx) == 1) {
        tv_order_from_bytes(order_rr, rr_bytes);
        field_prime = p;
        p = NULL;
        standard_group = group;
        group = NULL;
    }
    EC_GROUP_free(group);
    BN_free(rr);
    BN_free(p);
    BN_CTX_free(ctx);
}

static const EC_GROUP *standard(void) {
    return CRYPTO_THREAD_run_once(&standard_group_once, make_standard_group) ? standard_group : NULL;
}

int tv_p256_table_setup(void) { return standard() != NULL; }

void *tv_p256_table_new(const uint8_t *x, const uint8_t *y) {
    if (tv_p256_table_status() != TV_P256_TABLES_ON) return NULL;
    return tv_p256_table_build_with(x, y, tv_p256_wide_status() == TV_P256_WIDE_ON);
}

void *tv_p256_table_build(const uint8_t *x, const uint8_t *y) { return tv_p256_table_build_with(x, y, 0); }

void *tv_p256_table_build_with(const uint8_t *x, const uint8_t *y, int wide) {
    struct p256_table *table = NULL;
    EC_GROUP *group_q = NULL;
    EC_POINT *q = NULL;
    BIGNUM *bx = BN_bin2bn(x, 32, NULL);
    BIGNUM *by = BN_bin2bn(y, 32, NULL);
    BN_CTX *ctx = BN_CTX_new();
    const EC_GROUP *base = standard();
    if (bx == NULL || by == NULL || ctx == NULL || base == NULL) goto done;
    // OpenSSL reduces a coordinate modulo p without refusing it: refuse it here, as the EVP key does.
    if (BN_cmp(bx, field_prime) >= 0 || BN_cmp(by, field_prime) >= 0) goto done;
    // EC_GROUP_dup keeps the group's method (nistz256 where OpenSSL uses it).
    group_q = EC_GROUP_dup(base);
    if (group_q == NULL) goto done;
    q = EC_POINT_new(group_q);
    if (q == NULL || EC_POINT_set_affine_coordinates(group_q, q, bx, by, ctx) != 1) goto done;
    if (EC_POINT_is_at_infinity(group_q, q) || EC_POINT_is_on_curve(group_q, q, ctx) != 1) goto done;
    if (EC_GROUP_set_generator(group_q, q, EC_GROUP_get0_order(base), EC_GROUP_get0_cofactor(base)) != 1) goto done;
    if (EC_GROUP_precompute_mult(group_q, ctx) != 1) goto done;
    // Only a group that really holds a precomputed table is worth keeping.
    if (EC_GROUP_have_precompute_mult(group_q) != 1) goto done;
    table = OPENSSL_zalloc(sizeof *table);
    if (table == NULL) goto done;
    if (wide && (table->wide = tv_p256_wide_table_build(x, y)) == NULL) {
        OPENSSL_free(table);
        table = NULL;
        goto done;
    }
    table->group_q = group_q;
    group_q = NULL;
done:
    EC_POINT_free(q);
    EC_GROUP_free(group_q);
    BN_CTX_free(ctx);
    BN_free(bx);
    BN_free(by);
    ERR_clear_error();
    return table;
}

void tv_p256_table_free(void *opaque) {
    struct p256_table *table = opaque;
    if (table == NULL) return;
    EC_GROUP_free(table->group_q);
    tv_p256_wide_table_free(table->wide);
    OPENSSL_free(table);
}

// A worker's scratch for table verification: made once per worker, used by one thread at a time.
struct p256_table_scratch {
    BN_CTX *ctx;
    EVP_MD_CTX *digest;
    BIGNUM *r, *u1, *u2, *x, *z, *t;
    EC_POINT *u1g, *u2q;
};

void tv_p256_table_scratch_free(void *opaque) {
    struct p256_table_scratch *scratch = opaque;
    if (scratch == NULL) return;
    BN_CTX_free(scratch->ctx);
    EVP_MD_CTX_free(scratch->digest);
    BN_free(scratch->r);
    BN_free(scratch->u1);
    BN_free(scratch->u2);
    BN_free(scratch->x);
    BN_free(scratch->z);
    BN_free(scratch->t);
    EC_POINT_free(scratch->u1g);
    EC_POINT_free(scratch->u2q);
    OPENSSL_free(scratch);
}

void *tv_p256_table_scratch_new(void) {
    const EC_GROUP *group = standard();
    if (group == NULL || tv_p256_sha256() == NULL) return NULL;
    struct p256_table_scratch *scratch = OPENSSL_zalloc(sizeof *scratch);
    if (scratch == NULL) return NULL;
    scratch->ctx = BN_CTX_new();
    scratch->digest = EVP_MD_CTX_new();
    scratch->r = BN_new();
    scratch->u1 = BN_new();
    scratch->u2 = BN_new();
    scratch->x = BN_new();
    scratch->z = BN_new();
    scratch->t = BN_new();
    scratch->u1g = EC_POINT_new(group);
    scratch->u2q = EC_POINT_new(group);
    if (scratch->ctx == NULL || scratch->digest == NULL || scratch->r == NULL || scratch->u1 == NULL ||
        scratch->u2 == NULL || scratch->x == NULL || scratch->z == NULL || scratch->t == NULL || scratch->u1g == NULL || scratch->u2q == NULL) {
        tv_p256_table_scratch_free(scratch);
        return NULL;
    }
    return scratch;
}

// Whether the point u1g = (X : Y : Z) in Jacobian coordinates (not at infinity) has an affine
// x = X/Z² with x mod n = r. As x < p < 2n, that is x = r, or x = r + n when r + n < p; compared
// as X = r·Z² (mod p) and X = (r + n)·Z², which spares the field inversion of the affine form.
static int tv_p256_table_x_matches(const EC_GROUP *group, struct p256_table_scratch *scratch) {
    BN_CTX *ctx = scratch->ctx;
    BIGNUM *x = scratch->x, *z = scratch->z, *t = scratch->t;
    if (EC_POINT_get_Jprojective_coordinates_GFp(group, scratch->u1g, x, NULL, z, ctx) != 1) return 0;
    if (BN_mod_sqr(z, z, field_prime, ctx) != 1) return 0;
    if (BN_mod_mul(t, scratch->r, z, field_prime, ctx) != 1) return 0;
    if (BN_cmp(t, x) == 0) return 1;
    if (BN_add(t, scratch->r, EC_GROUP_get0_order(group)) != 1 || BN_cmp(t, field_prime) >= 0) return 0;
    if (BN_mod_mul(t, t, z, field_prime, ctx) != 1) return 0;
    return BN_cmp(t, x) == 0;
}

// u1·G + u2·Q and the comparison of its x-coordinate (mod n) with r, for r and s in [1, n−1].
// `inverse` (NULL for none) is taken for w = s⁻¹ only when it is s's inverse.
static int tv_p256_table_check_signature(const struct p256_table *table, struct p256_table_scratch *scratch,
                           const uint8_t *signature, const uint8_t *digest, const uint64_t *inverse) {
    const EC_GROUP *group = standard();
    BN_CTX *ctx = scratch->ctx;
    // w = s⁻¹, u1 = e·w, u2 = r·w (mod n); e is the digest reduced modulo n.
    uint64_t r[4], s[4], e[4], w[4], u1[4], u2[4];
    uint8_t u1_bytes[32], u2_bytes[32];
    tv_order_from_bytes(r, signature);
    tv_order_from_bytes(s, signature + 32);
    tv_order_from_bytes(e, digest);
    if (inverse != NULL && tv_order_is_inverse(inverse, s)) {
        memcpy(w, inverse, sizeof w);
    } else {
        tv_order_inverse_public(w, s);
    }
    tv_order_mul(u1, e, w, order_rr);
    tv_order_mul(u2, r, w, order_rr);
    tv_order_to_bytes(u1_bytes, u1);
    tv_order_to_bytes(u2_bytes, u2);
    if (BN_bin2bn(signature, 32, scratch->r) == NULL || BN_bin2bn(u1_bytes, 32, scratch->u1) == NULL ||
        BN_bin2bn(u2_bytes, 32, scratch->u2) == NULL) return 0;
    // u1 may be 0 (e ≡ 0 mod n): 0·G is the point at infinity, which the addition handles.
    if (EC_POINT_mul(group, scratch->u1g, scratch->u1, NULL, NULL, ctx) != 1) return 0;
    if (EC_POINT_mul(table->group_q, scratch->u2q, scratch->u2, NULL, NULL, ctx) != 1) return 0;
    if (EC_POINT_add(group, scratch->u1g, scratch->u1g, scratch->u2q, ctx) != 1) return 0;
    if (EC_POINT_is_at_infinity(group, scratch->u1g)) return 0;
    return tv_p256_table_x_matches(group, scratch);
}

int tv_p256_table_verify(void *table, void *scratch, const uint8_t *message, size_t message_length,
                         const uint8_t *signature) {
    return tv_p256_table_verify_hinted(table, scratch, message, message_length, signature, NULL);
}

int tv_p256_table_verify_hinted(void *table, void *opaque_scratch, const uint8_t *message, size_t message_length,
                                const uint8_t *signature, const uint64_t *inverse) {
    struct p256_table_scratch *scratch = opaque_scratch;
    if (!tv_p256_scalar_in_range(signature) || !tv_p256_scalar_in_range(signature + 32)) return 0;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    int ok = tv_p256_digest(scratch->digest, message, message_length, digest) &&
             tv_p256_table_check_signature(table, scratch, signature, digest, inverse);
    ERR_clear_error();
    return ok ? 1 : 0;
}

// At most this many values are inverted together: the running products stay on the stack, and
// the one inversion is already spread thin (about 1/64 of its cost a signature).
enum { INVERSE_GROUP = 64 };

void tv_p256_table_inverses(const uint8_t *s_values, size_t count, uint64_t *inverses) {
    uint64_t values[INVERSE_GROUP][4], group_inverses[INVERSE_GROUP][4];
    size_t positions[INVERSE_GROUP];
    size_t grouped = 0;
    for (size_t i = 0; i < count; i++) {
        // s mod n: only 0 has no inverse (and would zero the whole product).
        uint64_t *value = values[grouped];
        tv_order_from_bytes(value, s_values + 32 * i);
        if ((value[0] | value[1] | value[2] | value[3]) != 0) {
            positions[grouped++] = i;
        } else {
            memset(inverses + 4 * i, 0, 4 * sizeof *inverses);
        }
        if (grouped == INVERSE_GROUP || (i + 1 == count && grouped > 0)) {
            tv_order_inverse_public_many(group_inverses, (const uint64_t (*)[4])values, grouped);
            for (size_t k = 0; k < grouped; k++) memcpy(inverses + 4 * positions[k], group_inverses[k], sizeof group_inverses[k]);
            grouped = 0;
        }
    }
}

// Signatures verified together: s inverted for every 64 at once (as `tv_p256_table_inverses`),
// then, on the wide path, the scalars of eight at a time handed to `tv_p256_wide_verify8`. A last
// group of four to seven fills its empty lanes with its first signature's inputs and reports only
// its own; one of fewer than four (eight lanes cost about what three verifies one at a time
// cost) is verified one at a time, as is a signature whose key has no wide table, or every
// signature off the wide path, each with its inverse as the hint. A signature with r or s
// outside [1, n − 1] is refused before any of that.
enum { WIDE_LEAST = 4 };

typedef struct {
    const uint64_t *tables[TV_P256_WIDE_LANES];
    uint64_t u1[TV_P256_WIDE_LANES][4], u2[TV_P256_WIDE_LANES][4], r[TV_P256_WIDE_LANES][4], w[TV_P256_WIDE_LANES][4];
    size_t positions[TV_P256_WIDE_LANES];
    int count;
} wide_lanes;

static void wide_flush(wide_lanes *lanes, void *const *tables, void *scratch, const uint8_t *const *messages,
                       const size_t *lengths, const uint8_t *const *signatures, uint8_t *verdicts) {
    if (lanes->count == 0) return;
    if (lanes->count < WIDE_LEAST) {
        for (int l = 0; l < lanes->count; l++) {
            size_t i = lanes->positions[l];
            verdicts[i] = (uint8_t)tv_p256_table_verify_hinted(tables[i], scratch, messages[i], lengths[i], signatures[i],
                                                               lanes->w[l]);
        }
        lanes->count = 0;
        return;
    }
    for (int l = lanes->count; l < TV_P256_WIDE_LANES; l++) {
        lanes->tables[l] = lanes->tables[0];
        memcpy(lanes->u1[l], lanes->u1[0], sizeof lanes->u1[l]);
        memcpy(lanes->u2[l], lanes->u2[0], sizeof lanes->u2[l]);
        memcpy(lanes->r[l], lanes->r[0], sizeof lanes->r[l]);
    }
    uint8_t lane_verdicts[TV_P256_WIDE_LANES];
    tv_p256_wide_verify8(lanes->tables, (const uint64_t (*)[4])lanes->u1, (const uint64_t (*)[4])lanes->u2,
                         (const uint64_t (*)[4])lanes->r, lane_verdicts);
    for (int l = 0; l < lanes->count; l++) verdicts[lanes->positions[l]] = lane_verdicts[l];
    lanes->count = 0;
}

void tv_p256_table_verify_many_using(int wide, void *const *tables, void *opaque_scratch, const uint8_t *const *messages,
                                     const size_t *lengths, const uint8_t *const *signatures, size_t count,
                                     uint8_t *verdicts) {
    struct p256_table_scratch *scratch = opaque_scratch;
    uint8_t s_values[INVERSE_GROUP * 32];
    uint64_t inverses[INVERSE_GROUP * 4];
    wide_lanes lanes;
    lanes.count = 0;
    for (size_t start = 0; start < count; start += INVERSE_GROUP) {
        size_t group = count - start < INVERSE_GROUP ? count - start : INVERSE_GROUP;
        for (size_t k = 0; k < group; k++) memcpy(s_values + 32 * k, signatures[start + k] + 32, 32);
        tv_p256_table_inverses(s_values, group, inverses);
        for (size_t k = 0; k < group; k++) {
            size_t i = start + k;
            const struct p256_table *table = tables[i];
            const uint8_t *signature = signatures[i];
            if (!wide || table->wide == NULL) {
                verdicts[i] = (uint8_t)tv_p256_table_verify_hinted(tables[i], scratch, messages[i], lengths[i], signature,
                                                                   inverses + 4 * k);
                continue;
            }
            verdicts[i] = 0;
            uint8_t digest[SHA256_DIGEST_LENGTH];
            if (!tv_p256_scalar_in_range(signature) || !tv_p256_scalar_in_range(signature + 32) ||
                !tv_p256_digest(scratch->digest, messages[i], lengths[i], digest)) {
                ERR_clear_error();
                continue;
            }
            // w = s⁻¹ (the inverse made just above for this s), u1 = e·w, u2 = r·w (mod n): three
            // Montgomery products, w·R once, then e·(wR)/R and r·(wR)/R (the same values, below n,
            // as tv_order_mul's two products each).
            uint64_t e[4], w_montgomery[4];
            int l = lanes.count;
            memcpy(lanes.w[l], inverses + 4 * k, sizeof lanes.w[l]);
            tv_order_from_bytes(lanes.r[l], signature);
            tv_order_from_bytes(e, digest);
            tv_order_mont_mul(w_montgomery, lanes.w[l], order_rr);
            tv_order_mont_mul(lanes.u1[l], e, w_montgomery);
            tv_order_mont_mul(lanes.u2[l], lanes.r[l], w_montgomery);
            lanes.tables[l] = table->wide;
            lanes.positions[l] = i;
            if (++lanes.count == TV_P256_WIDE_LANES)
                wide_flush(&lanes, tables, scratch, messages, lengths, signatures, verdicts);
        }
    }
    wide_flush(&lanes, tables, scratch, messages, lengths, signatures, verdicts);
}

void tv_p256_table_verify_many(void *const *tables, void *scratch, const uint8_t *const *messages, const size_t *lengths,
                               const uint8_t *const *signatures, size_t count, uint8_t *verdicts) {
    tv_p256_table_verify_many_using(tv_p256_wide_status() == TV_P256_WIDE_ON, tables, scratch, messages, lengths, signatures,
                                    count, verdicts);
}

const uint64_t *tv_p256_table_wide_for_testing(const void *table) {
    return table != NULL ? ((const struct p256_table *)table)->wide : NULL;
}
