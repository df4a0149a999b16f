// X.509 v3 certificates for `tokenverify certificate` and the tests (spec §3b): a builder that
// takes the subject's name, serial, validity, key and names, adds basicConstraints and keyUsage
// (critical), subjectKeyIdentifier (SHA-1 of the subject's public key bits, RFC 5280 §4.2.1.2
// method 1), authorityKeyIdentifier (the issuer's subjectKeyIdentifier) and subjectAltName, and
// signs with X509_sign (Ed25519, or ECDSA with SHA-256 for P-256). Also reads a DER certificate's
// public key and CA status, for checking an issuer and a token's chain. Every certificate is built
// and encoded by OpenSSL itself; nothing here writes DER by hand.
#include "CTokenSigning.h"

#include <string.h>
#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct tv_certificate_builder {
    X509 *cert;
    GENERAL_NAMES *names;
    int ca;
    int path_length;
};

void *tv_ed25519_private_key_new(const uint8_t *seed) {
    EVP_PKEY *key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, 32);
    ERR_clear_error();
    return key;
}

void *tv_ed25519_public_key_new(const uint8_t *public_key) {
    EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, public_key, 32);
    ERR_clear_error();
    return key;
}

void *tv_certificate_builder_new(void) {
    struct tv_certificate_builder *builder = OPENSSL_zalloc(sizeof *builder);
    if (builder == NULL) return NULL;
    builder->cert = X509_new();
    builder->names = GENERAL_NAMES_new();
    builder->path_length = -1;
    if (builder->cert == NULL || builder->names == NULL || X509_set_version(builder->cert, X509_VERSION_3) != 1) {
        tv_certificate_builder_free(builder);
        return NULL;
    }
    return builder;
}

void tv_certificate_builder_free(void *opaque) {
    struct tv_certificate_builder *builder = opaque;
    if (builder == NULL) return;
    X509_free(builder->cert);
    GENERAL_NAMES_free(builder->names);
    OPENSSL_free(builder);
}

int tv_certificate_add_subject_entry(void *opaque, const char *field, const char *value) {
    struct tv_certificate_builder *builder = opaque;
    X509_NAME *name = X509_get_subject_name(builder->cert);
    int ok = X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8, (const unsigned char *)value, -1, -1, 0) == 1;
    ERR_clear_error();
    return ok;
}

int tv_certificate_set_serial(void *opaque, const uint8_t *serial, size_t length) {
    struct tv_certificate_builder *builder = opaque;
    BIGNUM *number = BN_bin2bn(serial, (int)length, NULL);
    ASN1_INTEGER *integer = number ? BN_to_ASN1_INTEGER(number, NULL) : NULL;
    int ok = integer != NULL && X509_set_serialNumber(builder->cert, integer) == 1;
    ASN1_INTEGER_free(integer);
    BN_free(number);
    ERR_clear_error();
    return ok;
}

int tv_certificate_set_validity(void *opaque, int64_t not_before, int64_t not_after) {
    struct tv_certificate_builder *builder = opaque;
    // ASN1_TIME_set chooses UTCTime for 1950–2049 and GeneralizedTime otherwise (RFC 5280 §4.1.2.5).
    ASN1_TIME *before = ASN1_TIME_set(NULL, (time_t)not_before);
    ASN1_TIME *after = ASN1_TIME_set(NULL, (time_t)not_after);
    int ok = before != NULL && after != NULL && X509_set1_notBefore(builder->cert, before) == 1 &&
             X509_set1_notAfter(builder->cert, after) == 1;
    ASN1_TIME_free(before);
    ASN1_TIME_free(after);
    ERR_clear_error();
    return ok;
}

int tv_certificate_set_public_key(void *opaque, void *key) {
    struct tv_certificate_builder *builder = opaque;
    int ok = X509_set_pubkey(builder->cert, (EVP_PKEY *)key) == 1;
    ERR_clear_error();
    return ok;
}

void tv_certificate_set_ca(void *opaque, int path_length) {
    struct tv_certificate_builder *builder = opaque;
    builder->ca = 1;
    builder->path_length = path_length;
}

