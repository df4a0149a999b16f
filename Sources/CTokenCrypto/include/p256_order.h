// Arithmetic modulo the P-256 group order (see p256_order.c). Values are four little-endian
// 64-bit limbs below n; `rr` is R² mod n for R = 2²⁵⁶ (tv_order_rr).
#ifndef TOKENVERIFY_P256_ORDER_H
#define TOKENVERIFY_P256_ORDER_H

#include <stddef.h>
#include <stdint.h>

/// 1 when the Montgomery constant matches n (a start-up check).
int tv_order_self_check(void);
void tv_order_from_bytes(uint64_t r[4], const uint8_t bytes[32]);
void tv_order_to_bytes(uint8_t bytes[32], const uint64_t a[4]);
void tv_order_mont_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void tv_order_add(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]);
void tv_order_mul(uint64_t r[4], const uint64_t a[4], const uint64_t b[4], const uint64_t rr[4]);
void tv_order_inverse(uint64_t r[4], const uint64_t a[4], const uint64_t rr[4]);
/// a⁻¹ mod n for a public a (variable time: for verification, never for secrets). Total: any
/// a < 2²⁵⁶ is reduced modulo n first, and 0 (a ≡ 0) gives 0.
void tv_order_inverse_public(uint64_t r[4], const uint64_t a[4]);
/// The inverses modulo n of `count` public values, each in [1, n−1], from one inversion and three
/// multiplications a value (variable time). `inverses` must not overlap `values`.
void tv_order_inverse_public_many(uint64_t (*inverses)[4], const uint64_t (*values)[4], size_t count);
/// 1 when a and b are both below n and a·b ≡ 1 (mod n).
int tv_order_is_inverse(const uint64_t a[4], const uint64_t b[4]);

#endif
