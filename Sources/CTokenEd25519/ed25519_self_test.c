// The start-up self-test of the Ed25519 table path (ed25519_table.c): the libsodium 1.0.18
// behaviours the table path must repeat, compared with crypto_sign_verify_detached on a fixed key
// (about 60 verifies each way, a few milliseconds once per process): valid signatures, among them
// one whose S and one whose h have a non-zero digit in the top comb window; bytes of R, S and the
// message flipped; S + L; the identity as R; and two forgeries the checks on small order exist
// for, which the point arithmetic alone would accept: R the identity with S = h·a (so that
// [S]B − [h]A is the identity), and the identity as the key with R = B and S = 1. The same inputs
// again as one batch (tv_ed25519_verify_many). `faults` puts TV_ED25519_FAULT_* flags into the
// path, so that the tests see each broken path fail it.
#include "CTokenEd25519.h"
#include "CTokenEd25519Testing.h"
#include "ed25519_internal.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#if SODIUM_LIBRARY_VERSION_MAJOR == 10 && SODIUM_LIBRARY_VERSION_MINOR == 3
enum { BATCH = 48, MESSAGE = 96 };

// The self-test's key, its table, and the inputs kept for the batch with the standard verdicts.
typedef struct {
    uint8_t seed[32], public_key[32], secret_key[64], message[MESSAGE];
    struct ed25519_table *table;
    int faults, agreed;
    uint8_t batch_signatures[BATCH][64], batch_messages[BATCH][MESSAGE], expected[BATCH];
    int batched;
} self_test;

// Whether both paths give `s` over `m` the same verdict; keeps the input for the batch.
static int agrees(self_test *t, const uint8_t s[64], const uint8_t m[MESSAGE]) {
    int standard = crypto_sign_verify_detached(s, m, MESSAGE, t->public_key) == 0;
    if (t->batched < BATCH) {
        memcpy(t->batch_signatures[t->batched], s, 64);
        memcpy(t->batch_messages[t->batched], m, MESSAGE);
        t->expected[t->batched++] = (uint8_t)standard;
    }
    return standard == tv_ed25519_verify_faulty(t->table, m, MESSAGE, s, t->faults);
}

// Valid signatures of varied messages until both top windows were reached, the first two with
// bytes flipped; the last signature is left in `signature`. 1 when the rounds made at least two
// valid signatures and reached both top windows.
static int rounds(self_test *t, uint8_t signature[64]) {
    int valid = 0, top_s = 0, top_h = 0;
    uint8_t h[64];
    for (int round = 0; round < 64 && t->agreed && (round < 2 || !top_s || !top_h); round++) {
        t->message[0] = (uint8_t)round;
        crypto_sign_detached(signature, NULL, t->message, MESSAGE, t->secret_key);
        tv_ed25519_challenge_of(h, signature, t->public_key, t->message, MESSAGE);
        top_s |= tv_ed25519_top_digit(signature + 32);
        top_h |= tv_ed25519_top_digit(h);
        valid += crypto_sign_verify_detached(signature, t->message, MESSAGE, t->public_key) == 0;
        t->agreed = agrees(t, signature, t->message);
        for (int flip = 0; round < 2 && flip < 64 + MESSAGE && t->agreed; flip += 13) {
            uint8_t s[64], m[MESSAGE];
            memcpy(s, signature, 64);
            memcpy(m, t->message, MESSAGE);
            if (flip < 64) s[flip] ^= (uint8_t)(1 << (flip & 7));
            if (flip >= 64) m[flip - 64] ^= 1;
            t->agreed = agrees(t, s, m);
        }
    }
    return valid >= 2 && top_s && top_h;
}

