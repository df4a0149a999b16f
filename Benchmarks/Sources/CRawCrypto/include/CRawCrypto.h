#ifndef C_RAW_CRYPTO_H
#define C_RAW_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// The bare signature back ends, called directly, for the benchmark's baseline ("raw rate").
/// One bench per thread: it owns a key pair, `variants` signatures over as many messages (the
/// message with its last bytes varied) and, for ES256, an EVP_PKEY_CTX set up once, so the timed
/// loop does only what a verifier must do per token. With one variant it verifies the same
/// signature over and over, as `openssl speed` does; real tokens are all different, which costs
/// the library a few percent (branch predictors and caches no longer learn one input).
typedef struct raw_bench raw_bench;

/// RAW_ES256: SHA-256 and EVP_PKEY_verify (OpenSSL's standard verify, the efficiency's reference).
/// RAW_ES256_PER_KEY: SHA-256 and the per-key precomputed table path of tokenverify's
/// CTokenCrypto (table built once for the bench's key) as the verifier runs it on a batch: the s
/// of up to 64 signatures inverted together (tv_p256_table_inverses), then each verified with
/// its inverse as the hint (tv_p256_table_verify_hinted): its bare rate.
/// RAW_ED25519_PER_KEY: the Ed25519 per-key table path of tokenverify's CTokenEd25519 (table
/// built once for the bench's key) as the verifier runs it on a batch: 64 signatures at a time
/// through tv_ed25519_table_verify_many (their encodings sharing one field inversion for every
/// 32): its bare rate.
enum { RAW_ED25519 = 0, RAW_ES256 = 1, RAW_ES256_PER_KEY = 2, RAW_ED25519_PER_KEY = 3 };

/// A bench for `algorithm` over `variants` versions of `message`; NULL on failure.
raw_bench *raw_bench_new(int algorithm, const uint8_t *message, size_t length, int variants);

/// Verifies `count` signatures, cycling through the variants; returns how many verified (all of them, or the
/// baseline is broken).
long raw_bench_run(raw_bench *bench, long count);

void raw_bench_free(raw_bench *bench);

#endif