int tv_certificate_add_name(void *opaque, int is_uri, const char *text) {
    struct tv_certificate_builder *builder = opaque;
    GENERAL_NAME *name = GENERAL_NAME_new();
    ASN1_IA5STRING *value = ASN1_IA5STRING_new();
    int ok = name != NULL && value != NULL && ASN1_STRING_set(value, text, -1) == 1;
    if (ok) {
        GENERAL_NAME_set0_value(name, is_uri ? GEN_URI : GEN_DNS, value);
        value = NULL;
        ok = sk_GENERAL_NAME_push(builder->names, name) > 0;
        if (ok) name = NULL;
    }
    ASN1_IA5STRING_free(value);
    GENERAL_NAME_free(name);
    ERR_clear_error();
    return ok;
}

// SHA-1 of the subjectPublicKey bits (RFC 5280 §4.2.1.2 method 1) of `cert`.
static ASN1_OCTET_STRING *key_identifier(X509 *cert) {
    const ASN1_BIT_STRING *bits = X509_get0_pubkey_bitstr(cert);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    ASN1_OCTET_STRING *identifier = ASN1_OCTET_STRING_new();
    if (bits == NULL || identifier == NULL ||
        EVP_Digest(bits->data, (size_t)bits->length, digest, &length, EVP_sha1(), NULL) != 1 ||
        ASN1_OCTET_STRING_set(identifier, digest, (int)length) != 1) {
        ASN1_OCTET_STRING_free(identifier);
        return NULL;
    }
    return identifier;
}

static int add_constraints(struct tv_certificate_builder *builder) {
    BASIC_CONSTRAINTS *constraints = BASIC_CONSTRAINTS_new();
    ASN1_BIT_STRING *usage = ASN1_BIT_STRING_new();
    int ok = constraints != NULL && usage != NULL;
    if (ok && builder->ca) {
        constraints->ca = 0xFF;
        if (builder->path_length >= 0) {
            constraints->pathlen = ASN1_INTEGER_new();
            ok = constraints->pathlen != NULL && ASN1_INTEGER_set(constraints->pathlen, builder->path_length) == 1;
        }
    }
    // keyUsage bits: 0 digitalSignature, 5 keyCertSign, 6 cRLSign.
    if (ok && builder->ca) ok = ASN1_BIT_STRING_set_bit(usage, 5, 1) == 1 && ASN1_BIT_STRING_set_bit(usage, 6, 1) == 1;
    if (ok && !builder->ca) ok = ASN1_BIT_STRING_set_bit(usage, 0, 1) == 1;
    ok = ok && X509_add1_ext_i2d(builder->cert, NID_basic_constraints, constraints, 1, X509V3_ADD_REPLACE) == 1 &&
         X509_add1_ext_i2d(builder->cert, NID_key_usage, usage, 1, X509V3_ADD_REPLACE) == 1;
    BASIC_CONSTRAINTS_free(constraints);
    ASN1_BIT_STRING_free(usage);
    return ok;
}

// subjectKeyIdentifier of the certificate; authorityKeyIdentifier from the issuer's
// subjectKeyIdentifier (or its key's, when it has none); subjectAltName when names were added.
static int add_identifiers(struct tv_certificate_builder *builder, X509 *issuer) {
    ASN1_OCTET_STRING *subject_id = key_identifier(builder->cert);
    const ASN1_OCTET_STRING *issuer_own = issuer ? X509_get0_subject_key_id(issuer) : NULL;
    ASN1_OCTET_STRING *issuer_id = issuer == NULL ? ASN1_OCTET_STRING_dup(subject_id)
                                   : issuer_own   ? ASN1_OCTET_STRING_dup(issuer_own)
                                                  : key_identifier(issuer);
    AUTHORITY_KEYID *authority = AUTHORITY_KEYID_new();
    int ok = subject_id != NULL && issuer_id != NULL && authority != NULL;
    if (ok) {
        authority->keyid = issuer_id;
        issuer_id = NULL;
        ok = X509_add1_ext_i2d(builder->cert, NID_subject_key_identifier, subject_id, 0, X509V3_ADD_REPLACE) == 1 &&
             X509_add1_ext_i2d(builder->cert, NID_authority_key_identifier, authority, 0, X509V3_ADD_REPLACE) == 1;
    }
    if (ok && sk_GENERAL_NAME_num(builder->names) > 0) {
        ok = X509_add1_ext_i2d(builder->cert, NID_subject_alt_name, builder->names, 0, X509V3_ADD_REPLACE) == 1;
    }
    ASN1_OCTET_STRING_free(subject_id);
    ASN1_OCTET_STRING_free(issuer_id);
    AUTHORITY_KEYID_free(authority);
    return ok;
}