// The last valid signature with S + L (not canonical), then with the identity as R (small
// order): both refused by the standard call. Then R the identity and S = h·a mod L, with a the
// key's secret scalar (SHA-512 of the seed, clamped): [S]B − [h]A is the identity, so only the
// small-order check on R refuses it.
static void edges(self_test *t, const uint8_t signature[64]) {
    static const uint8_t order[32] = {
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    };
    uint8_t s[64], h[64], az[64], a[64] = {0};
    memcpy(s, signature, 64);
    unsigned carry = 0;
    for (int i = 0; i < 32; i++) { carry += (unsigned)s[32 + i] + order[i]; s[32 + i] = (uint8_t)carry; carry >>= 8; }
    t->agreed = t->agreed && agrees(t, s, t->message);
    memcpy(s, signature, 64);
    memset(s, 0, 32);
    s[0] = 1;
    t->agreed = t->agreed && agrees(t, s, t->message);
    crypto_hash_sha512(az, t->seed, sizeof t->seed);
    az[0] &= 248;
    az[31] &= 127;
    az[31] |= 64;
    memcpy(a, az, 32);
    crypto_core_ed25519_scalar_reduce(a, a);
    memset(s, 0, 64);
    s[0] = 1;
    tv_ed25519_challenge_of(h, s, t->public_key, t->message, MESSAGE);
    crypto_core_ed25519_scalar_mul(s + 32, h, a);
    t->agreed = t->agreed && agrees(t, s, t->message);
    sodium_memzero(az, sizeof az);
    sodium_memzero(a, sizeof a);
}

// The kept inputs as one batch: each verdict the standard call's, some valid and some not.
static int batch_agrees(self_test *t) {
    const void *tables[BATCH];
    const uint8_t *signatures[BATCH], *messages[BATCH];
    size_t lengths[BATCH];
    uint8_t verdicts[BATCH];
    for (int i = 0; i < t->batched; i++) {
        tables[i] = t->table;
        signatures[i] = t->batch_signatures[i];
        messages[i] = t->batch_messages[i];
        lengths[i] = MESSAGE;
    }
    tv_ed25519_verify_many_faulty(tables, messages, lengths, signatures, (size_t)t->batched, verdicts, t->faults);
    int agreed = 1, valid = 0;
    for (int i = 0; i < t->batched; i++) {
        agreed = agreed && verdicts[i] == t->expected[i];
        valid += t->expected[i];
    }
    return agreed && t->batched >= 16 && valid >= 2 && valid < t->batched;
}

// The identity as the key, R = B and S = 1: [1]B − [h]·identity = B, so only the small-order
// check on the key refuses it.
static int neutral_key_agrees(const uint8_t message[MESSAGE], int faults) {
    static const uint8_t neutral[32] = {1};
    uint8_t s[64];
    memcpy(s, tv_ed25519_base_point, 32);
    memset(s + 32, 0, 32);
    s[32] = 1;
    return (crypto_sign_verify_detached(s, message, MESSAGE, neutral) == 0) ==
           tv_ed25519_table_verdict(neutral, message, MESSAGE, s, faults);
}

int tv_ed25519_self_test(int faults) {
    self_test *t = calloc(1, sizeof *t);  // about 10 KB, off the stack
    if (t == NULL) return 0;
    for (int i = 0; i < 32; i++) t->seed[i] = (uint8_t)(7 * i + 1);
    for (int i = 0; i < MESSAGE; i++) t->message[i] = (uint8_t)(3 * i);
    t->faults = faults;
    t->agreed = 1;
    int passed = 0;
    if (crypto_sign_seed_keypair(t->public_key, t->secret_key, t->seed) == 0 &&
        (t->table = tv_ed25519_make_table(t->public_key, faults)) != NULL) {
        uint8_t signature[64];
        int reached = rounds(t, signature);
        edges(t, signature);
        passed = t->agreed && batch_agrees(t) && neutral_key_agrees(t->message, faults) && reached;
        tv_ed25519_table_free(t->table);
    }
    sodium_memzero(t, sizeof *t);
    free(t);
    return passed;
}

// The wide self-test's batch: three keys taking turns (the third A + T, T of order 8, signed with
// A's secret scalar), so that neighbouring lanes hold different keys; first 16 valid signatures
// (two full groups of eight), then 7 tampered or valid ones (a tail of fewer than eight lanes after
// the refused ones leave, padded).
enum { WIDE_KEYS = 3, WIDE_BATCH = 23, WIDE_MESSAGE = 40 };

typedef struct {
    uint8_t public_keys[WIDE_KEYS][32], secret_key[64], az[64], a[32];
    struct ed25519_table *tables[WIDE_KEYS];
    uint8_t signatures[WIDE_BATCH][64], messages[WIDE_BATCH][WIDE_MESSAGE];
} wide_self_test;

