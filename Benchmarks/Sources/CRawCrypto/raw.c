#include "CRawCrypto.h"

#include <openssl/evp.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

struct raw_bench {
    int algorithm;
    uint8_t *message;
    size_t length;
    /* Ed25519 */
    unsigned char public_key[crypto_sign_PUBLICKEYBYTES];
    unsigned char signature[crypto_sign_BYTES];
    /* ES256: DER signature, verify context and SHA-256 fetched once */
    unsigned char der[80];
    size_t der_length;
    EVP_PKEY *pkey;
    EVP_PKEY_CTX *context;
    EVP_MD *sha256;
};

raw_bench *raw_bench_new(int algorithm, const uint8_t *message, size_t length) {
    if (sodium_init() < 0) return NULL;
    raw_bench *bench = calloc(1, sizeof *bench);
    if (!bench) return NULL;
    bench->algorithm = algorithm;
    bench->message = malloc(length ? length : 1);
    memcpy(bench->message, message, length);
    bench->length = length;
    if (algorithm == RAW_ED25519) {
        unsigned char secret_key[crypto_sign_SECRETKEYBYTES];
        crypto_sign_keypair(bench->public_key, secret_key);
        crypto_sign_detached(bench->signature, NULL, message, length, secret_key);
        return bench;
    }
    bench->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    bench->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    EVP_MD_CTX *sign = EVP_MD_CTX_new();
    bench->der_length = sizeof bench->der;
    int ok = bench->pkey && bench->sha256 && sign
        && EVP_DigestSignInit(sign, NULL, bench->sha256, NULL, bench->pkey) == 1
        && EVP_DigestSign(sign, bench->der, &bench->der_length, message, length) == 1;
    EVP_MD_CTX_free(sign);
    bench->context = ok ? EVP_PKEY_CTX_new(bench->pkey, NULL) : NULL;
    if (!bench->context || EVP_PKEY_verify_init(bench->context) != 1) {
        raw_bench_free(bench);
        return NULL;
    }
    return bench;
}

long raw_bench_run(raw_bench *bench, long count) {
    long verified = 0;
    for (long i = 0; i < count; i++) {
        if (bench->algorithm == RAW_ED25519) {
            verified += crypto_sign_verify_detached(bench->signature, bench->message, bench->length, bench->public_key) == 0;
        } else {
            unsigned char digest[32];
            unsigned int digest_length = 0;
            if (EVP_Digest(bench->message, bench->length, digest, &digest_length, bench->sha256, NULL) != 1) continue;
            verified += EVP_PKEY_verify(bench->context, bench->der, bench->der_length, digest, digest_length) == 1;
        }
    }
    return verified;
}

void raw_bench_free(raw_bench *bench) {
    if (!bench) return;
    EVP_PKEY_CTX_free(bench->context);
    EVP_PKEY_free(bench->pkey);
    EVP_MD_free(bench->sha256);
    free(bench->message);
    free(bench);
}
