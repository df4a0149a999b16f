// ES256 signing for generated token sets: deterministic (RFC 6979) and OpenSSL's own (the raw
// rate reference). OpenSSL 3.0 has no deterministic ECDSA and takes no caller-chosen nonce through
// its non-deprecated API, so the deterministic signer computes the signature itself from public,
// non-deprecated building blocks: the nonce k by RFC 6979 §3.2 (HMAC-DRBG with SHA-256 over the key
// and the digest), R = k·G with EC_POINT_mul (OpenSSL's constant-time fixed-base multiplication),
// r = R.x mod n, s = k⁻¹·(z + r·d) mod n with the fixed-size arithmetic of p256_order.c. It is
// written for synthetic sets (`gen`, tests) and has not had the scrutiny of OpenSSL's own signing,
// which `tokenverify sign` keeps using for real keys.
#include "CTokenSigning.h"
#include "CTokenCrypto.h"
#include "p256_order.h"

#include <string.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>

#define DIGEST_LENGTH 32
#define BLOCK_LENGTH 64

static EVP_MD *signing_sha256_md = NULL;
static CRYPTO_ONCE signing_sha256_once = CRYPTO_ONCE_STATIC_INIT;
static void fetch_signing_sha256(void) { signing_sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL); }
static const EVP_MD *signing_sha256(void) {
    return CRYPTO_THREAD_run_once(&signing_sha256_once, fetch_signing_sha256) ? signing_sha256_md : NULL;
}

struct deterministic_signer {
    EC_GROUP *group;
    EC_POINT *point;
    BN_CTX *bn;
    BIGNUM *k, *x;
    uint64_t d[4], rr[4];
    uint8_t d_bytes[32];
    EVP_MD_CTX *digest;
};

void tv_p256_deterministic_signer_free(void *opaque) {
    struct deterministic_signer *signer = opaque;
    if (signer == NULL) return;
    EC_POINT_free(signer->point);
    EC_GROUP_free(signer->group);
    BN_clear_free(signer->k);
    BN_free(signer->x);
    BN_CTX_free(signer->bn);
    EVP_MD_CTX_free(signer->digest);
    OPENSSL_cleanse(signer->d_bytes, sizeof signer->d_bytes);
    OPENSSL_cleanse(signer->d, sizeof signer->d);
    OPENSSL_free(signer);
}

void *tv_p256_deterministic_signer_new(const uint8_t *d) {
    if (!tv_p256_scalar_in_range(d) || signing_sha256() == NULL || !tv_order_self_check()) return NULL;
    struct deterministic_signer *signer = OPENSSL_zalloc(sizeof *signer);
    if (signer == NULL) return NULL;
    memcpy(signer->d_bytes, d, 32);
    signer->group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    signer->point = signer->group ? EC_POINT_new(signer->group) : NULL;
    signer->bn = BN_CTX_new();
    signer->k = BN_new();
    signer->x = BN_new();
    signer->digest = EVP_MD_CTX_new();
    // R² mod n for R = 2²⁵⁶
    BIGNUM *order = BN_new(), *rr = BN_new();
    uint8_t rr_bytes[32];
    int ok = signer->point && signer->bn && signer->k && signer->x && signer->digest && order && rr &&
             EC_GROUP_get_order(signer->group, order, signer->bn) == 1 && BN_set_word(rr, 1) == 1 &&
             BN_lshift(rr, rr, 512) == 1 && BN_nnmod(rr, rr, order, signer->bn) == 1 && BN_bn2binpad(rr, rr_bytes, 32) == 32;
    BN_free(order);
    BN_free(rr);
    if (!ok) {
        tv_p256_deterministic_signer_free(signer);
        ERR_clear_error();
        return NULL;
    }
    tv_order_from_bytes(signer->rr, rr_bytes);
    tv_order_from_bytes(signer->d, d);
    BN_set_flags(signer->k, BN_FLG_CONSTTIME);
    return signer;
}

