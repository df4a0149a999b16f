// Certificate fields for the Swift side (see CTokenX509.h): names, validity, subjectAltName,
// basicConstraints, keyUsage and the public key.
#include "CTokenX509.h"

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>

void *tv_x509_cert_new(const uint8_t *der, size_t length) {
    if (der == NULL || length == 0 || length > (size_t)LONG_MAX) return NULL;
    const unsigned char *p = der;
    X509 *cert = d2i_X509(NULL, &p, (long)length);
    if (cert == NULL) return NULL;
    if (p != der + length) {
        X509_free(cert);
        return NULL;
    }
    // The extensions are decoded here, once, so that later reads (and other threads) find them cached.
    (void)X509_get_extension_flags(cert);
    return cert;
}

void tv_x509_cert_free(void *cert) { X509_free((X509 *)cert); }

static long name_text(const X509_NAME *name, char *buffer, size_t capacity) {
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) return -1;
    long result = -1;
    if (X509_NAME_print_ex(bio, name, 0, XN_FLAG_RFC2253) >= 0) {
        char *data = NULL;
        long length = BIO_get_mem_data(bio, &data);
        if (length >= 0) {
            if (capacity > 0) {
                size_t n = (size_t)length < capacity - 1 ? (size_t)length : capacity - 1;
                memcpy(buffer, data, n);
                buffer[n] = 0;
            }
            result = length;
        }
    }
    BIO_free(bio);
    return result;
}

long tv_x509_cert_subject(const void *cert, char *buffer, size_t capacity) {
    return name_text(X509_get_subject_name((const X509 *)cert), buffer, capacity);
}

long tv_x509_cert_issuer(const void *cert, char *buffer, size_t capacity) {
    return name_text(X509_get_issuer_name((const X509 *)cert), buffer, capacity);
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int time_seconds(const ASN1_TIME *time, int64_t *out) {
    struct tm tm;
    if (time == NULL || !ASN1_TIME_to_tm(time, &tm)) return 0;
    int64_t days = days_from_civil((int64_t)tm.tm_year + 1900, (int64_t)tm.tm_mon + 1, tm.tm_mday);
    *out = days * 86400 + (int64_t)tm.tm_hour * 3600 + (int64_t)tm.tm_min * 60 + tm.tm_sec;
    return 1;
}

// Whether a time has a fraction of a second (which RFC 5280 forbids but OpenSSL compares by).
static int has_fraction(const ASN1_TIME *time) {
    return memchr(ASN1_STRING_get0_data(time), '.', (size_t)ASN1_STRING_length(time)) != NULL;
}

int tv_x509_cert_validity(const void *cert, int64_t *not_before, int64_t *not_after) {
    const X509 *x = (const X509 *)cert;
    if (!time_seconds(X509_get0_notBefore(x), not_before) || !time_seconds(X509_get0_notAfter(x), not_after))
        return 0;
    // Whole seconds inside the certificate's validity: a notBefore with a fraction starts a second later.
    if (has_fraction(X509_get0_notBefore(x))) *not_before += 1;
    return 1;
}

int tv_x509_cert_san_count(const void *cert) {
    GENERAL_NAMES *names = X509_get_ext_d2i((const X509 *)cert, NID_subject_alt_name, NULL, NULL);
    if (names == NULL) return 0;
    int count = sk_GENERAL_NAME_num(names);
    GENERAL_NAMES_free(names);
    return count < 0 ? 0 : count;
}

long tv_x509_cert_san(const void *cert, int index, int *kind, char *buffer, size_t capacity) {
    *kind = TV_X509_SAN_OTHER;
    GENERAL_NAMES *names = X509_get_ext_d2i((const X509 *)cert, NID_subject_alt_name, NULL, NULL);
    if (names == NULL) return -1;
    long result = -1;
    const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, index);
    if (name != NULL && (name->type == GEN_URI || name->type == GEN_DNS)) {
        const ASN1_IA5STRING *text = name->type == GEN_URI ? name->d.uniformResourceIdentifier : name->d.dNSName;
        *kind = name->type == GEN_URI ? TV_X509_SAN_URI : TV_X509_SAN_DNS;
        int length = ASN1_STRING_length(text);
        size_t n = (size_t)length < capacity ? (size_t)length : capacity;
        memcpy(buffer, ASN1_STRING_get0_data(text), n);
        result = length;
    }
    GENERAL_NAMES_free(names);
    return result;
}

int tv_x509_cert_is_ca(const void *cert, long *path_length) {
    X509 *x = (X509 *)cert;
    uint32_t flags = X509_get_extension_flags(x);
    *path_length = X509_get_pathlen(x);
    return (flags & EXFLAG_CA) != 0;
}

int tv_x509_cert_digital_signature(const void *cert) {
    X509 *x = (X509 *)cert;
    if ((X509_get_extension_flags(x) & EXFLAG_KUSAGE) == 0) return -1;
    return (X509_get_key_usage(x) & KU_DIGITAL_SIGNATURE) != 0;
}

static int bn_32(const EVP_PKEY *key, const char *name, uint8_t out[32]) {
    BIGNUM *bn = NULL;
    if (!EVP_PKEY_get_bn_param(key, name, &bn)) return 0;
    int ok = BN_bn2binpad(bn, out, 32) == 32;
    BN_free(bn);
    return ok;
}

int tv_x509_cert_key(const void *cert, int *bits, uint8_t out[64]) {
    EVP_PKEY *key = X509_get0_pubkey((const X509 *)cert);
    *bits = 0;
    if (key == NULL) return TV_X509_KEY_OTHER;
    *bits = EVP_PKEY_get_bits(key);
    switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_ED25519: {
        size_t length = 32;
        return EVP_PKEY_get_raw_public_key(key, out, &length) && length == 32 ? TV_X509_KEY_ED25519
                                                                             : TV_X509_KEY_OTHER;
    }
    case EVP_PKEY_ED448:
        return TV_X509_KEY_ED448;
    case EVP_PKEY_RSA:
    case EVP_PKEY_RSA_PSS:
        return TV_X509_KEY_RSA;
    case EVP_PKEY_EC: {
        char group[64];
        size_t length = 0;
        if (!EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &length))
            return TV_X509_KEY_EC_OTHER;
        if (strcmp(group, SN_X9_62_prime256v1) != 0) return TV_X509_KEY_EC_OTHER;
        return bn_32(key, OSSL_PKEY_PARAM_EC_PUB_X, out) && bn_32(key, OSSL_PKEY_PARAM_EC_PUB_Y, out + 32)
                   ? TV_X509_KEY_P256
                   : TV_X509_KEY_EC_OTHER;
    }
    default:
        return TV_X509_KEY_OTHER;
    }
}

void tv_x509_sha256(const uint8_t *data, size_t length, uint8_t out[32]) {
    unsigned int n = 32;
    if (!EVP_Digest(data, length, out, &n, EVP_sha256(), NULL)) memset(out, 0, 32);
}

long tv_x509_cert_der(const void *cert, uint8_t *buffer, size_t capacity) {
    int length = i2d_X509((X509 *)cert, NULL);
    if (length <= 0) return -1;
    if ((size_t)length <= capacity) {
        unsigned char *p = buffer;
        if (i2d_X509((X509 *)cert, &p) != length) return -1;
    }
    return length;
}
