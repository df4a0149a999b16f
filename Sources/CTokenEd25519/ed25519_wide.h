// The 8-lane AVX-512 IFMA walk of the Ed25519 batch path (ed25519_wide.c), for ed25519_table.c.
// Not a public header.
//
// A wide comb holds the same points as a libsodium comb (entry [i][j] is (j + 1)·2^(6i)·P), in
// affine "Niels" form: y + x, y − x and 2d·x·y, each a field element of five 51-bit limbs (the
// canonical value, so every limb is below 2^51), 15 64-bit words an entry, 120 bytes.
#ifndef TOKENVERIFY_ED25519_WIDE_H
#define TOKENVERIFY_ED25519_WIDE_H

#include <stddef.h>
#include <stdint.h>

enum {
    TV_ED25519_WIDE_LANES = 8,
    TV_ED25519_WIDE_WINDOWS = 43,
    TV_ED25519_WIDE_DIGITS = 32,
    TV_ED25519_WIDE_ENTRY_WORDS = 15,
};

/// The words of one wide comb: 43 × 32 entries of 15 words (165,120 bytes).
#define TV_ED25519_WIDE_COMB_WORDS \
    ((size_t)TV_ED25519_WIDE_WINDOWS * TV_ED25519_WIDE_DIGITS * TV_ED25519_WIDE_ENTRY_WORDS)

/// 1 when this CPU runs AVX-512F, VL and IFMA and the OS saves the ZMM state (CPUID and XGETBV);
/// 0 otherwise, and always 0 where the compiler cannot build the wide walk.
int tv_ed25519_wide_cpu(void);

/// For each lane l: the point [s]B + [h](−A_l) in extended coordinates X, Y, Z (five 51-bit limbs
/// each, every limb below 2^52: libsodium's fe25519 representation), where s_digits[l] and
/// h_digits[l] are the signed 6-bit digits of S and h (43 each, in [−32, 32]), `base` the wide comb
/// of B and keys[l] lane l's wide comb of −A_l. Only for a CPU where tv_ed25519_wide_cpu() is 1.
/// `faults`: the TV_ED25519_FAULT_WIDE_* flags (CTokenEd25519Testing.h), 0 in the verifier.
void tv_ed25519_wide_sum(uint64_t out[TV_ED25519_WIDE_LANES][3][5], const uint64_t *base,
                         const uint64_t *const keys[TV_ED25519_WIDE_LANES],
                         const int8_t s_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS],
                         const int8_t h_digits[TV_ED25519_WIDE_LANES][TV_ED25519_WIDE_WINDOWS], int faults);

#endif
