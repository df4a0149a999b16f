// P-256 private keys and OpenSSL's own ES256 signing, for the tools and the tests: a key from its
// scalar, a fresh random key, and randomised signing into the r‖s form of RFC 7518 §3.4.
#include "CTokenSigning.h"
#include "CTokenCrypto.h"

#include <string.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

// Writes the uncompressed encoding of d·G to `point` (65 bytes); 1 on success.
static int public_point_of(const BIGNUM *d, uint8_t *point) {
    int ok = 0;
    EC_GROUP *group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *q = group ? EC_POINT_new(group) : NULL;
    if (q != NULL && EC_POINT_mul(group, q, d, NULL, NULL, NULL) == 1 &&
        EC_POINT_point2oct(group, q, POINT_CONVERSION_UNCOMPRESSED, point, 65, NULL) == 65) {
        ok = 1;
    }
    EC_POINT_free(q);
    EC_GROUP_free(group);
    return ok;
}

void *tv_p256_private_key_new(const uint8_t *d_bytes, uint8_t *x, uint8_t *y) {
    if (!tv_p256_scalar_in_range(d_bytes)) return NULL;
    BIGNUM *d = BN_bin2bn(d_bytes, 32, NULL);
    uint8_t point[65];
    EVP_PKEY *key = NULL;
    if (d != NULL && public_point_of(d, point)) {
        key = tv_p256_key_from_point(point, d_bytes);
        if (key != NULL) {
            if (x != NULL) memcpy(x, point + 1, 32);
            if (y != NULL) memcpy(y, point + 33, 32);
        }
    }
    BN_clear_free(d);
    ERR_clear_error();
    return key;
}

int tv_p256_sign(void *private_key, const uint8_t *message, size_t message_length, uint8_t *signature) {
    int ok = 0;
    uint8_t der[80];
    size_t der_length = sizeof der;
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    ECDSA_SIG *sig = NULL;
    if (md == NULL) goto done;
    if (EVP_DigestSignInit_ex(md, NULL, "SHA256", NULL, NULL, (EVP_PKEY *)private_key, NULL) != 1) goto done;
    if (EVP_DigestSign(md, der, &der_length, message, message_length) != 1) goto done;
    const uint8_t *cursor = der;
    sig = d2i_ECDSA_SIG(NULL, &cursor, (long)der_length);
    if (sig == NULL) goto done;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    if (BN_bn2binpad(r, signature, 32) != 32 || BN_bn2binpad(s, signature + 32, 32) != 32) goto done;
    ok = 1;
done:
    ECDSA_SIG_free(sig);
    EVP_MD_CTX_free(md);
    ERR_clear_error();
    return ok;
}

int tv_p256_generate(uint8_t *d, uint8_t *x, uint8_t *y) {
    for (int attempt = 0; attempt < 64; attempt++) {
        if (RAND_bytes(d, 32) != 1) return 0;
        if (!tv_p256_scalar_in_range(d)) continue;
        void *key = tv_p256_private_key_new(d, x, y);
        if (key == NULL) return 0;
        tv_p256_key_free(key);
        return 1;
    }
    return 0;
}
