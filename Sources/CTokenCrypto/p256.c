// ES256 verification through OpenSSL 3: public keys from their coordinates, a verify context per
// key and worker, and r‖s signatures checked with EVP_PKEY_verify (the standard path).
#include "CTokenCrypto.h"
#include "p256_digest.h"

#include <string.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/sha.h>

// The order n of the P-256 group, big-endian.
static const uint8_t p256_order[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
};

int tv_p256_scalar_in_range(const uint8_t *scalar) {
    int nonzero = 0;
    for (int i = 0; i < 32; i++) nonzero |= scalar[i];
    if (!nonzero) return 0;
    for (int i = 0; i < 32; i++) {
        if (scalar[i] < p256_order[i]) return 1;
        if (scalar[i] > p256_order[i]) return 0;
    }
    return 0; // equal to n
}

void *tv_p256_key_from_point(const uint8_t *point, const uint8_t *d_bytes) {
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    BIGNUM *d = NULL;
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = NULL;
    EVP_PKEY *key = NULL;
    if (builder == NULL) goto done;
    if (!OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0)) goto done;
    if (!OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, 65)) goto done;
    if (d_bytes != NULL) {
        d = BN_bin2bn(d_bytes, 32, NULL);
        if (d == NULL || !OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, d)) goto done;
    }
    params = OSSL_PARAM_BLD_to_param(builder);
    if (params == NULL) goto done;
    ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0) goto done;
    int selection = d_bytes != NULL ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY;
    if (EVP_PKEY_fromdata(ctx, &key, selection, params) <= 0) {
        key = NULL;
        goto done;
    }
    // fromdata decodes the point (which checks that it is on the curve); check it fully anyway.
    EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
    int ok = check != NULL && EVP_PKEY_public_check(check) == 1;
    EVP_PKEY_CTX_free(check);
    if (!ok) {
        EVP_PKEY_free(key);
        key = NULL;
    }
done:
    EVP_PKEY_CTX_free(ctx);
    OSSL_PARAM_free(params);
    BN_clear_free(d);
    OSSL_PARAM_BLD_free(builder);
    ERR_clear_error();
    return key;
}

void *tv_p256_public_key_new(const uint8_t *x, const uint8_t *y) {
    uint8_t point[65];
    point[0] = 0x04;
    memcpy(point + 1, x, 32);
    memcpy(point + 33, y, 32);
    return tv_p256_key_from_point(point, NULL);
}

void tv_p256_key_free(void *key) { EVP_PKEY_free((EVP_PKEY *)key); }

static EVP_MD *sha256_md = NULL;
static CRYPTO_ONCE sha256_once = CRYPTO_ONCE_STATIC_INIT;

static void fetch_sha256(void) { sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL); }

const EVP_MD *tv_p256_sha256(void) {
    return CRYPTO_THREAD_run_once(&sha256_once, fetch_sha256) ? sha256_md : NULL;
}

int tv_p256_digest(EVP_MD_CTX *context, const uint8_t *message, size_t message_length, uint8_t digest[32]) {
    unsigned int digest_length = 0;
    if (EVP_DigestInit_ex2(context, tv_p256_sha256(), NULL) != 1 ||
        EVP_DigestUpdate(context, message, message_length) != 1 ||
        EVP_DigestFinal_ex(context, digest, &digest_length) != 1 || digest_length != SHA256_DIGEST_LENGTH) {
        ERR_clear_error();
        return 0;
    }
    return 1;
}

// A worker's verify state for one key: the key's verify context, initialised once, and a
// digest context for SHA-256.
struct verify_context {
    EVP_PKEY_CTX *pkey;
    EVP_MD_CTX *digest;
};

void *tv_p256_verify_context_new(void *key) {
    struct verify_context *context = OPENSSL_zalloc(sizeof *context);
    if (context == NULL || tv_p256_sha256() == NULL) goto fail;
    context->pkey = EVP_PKEY_CTX_new_from_pkey(NULL, (EVP_PKEY *)key, NULL);
    context->digest = EVP_MD_CTX_new();
    if (context->pkey == NULL || context->digest == NULL) goto fail;
    if (EVP_PKEY_verify_init(context->pkey) <= 0) goto fail;
    return context;
fail:
    tv_p256_verify_context_free(context);
    ERR_clear_error();
    return NULL;
}

void tv_p256_verify_context_free(void *opaque) {
    struct verify_context *context = opaque;
    if (context == NULL) return;
    EVP_PKEY_CTX_free(context->pkey);
    EVP_MD_CTX_free(context->digest);
    OPENSSL_free(context);
}

// Appends a DER INTEGER holding the unsigned big-endian 32-byte value; returns the bytes written.
static size_t der_integer(uint8_t *out, const uint8_t *value) {
    size_t start = 0;
    while (start < 31 && value[start] == 0) start++;
    size_t length = 32 - start;
    int pad = (value[start] & 0x80) != 0;
    out[0] = 0x02;
    out[1] = (uint8_t)(length + pad);
    size_t i = 2;
    if (pad) out[i++] = 0x00;
    memcpy(out + i, value + start, length);
    return i + length;
}

int tv_p256_verify(void *opaque, const uint8_t *message, size_t message_length, const uint8_t *signature) {
    struct verify_context *context = opaque;
    if (!tv_p256_scalar_in_range(signature) || !tv_p256_scalar_in_range(signature + 32)) return 0;
    uint8_t digest[SHA256_DIGEST_LENGTH];
    if (!tv_p256_digest(context->digest, message, message_length, digest)) return 0;
    uint8_t der[72];
    size_t body = der_integer(der + 2, signature);
    body += der_integer(der + 2 + body, signature + 32);
    der[0] = 0x30;
    der[1] = (uint8_t)body;
    int result = EVP_PKEY_verify(context->pkey, der, body + 2, digest, sizeof digest);
    if (result != 1) {
        ERR_clear_error();
        return 0;
    }
    return 1;
}

/* Background threads (the per-key table builder, the ES256 self-test) may still be inside
 * libcrypto when the process exits; OpenSSL's own atexit clean-up would then free its state
 * under them (a crash at exit). The process's exit frees everything anyway: no clean-up is
 * registered. Runs before main, ahead of any other OpenSSL call. */
__attribute__((constructor)) static void tv_openssl_without_atexit_cleanup(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
