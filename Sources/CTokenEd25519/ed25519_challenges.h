// SHA-512 of up to eight R‖A‖M side by side, for the wide path's groups (ed25519_challenges.c).
// Not a public header.
#ifndef TOKENVERIFY_ED25519_CHALLENGES_H
#define TOKENVERIFY_ED25519_CHALLENGES_H

#include <stddef.h>
#include <stdint.h>

enum {
    /// The most inputs one call hashes.
    TV_ED25519_HASH_LANES = 8,
    /// The longest R‖A‖M the multi-buffer library hashes (copied into a lane's scratch); a longer
    /// one is hashed by libsodium alone.
    TV_ED25519_HASH_SCRATCH = 8192,
};

/// digests[l] = SHA-512(r[l] ‖ a[l] ‖ messages[l]) (32 + 32 + lengths[l] bytes) for each l below
/// `count` (at most TV_ED25519_HASH_LANES): the same 64 bytes as libsodium's crypto_hash_sha512,
/// computed in the lanes of Intel's multi-buffer library (one manager per thread) and by libsodium
/// for any input the library does not complete or that is longer than the scratch.
void tv_ed25519_hash_lanes(uint8_t digests[][64], const uint8_t *const r[], const uint8_t *const a[],
                           const uint8_t *const messages[], const size_t lengths[], int count);

#endif
