// For the tests only: the Ed25519 table path's start-up self-test run on deliberately broken
// paths, to show that it catches each (Tests/TokenVerifierTests/Ed25519TableSelfTestTests).
// Exposed as the explicit submodule CTokenEd25519.Testing, which the verifier does not import.
#ifndef TOKENVERIFY_CTOKENED25519_TESTING_H
#define TOKENVERIFY_CTOKENED25519_TESTING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// Faults that tv_ed25519_self_test_with_faults puts into the table path (for the tests): skip the
/// small-order check on R, skip the small-order check on the key, leave out the top comb window.
/// The WIDE ones go into the 8-lane walk (tv_ed25519_wide_self_test_with_faults): leave out its
/// top window, give the last lane the first lane's key, take the negated entries without negating
/// 2d·x·y, flip a bit of the last lane's SHA-512 digest.
enum {
    TV_ED25519_FAULT_SKIP_SMALL_ORDER_R = 1,
    TV_ED25519_FAULT_SKIP_SMALL_ORDER_KEY = 2,
    TV_ED25519_FAULT_DROP_TOP_WINDOW = 4,
    TV_ED25519_FAULT_WIDE_DROP_TOP_WINDOW = 8,
    TV_ED25519_FAULT_WIDE_LANE_KEY = 16,
    TV_ED25519_FAULT_WIDE_SKIP_NEGATE = 32,
    TV_ED25519_FAULT_WIDE_HASH = 64,
};

/// For the tests: 1 when the start-up self-test passes on the table path with `faults` (a set of
/// the flags above) put in; with 0, the verifier's own path. Each fault must make it fail.
int tv_ed25519_self_test_with_faults(int faults);

/// For the tests: the wide path's self-tests (the table self-test's inputs as batches through the
/// 8-lane walk, and batches mixing keys with a padded tail) with `faults` put in: 1 passed, 0
/// failed, −1 when this CPU has no AVX-512 IFMA or the table path is off (nothing to test).
int tv_ed25519_wide_self_test_with_faults(int faults);

/// For the tests: a table with its wide comb whatever TOKENVERIFY_SIGNATURE_PATH says (NULL as
/// tv_ed25519_table_new, and when tv_ed25519_wide_self_test_with_faults(0) would be −1); free with
/// tv_ed25519_table_free.
void *tv_ed25519_wide_table_new(const uint8_t *public_key);

/// For the tests: tv_ed25519_table_verify_many through the 8-lane walk whatever
/// TOKENVERIFY_SIGNATURE_PATH says, for tables from tv_ed25519_wide_table_new.
void tv_ed25519_wide_verify_many(const void *const *tables, const uint8_t *const *messages, const size_t *lengths,
                                 const uint8_t *const *signatures, size_t count, uint8_t *verdicts);

/// The longest R‖A‖M the wide path's multi-buffer hashing takes; longer ones go to libsodium.
enum { TV_ED25519_HASH_SCRATCH_FOR_TESTING = 8192 - 64 };

/// For the tests: digests[64l…64l+63] = SHA-512(r[l] ‖ a[l] ‖ messages[l]) for l < count (at most
/// 8) as the wide path hashes a group (Intel's multi-buffer library, libsodium past its scratch).
void tv_ed25519_hash_lanes_for_testing(uint8_t *digests, const uint8_t *const r[], const uint8_t *const a[],
                                       const uint8_t *const messages[], const size_t lengths[], int count);

#ifdef __cplusplus
}
#endif

#endif
