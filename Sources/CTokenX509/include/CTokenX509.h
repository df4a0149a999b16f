// X.509 certificate chains over OpenSSL 3: anchor stores, RFC 5280 path validation as of a given
// time (X509_verify_cert) and the few certificate fields the verifier reads.
//
// The Swift side sees only opaque pointers and byte buffers. A store is built once per anchor set
// and is read-only afterwards; each validation makes its own X509_STORE_CTX, so one store may be
// used from many threads at once.
#ifndef TOKENVERIFY_CTOKENX509_H
#define TOKENVERIFY_CTOKENX509_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most certificates in a validated path, anchor included.
#define TV_X509_MAX_PATH 8

/// Why a validation failed (tv_x509_result_category).
enum {
    TV_X509_OK = 0,
    TV_X509_EXPIRED = 1,
    TV_X509_NOT_YET_VALID = 2,
    TV_X509_UNKNOWN_ISSUER = 3,
    TV_X509_NOT_CA = 4,
    TV_X509_PATH_TOO_LONG = 5,
    TV_X509_BAD_SIGNATURE = 6,
    TV_X509_UNSUPPORTED_CRITICAL = 7,
    TV_X509_NOT_DER = 8,
    TV_X509_TOO_MANY = 9,
    TV_X509_OTHER = 10,
    TV_X509_NO_CERTSIGN = 11,
    TV_X509_TIME_UNCOMPARABLE = 12,
    /// A certificate whose bytes decode but are not DER (OpenSSL's re-encoding differs).
    TV_X509_NOT_STRICT_DER = 13,
};

/// What bytes are as a certificate (tv_x509_der_status).
enum { TV_X509_DECODE_OK = 0, TV_X509_DECODE_NOT_CERTIFICATE = 1, TV_X509_DECODE_NOT_DER = 2 };

/// The key of a certificate (tv_x509_cert_key).
enum {
    TV_X509_KEY_OTHER = 0,
    TV_X509_KEY_ED25519 = 1,
    TV_X509_KEY_P256 = 2,
    TV_X509_KEY_RSA = 3,
    TV_X509_KEY_EC_OTHER = 4,
    TV_X509_KEY_ED448 = 5,
};

/// A subjectAltName entry kind (tv_x509_cert_san).
enum { TV_X509_SAN_OTHER = 0, TV_X509_SAN_URI = 1, TV_X509_SAN_DNS = 2 };

// MARK: Certificates

/// A certificate decoded from exactly `length` bytes of DER, or NULL when they are not one.
void *tv_x509_cert_new(const uint8_t *der, size_t length);
void tv_x509_cert_free(void *cert);

/// A certificate decoded from exactly `length` bytes that are its DER: equal to OpenSSL's
/// re-encoding of it, the tbsCertificate included. NULL otherwise, with `status` saying why
/// (TV_X509_DECODE_NOT_CERTIFICATE or TV_X509_DECODE_NOT_DER).
void *tv_x509_cert_new_der(const uint8_t *der, size_t length, int *status);
/// TV_X509_DECODE_OK when the bytes are one certificate's DER, else why not.
int tv_x509_der_status(const uint8_t *der, size_t length);

/// The ECDSA twin of a certificate whose DER is `der`: the same bytes with the signature (r, s)
/// replaced by (r, n - s), which verifies as well (the outer SEQUENCE rebuilt around the unchanged
/// tbsCertificate and signatureAlgorithm). `issuer` is the certificate that issued it (its key's
/// order is n), or NULL when not known: a self-issued certificate's own key is then used, else
/// `candidate` picks the order of P-256, P-384 and P-521 in turn. Returns the twin's length (which
/// may exceed `capacity`: nothing written then), 0 when this candidate makes no twin (the issuer's
/// key is not EC, r or s is not below n), or -1 when there is no (further) candidate: the
/// signature is not ECDSA, or `candidate` is past the last.
long tv_x509_cert_twin(
    const void *cert, const uint8_t *der, size_t length, const void *issuer, int candidate, uint8_t *buffer,
    size_t capacity);

