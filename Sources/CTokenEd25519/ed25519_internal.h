// What ed25519_table.c shares with its start-up self-test (ed25519_self_test.c): the table path
// with a set of TV_ED25519_FAULT_* flags put in, and the pieces the self-test builds inputs from.
// Not a public header: the verifier calls CTokenEd25519.h only.
#ifndef TOKENVERIFY_ED25519_INTERNAL_H
#define TOKENVERIFY_ED25519_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

struct ed25519_table;

/// Not a fault: a flag for the functions below that take `faults`, to make tables with their
/// wide combs and run batches through the wide walk (ed25519_wide.c) whatever the wide path's
/// status. Above every TV_ED25519_FAULT_* flag.
/// TV_ED25519_SCALAR: the other way, every sum alone through libsodium's additions (the table
/// path) whatever the tables and the status.
enum { TV_ED25519_WIDE = 1 << 16, TV_ED25519_SCALAR = 1 << 17 };

/// The encoding of the base point B.
extern const uint8_t tv_ed25519_base_point[32];

/// The table of `public_key` (NULL where crypto_sign_verify_detached would refuse the key).
struct ed25519_table *tv_ed25519_make_table(const uint8_t *public_key, int faults);

/// The table path's verdict (1 valid, 0 not) on `signature` of `message`.
int tv_ed25519_verify_faulty(const struct ed25519_table *table, const uint8_t *message, size_t length,
                             const uint8_t *signature, int faults);

/// The batch path's verdicts, as tv_ed25519_table_verify_many.
void tv_ed25519_verify_many_faulty(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                   const uint8_t *const *signatures, size_t count, uint8_t *verdicts, int faults);

/// The batch path's verdicts, and each signature's R' encoded (32 zero bytes where the checks
/// refused it before the arithmetic), for the comparisons of the paths (scripts/compare-ed25519-wide.c).
void tv_ed25519_encodings_of(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                             const uint8_t *const *signatures, size_t count, uint8_t *verdicts,
                             uint8_t (*encodings)[32], int faults);

/// The table path's verdict for a key given by its encoding (0 when it makes no table for it).
int tv_ed25519_table_verdict(const uint8_t public_key[32], const uint8_t *message, size_t length,
                             const uint8_t signature[64], int faults);

/// h = SHA-512(R‖A‖M) mod L, in h[0..32].
void tv_ed25519_challenge_of(uint8_t h[64], const uint8_t r[32], const uint8_t public_key[32], const uint8_t *message,
                             size_t length);

/// Whether the top comb window's digit of the scalar k is non-zero.
int tv_ed25519_top_digit(const uint8_t k[32]);

/// 1 when the table path (with `faults`) agrees with crypto_sign_verify_detached on the
/// self-test's inputs (ed25519_self_test.c).
int tv_ed25519_self_test(int faults);

/// 1 when batches mixing three keys (one of mixed order), their last group padded, get
/// crypto_sign_verify_detached's verdicts through the verify_many path with `faults`
/// (ed25519_self_test.c; the wide self-test passes TV_ED25519_WIDE in `faults`).
int tv_ed25519_wide_self_test(int faults);

#endif
