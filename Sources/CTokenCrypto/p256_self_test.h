// The ES256 table path's start-up self-test (p256_self_test.c) and the table builder it runs
// before any table is handed out; internal.
#ifndef TOKENVERIFY_P256_SELF_TEST_H
#define TOKENVERIFY_P256_SELF_TEST_H

#include <stdint.h>

/// 1 when the standard group and the order arithmetic are set up (p256_table.c).
int tv_p256_table_setup(void);

/// A table for (x, y) whatever the self-test said: `tv_p256_table_new` without the status check.
void *tv_p256_table_build(const uint8_t *x, const uint8_t *y);

#endif
