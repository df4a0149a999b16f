// ES256 (ECDSA P-256 with SHA-256) verification over OpenSSL 3; no private key and no signing.
//
// Everything of the verifier that handles OpenSSL objects lives here so that the Swift side sees only opaque
// pointers and byte buffers. Keys are decoded once (`tv_p256_public_key_new`); each worker makes
// its own verify context per key (`tv_p256_verify_context_new`, with EVP_PKEY_verify_init done
// once); a verification then costs one SHA-256, a range check, a DER encoding in a stack buffer and
// one EVP_PKEY_verify.
#ifndef TOKENVERIFY_CTOKENCRYPTO_H
#define TOKENVERIFY_CTOKENCRYPTO_H

#include <stddef.h>
#include <stdint.h>

// Arithmetic modulo the group order, shared by the table path here and the signer of CTokenSigning.
#include "p256_order.h"

#ifdef __cplusplus
extern "C" {
#endif

/// A P-256 public key built from its affine coordinates (32 bytes each, big-endian), or NULL if
/// the point is not on the curve (or is the point at infinity, or a coordinate is not below p).
void *tv_p256_public_key_new(const uint8_t *x, const uint8_t *y);

/// An EC key from the uncompressed point (65 bytes: 0x04‖x‖y) and, when `d` is not NULL, its
/// private scalar (32 bytes, big-endian) as a key pair, checked fully (EVP_PKEY_public_check);
/// NULL when OpenSSL refuses either. The one key construction of the verifier and CTokenSigning.
void *tv_p256_key_from_point(const uint8_t *point, const uint8_t *d);

/// Frees a key: a public key from here or a private key from CTokenSigning (NULL is allowed).
void tv_p256_key_free(void *key);

/// A verify context for `key`, initialised once; use it from one thread at a time.
void *tv_p256_verify_context_new(void *key);
void tv_p256_verify_context_free(void *context);

/// 1 when `signature` (64 bytes, r‖s big-endian as in RFC 7518 §3.4) is a valid ECDSA signature
/// with SHA-256 over `message`; 0 otherwise (including r or s zero or not below the group order).
int tv_p256_verify(void *context, const uint8_t *message, size_t message_length, const uint8_t *signature);

/// Why the per-key table path is on or off in this process (tv_p256_table_status), decided once
/// on first use: on; OpenSSL's P-256 group or the order arithmetic could not be set up; OpenSSL
/// built no precomputed table for a P-256 group (EC_GROUP_precompute_mult, deprecated in OpenSSL 3,
/// left a group without one); the start-up self-test disagreed with EVP_PKEY_verify.
enum {
    TV_P256_TABLES_ON = 1,
    TV_P256_TABLES_SETUP_FAILED = 2,
    TV_P256_TABLES_NO_PRECOMPUTE = 3,
    TV_P256_TABLES_SELF_TEST_FAILED = 4,
};

/// One of the TV_P256_TABLES_* values (runs the self-test on first call: one table built, about
/// 40 ms, and a few dozen verifies each way).
int tv_p256_table_status(void);

/// Why the 8-lane AVX-512 IFMA path (p256_wide.c) is on or off for the tables' batch verifies
/// (tv_p256_wide_status), decided once on first use: on; the CPU lacks AVX-512F, VL or IFMA, or
/// the OS does not save the ZMM registers (so under valgrind too); the environment variable
/// TOKENVERIFY_SIGNATURE_PATH is `tables` or `standard`; its self-test disagreed with
/// EVP_PKEY_verify; the table path itself is off (tv_p256_table_status).
enum {
    TV_P256_WIDE_ON = 1,
    TV_P256_WIDE_NO_CPU = 2,
    TV_P256_WIDE_FORCED_OFF = 3,
    TV_P256_WIDE_SELF_TEST_FAILED = 4,
    TV_P256_WIDE_NO_TABLES = 5,
};

/// One of the TV_P256_WIDE_* values (the first call runs the table path's self-test if it has
/// not run, then the wide one: the generator's wide table and one key's tables, about 100 ms).
int tv_p256_wide_status(void);

/// `tv_p256_wide_status` once it has been decided, else 0, without deciding it (so without the
/// self-tests): for the batch engine's check on its hot path. Every table that
/// `tv_p256_table_new` made was made after the decision.
int tv_p256_wide_status_decided(void);

/// For the tests: runs the wide path's self-test now, on the calling thread, with the path
/// deliberately broken (every verdict inverted) when `broken` is nonzero; 1 when it passed.
int tv_p256_wide_self_test_for_testing(int broken);

/// The bytes a key's wide table adds to its table when this process may take the wide path
/// (the CPU and the environment allow it; the self-test is not run): 151,616 (the table, 64-byte
/// aligned), else 0.
int tv_p256_wide_table_bytes(void);

/// The OpenSSL version this build was compiled against (OPENSSL_VERSION_STR, "3.0.2") and the
/// one running (OpenSSL_version(OPENSSL_VERSION_STRING)).
const char *tv_openssl_version_compiled(void);
const char *tv_openssl_version_running(void);

/// A per-key precomputed table for ES256 verification (see p256_table.c): a copy of the P-256
/// group whose generator is the public point (x, y) with OpenSSL's comb table built for it. NULL
/// when the table path is off (tv_p256_table_status; the caller then keeps EVP) or the point is
/// not valid. Slow (tens of milliseconds); read-only afterwards, shared by all threads.
void *tv_p256_table_new(const uint8_t *x, const uint8_t *y);
void tv_p256_table_free(void *table);

/// A worker's scratch for table verification (BN_CTX, numbers and points made once); one thread at a time.
void *tv_p256_table_scratch_new(void);
void tv_p256_table_scratch_free(void *scratch);

/// Same contract and verdict as `tv_p256_verify`, through the key's table: 1 when `signature`
/// (64 bytes r‖s) is a valid ECDSA SHA-256 signature of `message`, 0 otherwise.
int tv_p256_table_verify(void *table, void *scratch, const uint8_t *message, size_t message_length,
                         const uint8_t *signature);

/// `tv_p256_table_verify` with a hint: `inverse` (four little-endian 64-bit limbs, or NULL) is
/// taken as s⁻¹ mod n when it is the inverse of the signature's s, and s is inverted here
/// otherwise, so the verdict never depends on the hint.
int tv_p256_table_verify_hinted(void *table, void *scratch, const uint8_t *message, size_t message_length,
                                const uint8_t *signature, const uint64_t *inverse);

/// The hints for `tv_p256_table_verify_hinted` of `count` signatures, from one inversion modulo
/// n for every 64 of them instead of one each: for signature i, whose s (32 bytes big-endian) is at
/// `s_values + 32·i`, (s mod n)⁻¹ at `inverses + 4·i`; 0 (no hint) for an s ≡ 0. (A verify refuses
/// an s of n or more before it looks at a hint.)
void tv_p256_table_inverses(const uint8_t *s_values, size_t count, uint64_t *inverses);

/// Same verdicts as `tv_p256_table_verify` for `count` signatures at once: signature i (64 bytes
/// r‖s at `signatures[i]`) of `messages[i]` (`lengths[i]` bytes) under `tables[i]` (each a table
/// from `tv_p256_table_new`), its verdict (1 or 0) to `verdicts[i]`. The signatures share one
/// inversion of s for every 64, and on the wide path (tv_p256_wide_status) go through eight at a
/// time, keys mixed as they come (a last group of fewer than four goes one at a time).
void tv_p256_table_verify_many(void *const *tables, void *scratch, const uint8_t *const *messages, const size_t *lengths,
                               const uint8_t *const *signatures, size_t count, uint8_t *verdicts);

/// 1 when the 32-byte big-endian `scalar` is in [1, n-1] for the P-256 group order n.
int tv_p256_scalar_in_range(const uint8_t *scalar);

#ifdef __cplusplus
}
#endif

#endif
