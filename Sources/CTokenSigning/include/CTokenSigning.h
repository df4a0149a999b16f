// ES256 signing for the tools and the tests: P-256 private keys and OpenSSL's own randomised
// signing (p256_private_key.c), a deterministic RFC 6979 signer for generated token sets
// (p256_sign.c), OpenSSL's signing set up once as the raw-rate reference, and X.509 certificates
// for `tokenverify certificate` (certificate.c). Verification never needs this module; keys are
// freed with CTokenCrypto's `tv_p256_key_free`.
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

/// An Ed25519 key (an EVP_PKEY, freed with `tv_p256_key_free`) from its 32-byte private seed, or NULL.
void *tv_ed25519_private_key_new(const uint8_t *seed);
/// An Ed25519 public key from its 32 bytes, or NULL.
void *tv_ed25519_public_key_new(const uint8_t *public_key);

/// An X.509 v3 certificate being built (certificate.c), or NULL. Set its subject, serial,
/// validity, public key, CA status and names, then sign it; the setters return 1 on success.
void *tv_certificate_builder_new(void);
void tv_certificate_builder_free(void *builder);
/// Appends the subject attribute `field` (a short name such as CN, O, OU, C, or a dotted OID)
/// with the UTF-8 `value`; 0 for an unknown field or a value the field does not allow.
int tv_certificate_add_subject_entry(void *builder, const char *field, const char *value);
/// The serial number: `length` bytes, big-endian, read as a positive integer.
int tv_certificate_set_serial(void *builder, const uint8_t *serial, size_t length);
/// The validity, in seconds since the epoch.
int tv_certificate_set_validity(void *builder, int64_t not_before, int64_t not_after);
/// The subject's public key: a key from `tv_ed25519_*_key_new`, `tv_p256_public_key_new` or
/// `tv_p256_private_key_new` (only its public part is written).
int tv_certificate_set_public_key(void *builder, void *key);
/// Makes it a CA: basicConstraints CA with pathLenConstraint `path_length` (none when negative)
/// and keyUsage keyCertSign and cRLSign; otherwise CA false and keyUsage digitalSignature.
void tv_certificate_set_ca(void *builder, int path_length);
/// Adds a subjectAltName: a uniformResourceIdentifier when `is_uri`, else a dNSName (ASCII).
int tv_certificate_add_name(void *builder, int is_uri, const char *name);
/// Adds the extensions and signs with `issuer_key` (a private key): under the issuer certificate
/// `issuer_der` (its subject becomes the issuer name, its subjectKeyIdentifier the
/// authorityKeyIdentifier), or self-signed when `issuer_der` is NULL. Returns 1 on success.
int tv_certificate_sign(void *builder, const uint8_t *issuer_der, size_t issuer_length, void *issuer_key);
/// The signed certificate's DER into `der` when `capacity` suffices; returns its length (0 on failure).
size_t tv_certificate_der(void *builder, uint8_t *der, size_t capacity);

/// Reads one DER certificate (all of `der`, nothing after it). Returns its key type: 1 Ed25519
/// (32 bytes written to `key`), 2 P-256 (x‖y, 64 bytes), 0 another type; -1 when `der` is not
/// one certificate. `ca` gets -2 when it is not a CA (basicConstraints CA false or absent, or a
/// keyUsage without keyCertSign), -1 for a CA without a path length limit, else its pathLenConstraint.
/// `subject` (when not NULL) gets the subject name as text (`CN=…,O=…`, NUL-terminated, cut at
/// `subject_capacity`).
int tv_certificate_read(const uint8_t *der, size_t length, uint8_t *key, int *ca, char *subject,
                        size_t subject_capacity);

#ifdef __cplusplus
}
#endif

#endif
