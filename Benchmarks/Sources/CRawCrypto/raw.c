#include "CRawCrypto.h"
// tokenverify's per-key table paths (the root package's _CTokenVerification product).
#include "CTokenCrypto.h"
#include "CTokenEd25519.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

struct raw_bench {
    int algorithm;
    int variants;
    long next;
    uint8_t *messages;          /* variants × length: the message with its last bytes varied */
    size_t length;
    /* Ed25519 */
    unsigned char public_key[crypto_sign_PUBLICKEYBYTES];
    unsigned char *signatures;  /* variants × 64 */
    /* ES256: DER signatures, verify context and SHA-256 fetched once */
    unsigned char *ders;        /* variants × 80 */
    size_t *der_lengths;
    EVP_PKEY *pkey;
    EVP_PKEY_CTX *context;
    EVP_MD *sha256;
    /* ES256 per key: the key's table, a scratch, and the signatures as r‖s (in `signatures`) */
    void *table;
    void *scratch;
    /* Ed25519 per key: the key's table */
    void *ed25519_table;
};

/* The per-key path's parts for the bench's key: its table, a scratch and the r‖s signatures. */
static int set_up_per_key(raw_bench *bench) {
    uint8_t x[32], y[32];
    BIGNUM *bx = NULL, *by = NULL;
    int ok = EVP_PKEY_get_bn_param(bench->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &bx) == 1 &&
             EVP_PKEY_get_bn_param(bench->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &by) == 1 &&
             BN_bn2binpad(bx, x, 32) == 32 && BN_bn2binpad(by, y, 32) == 32;
    BN_free(bx);
    BN_free(by);
    bench->table = ok ? tv_p256_table_new(x, y) : NULL;
    bench->scratch = tv_p256_table_scratch_new();
    bench->signatures = malloc(64 * (size_t)bench->variants);
    ok = bench->table && bench->scratch && bench->signatures;
    for (int v = 0; ok && v < bench->variants; v++) {
        const unsigned char *der = bench->ders + 80 * v;
        ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &der, (long)bench->der_lengths[v]);
        ok = sig && BN_bn2binpad(ECDSA_SIG_get0_r(sig), bench->signatures + 64 * v, 32) == 32 &&
             BN_bn2binpad(ECDSA_SIG_get0_s(sig), bench->signatures + 64 * v + 32, 32) == 32;
        ECDSA_SIG_free(sig);
    }
    return ok;
}

raw_bench *raw_bench_new(int algorithm, const uint8_t *message, size_t length, int variants) {
    if (sodium_init() < 0 || variants < 1) return NULL;
    raw_bench *bench = calloc(1, sizeof *bench);
    if (!bench) return NULL;
    bench->algorithm = algorithm;
    bench->variants = variants;
    bench->length = length;
    bench->messages = malloc((length ? length : 1) * (size_t)variants);
    for (int v = 0; v < variants; v++) {
        uint8_t *m = bench->messages + (size_t)v * length;
        memcpy(m, message, length);
        for (size_t i = 0; i < 4 && i < length; i++) m[length - 1 - i] = (uint8_t)(v >> (8 * i));
    }
    if (algorithm == RAW_ED25519 || algorithm == RAW_ED25519_PER_KEY) {
        unsigned char secret_key[crypto_sign_SECRETKEYBYTES];
        crypto_sign_keypair(bench->public_key, secret_key);
        bench->signatures = malloc(64 * (size_t)variants);
        for (int v = 0; v < variants; v++) {
            crypto_sign_detached(bench->signatures + 64 * v, NULL, bench->messages + (size_t)v * length, length, secret_key);
        }
        if (algorithm == RAW_ED25519_PER_KEY && (bench->ed25519_table = tv_ed25519_table_new(bench->public_key)) == NULL) {
            raw_bench_free(bench);
            return NULL;
        }
        return bench;
    }
    bench->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    bench->sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
    bench->ders = malloc(80 * (size_t)variants);
    bench->der_lengths = malloc(sizeof(size_t) * (size_t)variants);
    int ok = bench->pkey && bench->sha256 && bench->ders && bench->der_lengths;
    for (int v = 0; ok && v < variants; v++) {
        EVP_MD_CTX *sign = EVP_MD_CTX_new();
        bench->der_lengths[v] = 80;
        ok = sign && EVP_DigestSignInit(sign, NULL, bench->sha256, NULL, bench->pkey) == 1
            && EVP_DigestSign(sign, bench->ders + 80 * v, &bench->der_lengths[v], bench->messages + (size_t)v * length, length) == 1;
        EVP_MD_CTX_free(sign);
    }
    bench->context = ok ? EVP_PKEY_CTX_new(bench->pkey, NULL) : NULL;
    if (!bench->context || EVP_PKEY_verify_init(bench->context) != 1 ||
        (algorithm == RAW_ES256_PER_KEY && !set_up_per_key(bench))) {
        raw_bench_free(bench);
        return NULL;
    }
    return bench;
}

