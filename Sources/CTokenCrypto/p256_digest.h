// SHA-256 of a message for the ES256 verify paths (p256.c and p256_table.c); internal.
#ifndef TOKENVERIFY_P256_DIGEST_H
#define TOKENVERIFY_P256_DIGEST_H

#include <stddef.h>
#include <stdint.h>
#include <openssl/evp.h>

/// SHA-256, fetched once (OpenSSL 3's one-shot SHA256() fetches the algorithm on every call); NULL on failure.
const EVP_MD *tv_p256_sha256(void);

/// Writes the SHA-256 of `message` to `digest` with the caller's digest context; 1 on success.
int tv_p256_digest(EVP_MD_CTX *context, const uint8_t *message, size_t message_length, uint8_t digest[32]);

#endif