/// The certificate's SubjectPublicKeyInfo as DER, an EC point uncompressed: writes at most
/// `capacity` bytes and returns the full length (-1 on failure).
long tv_x509_cert_spki(const void *cert, uint8_t *buffer, size_t capacity);
/// The subject or issuer name in RFC 2253 form (non-ASCII and control bytes escaped), written
/// NUL-terminated into `buffer`; the length it needs (without the NUL), or -1 on failure.
long tv_x509_cert_subject(const void *cert, char *buffer, size_t capacity);
long tv_x509_cert_issuer(const void *cert, char *buffer, size_t capacity);

/// notBefore and notAfter as whole seconds since 1970 (UTC), a notBefore with a fraction of a
/// second rounded up and a notAfter's fraction dropped; 1 on success, 0 when unreadable.
int tv_x509_cert_validity(const void *cert, int64_t *not_before, int64_t *not_after);

/// The number of subjectAltName entries (0 when there is none).
int tv_x509_cert_san_count(const void *cert);
/// Entry `index`: its kind, and for a URI or DNS name its text copied into `buffer` (not
/// NUL-terminated); returns the text's length, or -1 for an entry that is no IA5String.
long tv_x509_cert_san(const void *cert, int index, int *kind, char *buffer, size_t capacity);

/// 1 when basicConstraints says CA; `path_length` is its pathLenConstraint or -1 when absent.
int tv_x509_cert_is_ca(const void *cert, long *path_length);

/// keyUsage: -1 when absent, otherwise 1 when digitalSignature is set and 0 when not.
int tv_x509_cert_digital_signature(const void *cert);

/// The key's kind and size in bits. For Ed25519 `out` gets the 32-byte key; for P-256 it gets
/// x‖y (64 bytes, big-endian). `out` must hold 64 bytes.
int tv_x509_cert_key(const void *cert, int *bits, uint8_t out[64]);

/// SHA-256 of `length` bytes.
void tv_x509_sha256(const uint8_t *data, size_t length, uint8_t out[32]);

// MARK: Anchor stores

/// An empty anchor store, or NULL when out of memory.
void *tv_x509_store_new(void);
/// Adds a certificate as a trust anchor; 1 on success, 0 when the bytes are not one certificate's DER.
int tv_x509_store_add(void *store, const uint8_t *der, size_t length);
void tv_x509_store_free(void *store);

// MARK: Validation

/// Validates a chain (`count` DER certificates, leaf first, as a token carries them) against
/// `store` as of `time`: X509_V_FLAG_X509_STRICT, X509_V_FLAG_PARTIAL_CHAIN, at most
/// TV_X509_MAX_PATH certificates in the path. Always returns a result (NULL only when out of
/// memory): read it with the accessors below and free it.
void *tv_x509_validate(void *store, const uint8_t *const *ders, const size_t *lengths, size_t count, int64_t time);
void tv_x509_result_free(void *result);

/// TV_X509_OK when the chain validated, else why not.
int tv_x509_result_category(const void *result);
/// OpenSSL's error code (X509_V_ERR_…) and text for the failure; 0 / "ok" on success.
int tv_x509_result_error(const void *result);
const char *tv_x509_result_error_text(const void *result);
/// The certificate the failure is about (or the leaf), borrowed from the result; NULL when none.
const void *tv_x509_result_failing_cert(const void *result);
/// Index of the failing certificate in the given chain, or -1 when it is not one of them (an anchor).
int tv_x509_result_failing_index(const void *result);
/// 1 when OpenSSL had one choice only at every step of the path it built (each certificate's
/// issuer the only candidate among the anchors and the chain's certificates, the top self-issued
/// or with none): the verdict then depends on the time only through the validity of that path.
/// 0 when some step had two or more candidates (OpenSSL prefers one valid at the time).
int tv_x509_result_forced(const void *result);
/// The validated path (leaf first, anchor last); 0 certificates on failure.
int tv_x509_result_path_count(const void *result);
const void *tv_x509_result_path_cert(const void *result, int index);
/// DER of a certificate borrowed from a result or made by tv_x509_cert_new: writes at most
/// `capacity` bytes and returns the full length (-1 on failure).
long tv_x509_cert_der(const void *cert, uint8_t *buffer, size_t capacity);

#ifdef __cplusplus
}
#endif

#endif
