// The start-up self-test of the ES256 table path (p256_table.c), run once before any key's table
// is handed out: a table for the key of RFC 6979 A.2.5 verifies that appendix's two SHA-256
// signatures ("sample", "test"), their twins with s replaced by n − s (ECDSA accepts both), and
// each with a bit of r, of s or of the message flipped, r or s zero or n, and each signature over
// the other message; every verdict must be EVP_PKEY_verify's, alone and with the hints of one
// shared inversion (as a batch verifies), and a hint that is another signature's inverse must
// change nothing. About 40 ms (the one table) and 70 verifies each way, once per process.
//
// The path rests on OpenSSL's EC_GROUP_precompute_mult, deprecated in OpenSSL 3: when an OpenSSL
// builds no table for the copied group, or its arithmetic on that table disagrees with its own
// EVP_PKEY_verify, the status says which and every key keeps EVP_PKEY_verify.
#include "CTokenCrypto.h"
#include "p256_self_test.h"
#include "p256_wide.h"

#include <openssl/crypto.h>
#include <openssl/opensslv.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum { CASES = 2 * 2 * 11 };

static const uint8_t key_x[32] = {
    0x60, 0xfe, 0xd4, 0xba, 0x25, 0x5a, 0x9d, 0x31, 0xc9, 0x61, 0xeb, 0x74, 0xc6, 0x35, 0x6d, 0x68,
    0xc0, 0x49, 0xb8, 0x92, 0x3b, 0x61, 0xfa, 0x6c, 0xe6, 0x69, 0x62, 0x2e, 0x60, 0xf2, 0x9f, 0xb6,
};
static const uint8_t key_y[32] = {
    0x79, 0x03, 0xfe, 0x10, 0x08, 0xb8, 0xbc, 0x99, 0xa4, 0x1a, 0xe9, 0xe9, 0x56, 0x28, 0xbc, 0x64,
    0xf2, 0xf1, 0xb2, 0x0c, 0x2d, 0x7e, 0x9f, 0x51, 0x77, 0xa3, 0xc2, 0x94, 0xd4, 0x46, 0x22, 0x99,
};
static const uint8_t order[32] = {
    0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xbc, 0xe6, 0xfa, 0xad, 0xa7, 0x17, 0x9e, 0x84, 0xf3, 0xb9, 0xca, 0xc2, 0xfc, 0x63, 0x25, 0x51,
};
// The signatures (r‖s) of "sample" and of "test" with SHA-256 (RFC 6979 A.2.5).
static const uint8_t signatures[2][64] = {
    {0xef, 0xd4, 0x8b, 0x2a, 0xac, 0xb6, 0xa8, 0xfd, 0x11, 0x40, 0xdd, 0x9c, 0xd4, 0x5e, 0x81, 0xd6,
     0x9d, 0x2c, 0x87, 0x7b, 0x56, 0xaa, 0xf9, 0x91, 0xc3, 0x4d, 0x0e, 0xa8, 0x4e, 0xaf, 0x37, 0x16,
     0xf7, 0xcb, 0x1c, 0x94, 0x2d, 0x65, 0x7c, 0x41, 0xd4, 0x36, 0xc7, 0xa1, 0xb6, 0xe2, 0x9f, 0x65,
     0xf3, 0xe9, 0x00, 0xdb, 0xb9, 0xaf, 0xf4, 0x06, 0x4d, 0xc4, 0xab, 0x2f, 0x84, 0x3a, 0xcd, 0xa8},
    {0xf1, 0xab, 0xb0, 0x23, 0x51, 0x83, 0x51, 0xcd, 0x71, 0xd8, 0x81, 0x56, 0x7b, 0x1e, 0xa6, 0x63,
     0xed, 0x3e, 0xfc, 0xf6, 0xc5, 0x13, 0x2b, 0x35, 0x4f, 0x28, 0xd3, 0xb0, 0xb7, 0xd3, 0x83, 0x67,
     0x01, 0x9f, 0x41, 0x13, 0x74, 0x2a, 0x2b, 0x14, 0xbd, 0x25, 0x92, 0x6b, 0x49, 0xc6, 0x49, 0x15,
     0x5f, 0x26, 0x7e, 0x60, 0xd3, 0x81, 0x4b, 0x4c, 0x0c, 0xc8, 0x42, 0x50, 0xe4, 0x6f, 0x00, 0x83},
};

// The inputs and the verdicts EVP_PKEY_verify gave them.
typedef struct {
    uint8_t signatures[CASES][64], messages[CASES][6];
    size_t lengths[CASES];
    int expected[CASES];
    size_t count;
} cases;

// out = n − value (32 bytes big-endian, value < n).
static void order_minus(uint8_t out[32], const uint8_t value[32]) {
    int borrow = 0;
    for (int i = 31; i >= 0; i--) {
        int d = order[i] - value[i] - borrow;
        borrow = d < 0;
        out[i] = (uint8_t)(d + (borrow ? 256 : 0));
    }
}

