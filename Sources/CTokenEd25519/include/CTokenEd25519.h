// Ed25519 verification with a per-key precomputed table, through libsodium's own group arithmetic.
//
// libsodium's crypto_sign_verify_detached computes [s]B − [h]A with a sliding window for A that it
// rebuilds (with A's decompression, a square root) on every call. A key's table holds the signed
// multiples of −A for every 6-bit window of a scalar, so that [h](−A) costs 43 additions and no
// doubling; B gets the same table once. The point arithmetic is libsodium's (ge25519_add/sub of
// libsodium.a, the functions crypto_sign_verify_detached itself is built from), except in a batch
// on a CPU with AVX-512 IFMA (the wide path, tv_ed25519_wide_status: the same additions eight
// signatures at a time, checked against crypto_sign_verify_detached at start-up); the checks on S,
// R and the key are libsodium's own functions, called in the order the standard call makes them.
#ifndef TOKENVERIFY_CTOKENED25519_H
#define TOKENVERIFY_CTOKENED25519_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Why the table path is on or off in this process (tv_ed25519_table_status), decided once on
/// first use: on; compiled out (the libsodium headers are not 1.0.18's); the shared libsodium at
/// run time is not the version of the archive the point functions come from; the start-up
/// self-test disagreed with crypto_sign_verify_detached; sodium_init or an allocation failed.
enum {
    TV_ED25519_TABLES_ON = 1,
    TV_ED25519_TABLES_NOT_COMPILED = 2,
    TV_ED25519_TABLES_OTHER_RUNTIME = 3,
    TV_ED25519_TABLES_SELF_TEST_FAILED = 4,
    TV_ED25519_TABLES_SETUP_FAILED = 5,
};

/// One of the TV_ED25519_TABLES_* values (runs the set-up and self-test on first call).
int tv_ed25519_table_status(void);

/// Why tv_ed25519_table_verify_many runs its point arithmetic eight signatures at a time with
/// AVX-512 IFMA (the wide path, ed25519_wide.c) or not (tv_ed25519_wide_status), decided once with
/// the table path: on; the table path is off; this CPU (or the OS, or this build) has no AVX-512F,
/// VL and IFMA with the ZMM state saved; TOKENVERIFY_SIGNATURE_PATH is `tables` or `standard`; the
/// wide self-test disagreed with crypto_sign_verify_detached; an allocation failed. The verdicts
/// are the same either way.
enum {
    TV_ED25519_WIDE_ON = 1,
    TV_ED25519_WIDE_NO_TABLES = 2,
    TV_ED25519_WIDE_NO_CPU = 3,
    TV_ED25519_WIDE_FORCED_OFF = 4,
    TV_ED25519_WIDE_SELF_TEST_FAILED = 5,
    TV_ED25519_WIDE_SETUP_FAILED = 6,
};

/// One of the TV_ED25519_WIDE_* values (runs the set-up and self-tests on first call).
int tv_ed25519_wide_status(void);

/// The version of Intel's multi-buffer library (libIPSec_MB.so.1, loaded with dlopen) with which
/// the wide path hashes each group's R‖A‖M eight at a time ("1.3.0"), or NULL where libsodium
/// hashes them one at a time: the library is not installed, is not version 1.3 (the layout this
/// build was compiled against), or could not make its manager on the calling thread.
const char *tv_ed25519_wide_hash_library(void);

/// The library's choice of instructions on the calling thread (5 AVX-512, 4 AVX2, 3 AVX, 2 SSE),
/// or 0 where tv_ed25519_wide_hash_library() is NULL.
int tv_ed25519_wide_hash_arch(void);

/// The libsodium version this build's headers (and libsodium.a) are: SODIUM_VERSION_STRING.
const char *tv_ed25519_libsodium_compiled(void);

/// 1 when this build has the table path: libsodium is the version whose internal point functions
/// it was written against (1.0.18), the shared library at run time is the same version as the
/// static archive the point functions come from, and the start-up self-test agreed with
/// crypto_sign_verify_detached.
int tv_ed25519_table_available(void);

/// The bytes one key's table takes.
size_t tv_ed25519_table_size(void);

/// A table for the 32-byte public key, or NULL when the path is not available or libsodium would
/// refuse the key (non-canonical, small order, not a point). About 1 ms; read-only afterwards,
/// shared by any number of threads.
void *tv_ed25519_table_new(const uint8_t *public_key);
void tv_ed25519_table_free(void *table);

/// Same contract and verdict as crypto_sign_verify_detached(signature, message, length, key) for
/// the table's key: 1 when the 64-byte `signature` verifies, 0 otherwise.
int tv_ed25519_table_verify(const void *table, const uint8_t *message, size_t message_length,
                            const uint8_t *signature);

/// `count` verifies at once: verdicts[i] is tv_ed25519_table_verify(tables[i], messages[i],
/// lengths[i], signatures[i]) (1 or 0), the points' encodings sharing one field inversion for
/// every 32 signatures instead of one each (the same canonical bytes, so the same verdicts). Where
/// tv_ed25519_wide_status() is TV_ED25519_WIDE_ON, the sums of the signatures that pass the checks
/// on S and R are computed eight at a time (the last group padded, its padding never reported).
void tv_ed25519_table_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                  const uint8_t *const *signatures, size_t count, uint8_t *verdicts);

#ifdef __cplusplus
}
#endif

#endif
