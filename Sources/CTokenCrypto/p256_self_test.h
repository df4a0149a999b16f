// The ES256 table path's start-up self-test (p256_self_test.c) and the table builder it runs
// before any table is handed out; internal.
#ifndef TOKENVERIFY_P256_SELF_TEST_H
#define TOKENVERIFY_P256_SELF_TEST_H

#include <stddef.h>
#include <stdint.h>

/// 1 when the standard group and the order arithmetic are set up (p256_table.c).
int tv_p256_table_setup(void);

/// A table for (x, y) whatever the self-test said: `tv_p256_table_new` without the status check.
void *tv_p256_table_build(const uint8_t *x, const uint8_t *y);

/// The table with, when `wide` is nonzero, the key's table for the 8-lane path (p256_wide.c).
void *tv_p256_table_build_with(const uint8_t *x, const uint8_t *y, int wide);

/// `tv_p256_table_verify_many` on the wide path (`wide` nonzero, for the tables that have a wide
/// table) or one signature at a time, whatever the wide path's status.
void tv_p256_table_verify_many_using(int wide, void *const *tables, void *scratch, const uint8_t *const *messages,
                                     const size_t *lengths, const uint8_t *const *signatures, size_t count,
                                     uint8_t *verdicts);

/// The key's wide table inside `table` (NULL when it has none), for the comparison harness.
const uint64_t *tv_p256_table_wide_for_testing(const void *table);

/// The wide path's self-test, run now (the status runs it once): 1 when every case gets
/// EVP_PKEY_verify's verdict through `tv_p256_table_verify_many_using(1, …)`.
int tv_p256_wide_self_test(void);

#endif