// SHA-256 of up to three parts.
static int sha256_parts(EVP_MD_CTX *md, const uint8_t *a, size_t a_length, const uint8_t *b, size_t b_length,
                        const uint8_t *c, size_t c_length, uint8_t *out) {
    unsigned int length = 0;
    return EVP_DigestInit_ex2(md, signing_sha256(), NULL) == 1 && EVP_DigestUpdate(md, a, a_length) == 1 &&
           (b_length == 0 || EVP_DigestUpdate(md, b, b_length) == 1) &&
           (c_length == 0 || EVP_DigestUpdate(md, c, c_length) == 1) && EVP_DigestFinal_ex(md, out, &length) == 1 &&
           length == DIGEST_LENGTH;
}

// HMAC-SHA256 (RFC 2104) with a 32-byte key over `message`.
static int hmac_sha256(EVP_MD_CTX *md, const uint8_t *key, const uint8_t *message, size_t length, uint8_t *out) {
    uint8_t pad[BLOCK_LENGTH], inner[DIGEST_LENGTH];
    memset(pad, 0x36, sizeof pad);
    for (int i = 0; i < DIGEST_LENGTH; i++) pad[i] ^= key[i];
    if (!sha256_parts(md, pad, sizeof pad, message, length, NULL, 0, inner)) return 0;
    memset(pad, 0x5c, sizeof pad);
    for (int i = 0; i < DIGEST_LENGTH; i++) pad[i] ^= key[i];
    return sha256_parts(md, pad, sizeof pad, inner, sizeof inner, NULL, 0, out);
}

// Big-endian a - b for 32-byte values (a ≥ b).
static void subtract_32(uint8_t *a, const uint8_t *b) {
    int borrow = 0;
    for (int i = 31; i >= 0; i--) {
        int value = (int)a[i] - (int)b[i] - borrow;
        borrow = value < 0;
        a[i] = (uint8_t)(value + (borrow ? 256 : 0));
    }
}

// The P-256 order n, big-endian.
static const uint8_t order_bytes[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
};

// RFC 6979 §3.2 steps b–h for qlen = hlen = 256: the HMAC-DRBG state K, V after seeding.
static int drbg_seed(EVP_MD_CTX *md, const uint8_t *d, const uint8_t *h1, uint8_t *K, uint8_t *V) {
    uint8_t h1_reduced[32], material[32 + 1 + 32 + 32];
    memcpy(h1_reduced, h1, 32);
    if (memcmp(h1_reduced, order_bytes, 32) >= 0) subtract_32(h1_reduced, order_bytes); // bits2octets
    memset(V, 0x01, 32);
    memset(K, 0x00, 32);
    for (uint8_t separator = 0; separator <= 1; separator++) {
        memcpy(material, V, 32);
        material[32] = separator;
        memcpy(material + 33, d, 32);
        memcpy(material + 65, h1_reduced, 32);
        if (!hmac_sha256(md, K, material, sizeof material, K)) return 0;
        if (!hmac_sha256(md, K, V, 32, V)) return 0;
    }
    OPENSSL_cleanse(material, sizeof material);
    return 1;
}

// The next candidate after a rejected one (step h.3): K = HMAC_K(V || 0x00), V = HMAC_K(V).
static int drbg_reseed(EVP_MD_CTX *md, uint8_t *K, uint8_t *V) {
    uint8_t material[33];
    memcpy(material, V, 32);
    material[32] = 0x00;
    return hmac_sha256(md, K, material, sizeof material, K) && hmac_sha256(md, K, V, 32, V);
}

static int is_zero(const uint64_t a[4]) { return (a[0] | a[1] | a[2] | a[3]) == 0; }