static void add(cases *c, void *evp, const uint8_t signature[64], const uint8_t *message, size_t length) {
    memcpy(c->signatures[c->count], signature, 64);
    memcpy(c->messages[c->count], message, length);
    c->lengths[c->count] = length;
    c->expected[c->count++] = tv_p256_verify(evp, message, length, signature) == 1;
}

// For each vector and its n − s twin: the signature, then each alteration of it, then it over the
// other message. 0 when EVP refuses a signature RFC 6979 says is valid.
static int make_cases(cases *c, void *evp) {
    static const char *texts[2] = {"sample", "test"};
    for (int v = 0; v < 2; v++) {
        for (int twin = 0; twin < 2; twin++) {
            uint8_t good[64], s[64];
            const uint8_t *message = (const uint8_t *)texts[v];
            size_t length = strlen(texts[v]);
            memcpy(good, signatures[v], 64);
            if (twin) order_minus(good + 32, signatures[v] + 32);
            add(c, evp, good, message, length);
            if (!c->expected[c->count - 1]) return 0;
            for (int flip = 0; flip < 64; flip += 21) {
                memcpy(s, good, 64);
                s[flip] ^= (uint8_t)(1 << (flip & 7));
                add(c, evp, s, message, length);
            }
            uint8_t altered[6];
            memcpy(altered, message, length);
            altered[0] ^= 1;
            add(c, evp, good, altered, length);
            for (int half = 0; half < 2; half++) {
                memcpy(s, good, 64);
                memset(s + 32 * half, 0, 32);
                add(c, evp, s, message, length);
                memcpy(s + 32 * half, order, 32);
                add(c, evp, s, message, length);
            }
            add(c, evp, good, (const uint8_t *)texts[1 - v], strlen(texts[1 - v]));
        }
    }
    return 1;
}

// Whether the table gives every case EVP's verdict: alone, with the shared inversion's hint, and
// with the hint of the next case's s (which a verify must notice is not its s's inverse).
static int table_agrees(void *table, void *scratch, const cases *c) {
    uint8_t s_values[CASES * 32];
    uint64_t inverses[CASES * 4];
    for (size_t i = 0; i < c->count; i++) memcpy(s_values + 32 * i, c->signatures[i] + 32, 32);
    tv_p256_table_inverses(s_values, c->count, inverses);
    for (size_t i = 0; i < c->count; i++) {
        const uint8_t *m = c->messages[i], *s = c->signatures[i];
        size_t n = c->lengths[i];
        if (tv_p256_table_verify(table, scratch, m, n, s) != c->expected[i] ||
            tv_p256_table_verify_hinted(table, scratch, m, n, s, inverses + 4 * i) != c->expected[i] ||
            tv_p256_table_verify_hinted(table, scratch, m, n, s, inverses + 4 * ((i + 1) % c->count)) != c->expected[i])
            return 0;
    }
    return 1;
}

static int status = TV_P256_TABLES_SETUP_FAILED;
static CRYPTO_ONCE status_once = CRYPTO_ONCE_STATIC_INIT;

static int wide_forced_off(void);

// Whether the wide path may run here, so that its self-test is due: the CPU has it, the
// environment does not turn it off, and the generator's wide table was made.
static int wide_may_run(void) {
    return tv_p256_wide_cpu() && !wide_forced_off() && tv_p256_wide_generator_table() != NULL;
}

// The test key's table from the tables self-test, with its wide table, where the wide path may
// run: kept for the wide self-test (decide_wide), which then makes no table of its own (each
// costs an OpenSSL precomputation, about 20 ms, while tokens wait on the standard call), and
// freed there.
static void *tested_table = NULL;

static void self_test(void) {
    static cases c;
    void *key = tv_p256_public_key_new(key_x, key_y);
    void *evp = key != NULL ? tv_p256_verify_context_new(key) : NULL;
    void *scratch = tv_p256_table_scratch_new();
    void *table = NULL;
    int wide = 0;
    if (tv_p256_table_setup() && evp != NULL && scratch != NULL) {
        if (wide_may_run()) wide = (table = tv_p256_table_build_with(key_x, key_y, 1)) != NULL;
        if (table == NULL) table = tv_p256_table_build(key_x, key_y);
        if (table == NULL) {
            status = TV_P256_TABLES_NO_PRECOMPUTE;
        } else {
            c.count = 0;
            int agreed = make_cases(&c, evp) && table_agrees(table, scratch, &c);
            status = agreed ? TV_P256_TABLES_ON : TV_P256_TABLES_SELF_TEST_FAILED;
        }
    }
    if (status == TV_P256_TABLES_ON && wide) {
        tested_table = table;
        table = NULL;
    }
    tv_p256_table_free(table);
    tv_p256_table_scratch_free(scratch);
    tv_p256_verify_context_free(evp);
    tv_p256_key_free(key);
}