/* The per-key ES256 path as the verifier runs a batch: up to 64 signatures' s inverted together
   (tv_p256_table_inverses), then each verified with its inverse as the hint. */
static long run_es256_per_key_batches(raw_bench *bench, long count) {
    long verified = 0;
    while (count > 0) {
        long group = count < 64 ? count : 64;
        uint8_t s_values[64 * 32];
        uint64_t inverses[64 * 4];
        for (long i = 0; i < group; i++) {
            int v = (int)((bench->next + i) % bench->variants);
            memcpy(s_values + 32 * i, bench->signatures + 64 * v + 32, 32);
        }
        tv_p256_table_inverses(s_values, (size_t)group, inverses);
        for (long i = 0; i < group; i++) {
            int v = (int)(bench->next++ % bench->variants);
            const uint8_t *m = bench->messages + (size_t)v * bench->length;
            verified += tv_p256_table_verify_hinted(bench->table, bench->scratch, m, bench->length,
                                                    bench->signatures + 64 * v, inverses + 4 * i);
        }
        count -= group;
    }
    return verified;
}

/* The per-key Ed25519 path as the verifier runs a batch: up to 64 signatures verified together
   (tv_ed25519_table_verify_many, their encodings sharing one field inversion for every 32). */
static long run_ed25519_per_key_batches(raw_bench *bench, long count) {
    long verified = 0;
    while (count > 0) {
        long group = count < 64 ? count : 64;
        const void *tables[64];
        const uint8_t *messages[64], *signatures[64];
        size_t lengths[64];
        uint8_t verdicts[64];
        for (long i = 0; i < group; i++) {
            int v = (int)(bench->next++ % bench->variants);
            tables[i] = bench->ed25519_table;
            messages[i] = bench->messages + (size_t)v * bench->length;
            lengths[i] = bench->length;
            signatures[i] = bench->signatures + 64 * v;
        }
        tv_ed25519_table_verify_many(tables, messages, lengths, signatures, (size_t)group, verdicts);
        for (long i = 0; i < group; i++) verified += verdicts[i];
        count -= group;
    }
    return verified;
}

long raw_bench_run(raw_bench *bench, long count) {
    if (bench->algorithm == RAW_ES256_PER_KEY) return run_es256_per_key_batches(bench, count);
    if (bench->algorithm == RAW_ED25519_PER_KEY) return run_ed25519_per_key_batches(bench, count);
    long verified = 0;
    for (long i = 0; i < count; i++) {
        int v = (int)(bench->next++ % bench->variants);
        const uint8_t *m = bench->messages + (size_t)v * bench->length;
        if (bench->algorithm == RAW_ED25519) {
            verified += crypto_sign_verify_detached(bench->signatures + 64 * v, m, bench->length, bench->public_key) == 0;
        } else {
            unsigned char digest[32];
            unsigned int digest_length = 0;
            if (EVP_Digest(m, bench->length, digest, &digest_length, bench->sha256, NULL) != 1) continue;
            verified += EVP_PKEY_verify(bench->context, bench->ders + 80 * v, bench->der_lengths[v], digest, digest_length) == 1;
        }
    }
    return verified;
}

void raw_bench_free(raw_bench *bench) {
    if (!bench) return;
    tv_p256_table_free(bench->table);
    tv_ed25519_table_free(bench->ed25519_table);
    tv_p256_table_scratch_free(bench->scratch);
    EVP_PKEY_CTX_free(bench->context);
    EVP_PKEY_free(bench->pkey);
    EVP_MD_free(bench->sha256);
    free(bench->messages);
    free(bench->signatures);
    free(bench->ders);
    free(bench->der_lengths);
    free(bench);
}
