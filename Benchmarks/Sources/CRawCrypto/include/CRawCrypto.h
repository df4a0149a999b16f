#ifndef C_RAW_CRYPTO_H
#define C_RAW_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/// The bare signature back ends, called directly, for the benchmark's baseline ("raw rate").
/// One bench per thread: it owns a key pair, one signature over the message and, for ES256, an
/// EVP_PKEY_CTX set up once, so the timed loop does only what a verifier must do per token.
typedef struct raw_bench raw_bench;

enum { RAW_ED25519 = 0, RAW_ES256 = 1 };

/// A bench for `algorithm` over `message`; NULL on failure.
raw_bench *raw_bench_new(int algorithm, const uint8_t *message, size_t length);

/// Verifies the signature `count` times; returns how many verified (all of them, or the
/// baseline is broken).
long raw_bench_run(raw_bench *bench, long count);

void raw_bench_free(raw_bench *bench);

#endif