// A signature of `message` with secret scalar a under `public_key` (R = [r]B, r from the message).
static void sign_with_scalar(uint8_t signature[64], const uint8_t a[32], const uint8_t public_key[32],
                             const uint8_t *message, size_t length) {
    uint8_t digest[64], r[32], h[64], ha[32];
    crypto_hash_sha512(digest, message, length);
    crypto_core_ed25519_scalar_reduce(r, digest);
    crypto_scalarmult_ed25519_base_noclamp(signature, r);
    tv_ed25519_challenge_of(h, signature, public_key, message, length);
    crypto_core_ed25519_scalar_mul(ha, h, a);
    crypto_core_ed25519_scalar_add(signature + 32, r, ha);
}

static int wide_batch_agrees(wide_self_test *t, int faults) {
    static const uint8_t order8[32] = {
        0x26, 0xe8, 0x95, 0x8f, 0xc2, 0xb2, 0x27, 0xb0, 0x45, 0xc3, 0xf4, 0x89, 0xf2, 0xef, 0x98, 0xf0,
        0xd5, 0xdf, 0xac, 0x05, 0xd3, 0xc6, 0x33, 0x39, 0xb1, 0x38, 0x02, 0x88, 0x6d, 0x53, 0xfc, 0x05,
    };
    uint8_t seed[32], other_secret[64];
    for (int i = 0; i < 32; i++) seed[i] = (uint8_t)(11 * i + 5);
    if (crypto_sign_seed_keypair(t->public_keys[0], t->secret_key, seed) != 0) return 0;
    seed[0] ^= 1;
    if (crypto_sign_seed_keypair(t->public_keys[1], other_secret, seed) != 0) return 0;
    seed[0] ^= 1;
    crypto_hash_sha512(t->az, seed, 32);
    t->az[0] &= 248;
    t->az[31] &= 127;
    t->az[31] |= 64;
    memcpy(t->a, t->az, 32);
    if (crypto_core_ed25519_add(t->public_keys[2], t->public_keys[0], order8) != 0) return 0;
    for (int k = 0; k < WIDE_KEYS; k++) {
        if ((t->tables[k] = tv_ed25519_make_table(t->public_keys[k], faults)) == NULL) return 0;
    }
    const void *tables[WIDE_BATCH];
    const uint8_t *signatures[WIDE_BATCH], *messages[WIDE_BATCH];
    size_t lengths[WIDE_BATCH];
    uint8_t verdicts[WIDE_BATCH];
    int agreed = 1, valid = 0;
    for (int i = 0; i < WIDE_BATCH; i++) {
        int key = i % WIDE_KEYS;
        uint8_t *s = t->signatures[i], *m = t->messages[i];
        for (int j = 0; j < WIDE_MESSAGE; j++) m[j] = (uint8_t)(i * 31 + j * 7);
        if (key == 1) crypto_sign_detached(s, NULL, m, WIDE_MESSAGE, other_secret);
        else if (key == 0) crypto_sign_detached(s, NULL, m, WIDE_MESSAGE, t->secret_key);
        else sign_with_scalar(s, t->a, t->public_keys[2], m, WIDE_MESSAGE);
        if (i == 16) s[5] ^= 4;     // R
        if (i == 17) s[40] ^= 1;    // S
        if (i == 18) m[3] ^= 1;     // the message
        if (i == 19) s[63] |= 0x80; // S ≥ 2^255: refused before the walk
        if (i == 20) { memset(s, 0, 32); s[0] = 1; }  // R the identity: refused before the walk
        tables[i] = t->tables[key];
        signatures[i] = s;
        messages[i] = m;
        lengths[i] = WIDE_MESSAGE;
    }
    tv_ed25519_verify_many_faulty(tables, messages, lengths, signatures, WIDE_BATCH, verdicts, faults);
    for (int i = 0; i < WIDE_BATCH; i++) {
        int standard =
            crypto_sign_verify_detached(signatures[i], messages[i], WIDE_MESSAGE, t->public_keys[i % WIDE_KEYS]) == 0;
        agreed = agreed && verdicts[i] == standard;
        valid += standard;
    }
    // Two of every three of the first 16 verify whatever the mixed key does, none of 16…20.
    return agreed && valid >= 11 && valid < WIDE_BATCH - 5;
}

int tv_ed25519_wide_self_test(int faults) {
    wide_self_test *t = calloc(1, sizeof *t);
    if (t == NULL) return 0;
    int passed = wide_batch_agrees(t, faults);
    for (int k = 0; k < WIDE_KEYS; k++) tv_ed25519_table_free(t->tables[k]);
    sodium_memzero(t, sizeof *t);
    free(t);
    return passed;
}
#endif