int tv_p256_sign_digest_deterministic(void *opaque, const uint8_t *digest, uint8_t *signature, uint8_t *nonce) {
    struct deterministic_signer *signer = opaque;
    uint8_t K[32], V[32], x_bytes[32];
    uint64_t k[4], kinv[4], r[4], s[4], z[4];
    int ok = 0;
    if (!drbg_seed(signer->digest, signer->d_bytes, digest, K, V)) goto done;
    tv_order_from_bytes(z, digest);
    for (int attempt = 0; attempt < 64; attempt++) {
        if (attempt > 0 && !drbg_reseed(signer->digest, K, V)) goto done;
        if (!hmac_sha256(signer->digest, K, V, 32, V)) goto done; // T = V (one block: qlen = hlen)
        if (!tv_p256_scalar_in_range(V)) continue;
        // R = k·G, r = R.x mod n
        if (BN_bin2bn(V, 32, signer->k) == NULL ||
            EC_POINT_mul(signer->group, signer->point, signer->k, NULL, NULL, signer->bn) != 1 ||
            EC_POINT_get_affine_coordinates(signer->group, signer->point, signer->x, NULL, signer->bn) != 1 ||
            BN_bn2binpad(signer->x, x_bytes, 32) != 32) goto done;
        tv_order_from_bytes(r, x_bytes);
        if (is_zero(r)) continue;
        // s = k⁻¹ (z + r·d) mod n
        tv_order_from_bytes(k, V);
        tv_order_inverse(kinv, k, signer->rr);
        tv_order_mul(s, r, signer->d, signer->rr);
        tv_order_add(s, s, z);
        tv_order_mul(s, s, kinv, signer->rr);
        if (is_zero(s)) continue;
        tv_order_to_bytes(signature, r);
        tv_order_to_bytes(signature + 32, s);
        if (nonce != NULL) memcpy(nonce, V, 32);
        ok = 1;
        break;
    }
done:
    OPENSSL_cleanse(K, sizeof K);
    OPENSSL_cleanse(V, sizeof V);
    OPENSSL_cleanse(k, sizeof k);
    OPENSSL_cleanse(kinv, sizeof kinv);
    BN_zero(signer->k);
    ERR_clear_error();
    return ok;
}

int tv_p256_sign_deterministic(void *opaque, const uint8_t *message, size_t message_length, uint8_t *signature) {
    struct deterministic_signer *signer = opaque;
    uint8_t digest[DIGEST_LENGTH];
    if (!sha256_parts(signer->digest, message, message_length, NULL, 0, NULL, 0, digest)) {
        ERR_clear_error();
        return 0;
    }
    return tv_p256_sign_digest_deterministic(signer, digest, signature, NULL);
}

// OpenSSL's own ES256 signing, set up once per worker: the reference for the raw signing rate.
struct openssl_signer {
    EVP_PKEY_CTX *pkey;
    EVP_MD_CTX *digest;
};

void tv_p256_openssl_signer_free(void *opaque) {
    struct openssl_signer *signer = opaque;
    if (signer == NULL) return;
    EVP_PKEY_CTX_free(signer->pkey);
    EVP_MD_CTX_free(signer->digest);
    OPENSSL_free(signer);
}

void *tv_p256_openssl_signer_new(void *private_key) {
    struct openssl_signer *signer = OPENSSL_zalloc(sizeof *signer);
    if (signer == NULL || signing_sha256() == NULL) goto fail;
    signer->pkey = EVP_PKEY_CTX_new_from_pkey(NULL, (EVP_PKEY *)private_key, NULL);
    signer->digest = EVP_MD_CTX_new();
    if (signer->pkey == NULL || signer->digest == NULL || EVP_PKEY_sign_init(signer->pkey) <= 0) goto fail;
    return signer;
fail:
    tv_p256_openssl_signer_free(signer);
    ERR_clear_error();
    return NULL;
}

int tv_p256_openssl_sign(void *opaque, const uint8_t *message, size_t message_length) {
    struct openssl_signer *signer = opaque;
    uint8_t digest[DIGEST_LENGTH], der[80];
    size_t der_length = sizeof der;
    if (!sha256_parts(signer->digest, message, message_length, NULL, 0, NULL, 0, digest) ||
        EVP_PKEY_sign(signer->pkey, der, &der_length, digest, sizeof digest) != 1) {
        ERR_clear_error();
        return 0;
    }
    return 1;
}