int tv_certificate_sign(void *opaque, const uint8_t *issuer_der, size_t issuer_length, void *issuer_key) {
    struct tv_certificate_builder *builder = opaque;
    X509 *issuer = NULL;
    if (issuer_der != NULL) {
        const uint8_t *cursor = issuer_der;
        issuer = d2i_X509(NULL, &cursor, (long)issuer_length);
        if (issuer == NULL) {
            ERR_clear_error();
            return 0;
        }
    }
    X509_NAME *issuer_name = issuer ? X509_get_subject_name(issuer) : X509_get_subject_name(builder->cert);
    EVP_PKEY *key = issuer_key;
    // Ed25519 signs the message itself (no digest); ECDSA signs its SHA-256.
    const EVP_MD *md = EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519 ? NULL : EVP_sha256();
    int ok = X509_set_issuer_name(builder->cert, issuer_name) == 1 && add_constraints(builder) &&
             add_identifiers(builder, issuer) && X509_sign(builder->cert, key, md) > 0;
    X509_free(issuer);
    ERR_clear_error();
    return ok;
}

size_t tv_certificate_der(void *opaque, uint8_t *der, size_t capacity) {
    struct tv_certificate_builder *builder = opaque;
    int length = i2d_X509(builder->cert, NULL);
    if (length <= 0) return 0;
    if (der == NULL || (size_t)length > capacity) return (size_t)length;
    uint8_t *cursor = der;
    return i2d_X509(builder->cert, &cursor) == length ? (size_t)length : 0;
}

// The key of `key` into `out`: 1 Ed25519 (32 bytes), 2 P-256 (x‖y, 64 bytes), 0 another kind.
static int public_key_bytes(EVP_PKEY *key, uint8_t *out) {
    if (EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519) {
        size_t length = 32;
        return EVP_PKEY_get_raw_public_key(key, out, &length) == 1 && length == 32 ? 1 : 0;
    }
    char group[32];
    size_t group_length = 0;
    if (EVP_PKEY_get_base_id(key) != EVP_PKEY_EC ||
        EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &group_length) != 1 ||
        strcmp(group, "prime256v1") != 0) {
        return 0;
    }
    BIGNUM *x = NULL, *y = NULL;
    int ok = EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) == 1 &&
             EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) == 1 && BN_bn2binpad(x, out, 32) == 32 &&
             BN_bn2binpad(y, out + 32, 32) == 32;
    BN_free(x);
    BN_free(y);
    return ok ? 2 : 0;
}

int tv_certificate_read(const uint8_t *der, size_t length, uint8_t *key, int *ca, char *subject,
                        size_t subject_capacity) {
    const uint8_t *cursor = der;
    X509 *cert = d2i_X509(NULL, &cursor, (long)length);
    if (cert == NULL || cursor != der + length) {
        X509_free(cert);
        ERR_clear_error();
        return -1;
    }
    EVP_PKEY *public_key = X509_get0_pubkey(cert);
    int kind = public_key ? public_key_bytes(public_key, key) : 0;
    // X509_check_ca is 1 for basicConstraints CA:TRUE with keyCertSign when keyUsage is present.
    int is_ca = X509_check_ca(cert) == 1;
    long path_length = X509_get_pathlen(cert);
    *ca = !is_ca ? -2 : path_length < 0 ? -1 : (int)path_length;
    if (subject != NULL && subject_capacity > 0) {
        subject[0] = 0;
        BIO *text = BIO_new(BIO_s_mem());
        unsigned long flags = (XN_FLAG_SEP_COMMA_PLUS | XN_FLAG_FN_SN | ASN1_STRFLGS_RFC2253) & ~ASN1_STRFLGS_ESC_MSB;
        if (text != NULL && X509_NAME_print_ex(text, X509_get_subject_name(cert), 0, flags) >= 0) {
            int written = BIO_read(text, subject, (int)subject_capacity - 1);
            subject[written > 0 ? written : 0] = 0;
        }
        BIO_free(text);
    }
    X509_free(cert);
    ERR_clear_error();
    return kind;
}
