// The 8-lane AVX-512 IFMA verify of ES256 (p256_wide.c); internal to CTokenCrypto and its
// comparison harness (scripts/compare-p256-wide.c).
#ifndef TOKENVERIFY_P256_WIDE_H
#define TOKENVERIFY_P256_WIDE_H

#include <stddef.h>
#include <stdint.h>

/// Lanes of one wide verify.
enum { TV_P256_WIDE_LANES = 8 };

/// Windows of 7 bits (Booth digits in [−64, 64]) over a scalar below 2²⁵⁶, and the points a
/// window's table holds (1·B … 64·B for its base B = 2⁷ⁱ·P).
enum { TV_P256_WIDE_WINDOWS = 37, TV_P256_WIDE_ENTRIES = 64 };

/// The bytes of one point's wide table: 37 × 64 affine points, x then y, each four little-endian
/// 64-bit limbs of its Montgomery form (x·2²⁶⁰ mod p), 64-byte aligned: 151,552 bytes.
enum { TV_P256_WIDE_TABLE_BYTES = TV_P256_WIDE_WINDOWS * TV_P256_WIDE_ENTRIES * 64 };

/// 1 when the CPU has AVX-512F, VL and IFMA and the OS saves the ZMM state (CPUID, XGETBV).
int tv_p256_wide_cpu(void);

/// The wide table of the point (x, y) (32 bytes each, big-endian; a valid point, not checked
/// here beyond what OpenSSL refuses): NULL on failure, and without tv_p256_wide_cpu() (the
/// entries are made with the wide arithmetic). Free with tv_p256_wide_table_free.
uint64_t *tv_p256_wide_table_build(const uint8_t *x, const uint8_t *y);
void tv_p256_wide_table_free(uint64_t *table);

/// The generator's wide table, built once (NULL on failure or without tv_p256_wide_cpu()).
const uint64_t *tv_p256_wide_generator_table(void);

/// Eight verifies at once, lane by lane: with the point Q of `q_tables[l]`, scalars u1 = `u1[l]`,
/// u2 = `u2[l]` (below n, four little-endian limbs) and r = `r[l]` (in [1, n − 1]), verdicts[l] is
/// 1 when u1·G + u2·Q is not the point at infinity and its affine x mod n is r, else 0. Every
/// lane must hold such inputs (a caller pads unused lanes with any valid ones and ignores them).
/// Only with tv_p256_wide_cpu().
void tv_p256_wide_verify8(const uint64_t *const q_tables[8], const uint64_t u1[8][4], const uint64_t u2[8][4],
                          const uint64_t r[8][4], uint8_t verdicts[8]);

/// For the harness's point tests: (X3 : Y3 : Z3) = (X1 : Y1 : Z1) + (x2, y2), lane by lane, with the
/// complete mixed addition; coordinates as plain (not Montgomery) values below p, four
/// little-endian limbs each; the result's coordinates likewise (projective, unnormalised).
void tv_p256_wide_add_for_testing(uint64_t out[8][3][4], const uint64_t p1[8][3][4], const uint64_t p2[8][2][4]);

/// For the self-test's test: nonzero makes every later wide verify on the calling thread answer
/// wrongly (the final comparison inverted), so that the self-test must fail.
void tv_p256_wide_break_for_testing(int broken);

#endif
