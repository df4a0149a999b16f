// SipHash-2-4 with a 128-bit output, the same function as libsodium's
// crypto_shorthash_siphashx24, for one message or many at once: with AVX-512, eight messages'
// rounds run side by side in the lanes of one vector for as many blocks as all of them have, and
// each message's last blocks and finalisation are done one by one.
#ifndef TOKENVERIFY_CTOKENSIPHASH_H
#define TOKENVERIFY_CTOKENSIPHASH_H

#include <stddef.h>
#include <stdint.h>

// The 16-byte digest of the `length` bytes at `message` under the 16-byte `key`.
void tv_siphash24_128(uint8_t digest[16], const uint8_t *message, size_t length, const uint8_t key[16]);

// The 16-byte digests of `count` messages (`messages[i]`, `lengths[i]` bytes) under one 16-byte
// key, into `digests` (16 bytes each), as `count` calls of crypto_shorthash_siphashx24 give them.
void tv_siphash24_128_many(const uint8_t key[16], size_t count, const uint8_t *const *messages,
                           const size_t *lengths, uint8_t *digests);

#endif