int tv_p256_table_status(void) {
    return CRYPTO_THREAD_run_once(&status_once, self_test) ? status : TV_P256_TABLES_SETUP_FAILED;
}

// Whether the batch verify through the wide path, `tv_p256_table_verify_many_using(1, …)`, gives
// every case EVP's verdict with `table` (the test key's, with its wide table): 44 signatures, five
// full groups of eight and one of four, so the padding of a group's empty lanes is taken too, and
// again in reverse order (other lane mixes).
static int wide_agrees(void *table, void *scratch, const cases *c) {
    void *tables[CASES];
    const uint8_t *messages[CASES], *signatures[CASES];
    size_t lengths[CASES];
    uint8_t verdicts[CASES];
    for (int order = 0; order < 2; order++) {
        for (size_t i = 0; i < c->count; i++) {
            size_t from = order == 0 ? i : c->count - 1 - i;
            tables[i] = table;
            messages[i] = c->messages[from];
            lengths[i] = c->lengths[from];
            signatures[i] = c->signatures[from];
        }
        tv_p256_table_verify_many_using(1, tables, scratch, messages, lengths, signatures, c->count, verdicts);
        for (size_t i = 0; i < c->count; i++) {
            if (verdicts[i] != c->expected[order == 0 ? i : c->count - 1 - i]) return 0;
        }
    }
    return 1;
}

// The wide path's self-test with `table` (the test key's, with its wide table), or, where it is
// NULL, a table made for it: every case of the tables self-test through the wide batch verify.
static int wide_self_test_with(void *table) {
    void *key = tv_p256_public_key_new(key_x, key_y);
    void *evp = key != NULL ? tv_p256_verify_context_new(key) : NULL;
    void *scratch = tv_p256_table_scratch_new();
    void *made = NULL;
    int passed = 0;
    if (tv_p256_table_setup() && evp != NULL && scratch != NULL && tv_p256_wide_cpu() &&
        tv_p256_wide_generator_table() != NULL) {
        if (table == NULL) table = made = tv_p256_table_build_with(key_x, key_y, 1);
        cases *mine = malloc(sizeof *mine);
        if (table != NULL && mine != NULL) {
            mine->count = 0;
            passed = make_cases(mine, evp) && wide_agrees(table, scratch, mine);
        }
        free(mine);
    }
    tv_p256_table_free(made);
    tv_p256_table_scratch_free(scratch);
    tv_p256_verify_context_free(evp);
    tv_p256_key_free(key);
    return passed;
}

int tv_p256_wide_self_test(void) { return wide_self_test_with(NULL); }

int tv_p256_wide_self_test_for_testing(int broken) {
    tv_p256_wide_break_for_testing(broken);
    int passed = tv_p256_wide_self_test();
    tv_p256_wide_break_for_testing(0);
    return passed;
}

// Whether TOKENVERIFY_SIGNATURE_PATH turns the wide path off: `tables` (the per-key tables, one
// signature at a time) or `standard`.
static int wide_forced_off(void) {
    const char *forced = getenv("TOKENVERIFY_SIGNATURE_PATH");
    return forced != NULL && (strcmp(forced, "tables") == 0 || strcmp(forced, "standard") == 0);
}

static int wide_status = TV_P256_WIDE_NO_TABLES;
static CRYPTO_ONCE wide_status_once = CRYPTO_ONCE_STATIC_INIT;
// The status once decided (0 before), for `tv_p256_wide_status_decided`.
static _Atomic int wide_status_known = 0;

static void decide_wide(void) {
    if (!tv_p256_wide_cpu()) {
        wide_status = TV_P256_WIDE_NO_CPU;
    } else if (wide_forced_off()) {
        wide_status = TV_P256_WIDE_FORCED_OFF;
    } else if (tv_p256_table_status() != TV_P256_TABLES_ON) {
        wide_status = TV_P256_WIDE_NO_TABLES;
    } else {
        wide_status = wide_self_test_with(tested_table) ? TV_P256_WIDE_ON : TV_P256_WIDE_SELF_TEST_FAILED;
    }
    tv_p256_table_free(tested_table);
    tested_table = NULL;
    atomic_store_explicit(&wide_status_known, wide_status, memory_order_release);
}

int tv_p256_wide_status(void) {
    return CRYPTO_THREAD_run_once(&wide_status_once, decide_wide) ? wide_status : TV_P256_WIDE_NO_TABLES;
}

int tv_p256_wide_status_decided(void) { return atomic_load_explicit(&wide_status_known, memory_order_acquire); }

int tv_p256_wide_table_bytes(void) {
    return tv_p256_wide_cpu() && !wide_forced_off() ? TV_P256_WIDE_TABLE_BYTES + 64 : 0;
}

const char *tv_openssl_version_compiled(void) { return OPENSSL_VERSION_STR; }

const char *tv_openssl_version_running(void) { return OpenSSL_version(OPENSSL_VERSION_STRING); }
