// ES256 signing for the tools and the tests: P-256 private keys and OpenSSL's own randomised
// signing (p256_private_key.c), a deterministic RFC 6979 signer for generated token sets
// (p256_sign.c), and OpenSSL's signing set up once as the raw-rate reference. Verification never
// needs this module; keys are freed with CTokenCrypto's `tv_p256_key_free`.
#ifndef TOKENVERIFY_CTOKENSIGNING_H
#define TOKENVERIFY_CTOKENSIGNING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A P-256 private key from its scalar `d` (32 bytes, big-endian, 1 ≤ d < n), or NULL.
/// Writes the public coordinates to `x` and `y` when they are not NULL.
void *tv_p256_private_key_new(const uint8_t *d, uint8_t *x, uint8_t *y);

/// Fills `d` with a fresh random private scalar and `x`, `y` with its public point. Returns 1 on success.
int tv_p256_generate(uint8_t *d, uint8_t *x, uint8_t *y);

/// Signs `message` (ECDSA with SHA-256, OpenSSL's randomised nonce) with a key from
/// `tv_p256_private_key_new` and writes the 64-byte r‖s form. Returns 1 on success.
int tv_p256_sign(void *private_key, const uint8_t *message, size_t message_length, uint8_t *signature);

/// A deterministic ES256 signer for the 32-byte private scalar `d` (nonces by RFC 6979 with
/// SHA-256; see p256_sign.c), or NULL. For one thread at a time.
void *tv_p256_deterministic_signer_new(const uint8_t *d);
void tv_p256_deterministic_signer_free(void *signer);

/// Signs `message` (ECDSA P-256 with SHA-256, RFC 6979 nonce) into the 64-byte r‖s form. Returns 1 on success.
int tv_p256_sign_deterministic(void *signer, const uint8_t *message, size_t message_length, uint8_t *signature);

/// Signs a 32-byte SHA-256 `digest` the same way; writes the nonce k to `nonce` when it is not NULL.
int tv_p256_sign_digest_deterministic(void *signer, const uint8_t *digest, uint8_t *signature, uint8_t *nonce);

/// OpenSSL's own (randomised) ES256 signing of `message`, set up once per worker for a key from
/// `tv_p256_private_key_new`: the reference for the raw signing rate. Returns 1 on success.
void *tv_p256_openssl_signer_new(void *private_key);
void tv_p256_openssl_signer_free(void *signer);
int tv_p256_openssl_sign(void *signer, const uint8_t *message, size_t message_length);

#ifdef __cplusplus
}
#endif

#endif
