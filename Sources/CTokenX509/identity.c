// A certificate's identity whatever its encoding (see CTokenX509.h): strict DER, the ECDSA twin
// (the same certificate with its signature (r, s) written as (r, n - s), which verifies as well)
// and the SubjectPublicKeyInfo of its key in one canonical form.
#include "CTokenX509.h"

#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

void *tv_x509_cert_new_der(const uint8_t *der, size_t length, int *status) {
    *status = TV_X509_DECODE_NOT_CERTIFICATE;
    X509 *cert = tv_x509_cert_new(der, length);
    if (cert == NULL) return NULL;
    // OpenSSL keeps the tbsCertificate's bytes as decoded; this forces it to encode them again,
    // so that i2d_X509 below writes the DER of every part, outer SEQUENCE and tbs alike.
    int tbs = i2d_re_X509_tbs(cert, NULL);
    int whole = i2d_X509(cert, NULL);
    int same = 0;
    if (tbs > 0 && whole > 0 && (size_t)whole == length) {
        unsigned char *encoded = malloc((size_t)whole);
        unsigned char *p = encoded;
        same = encoded != NULL && i2d_X509(cert, &p) == whole && memcmp(encoded, der, length) == 0;
        free(encoded);
    }
    ERR_clear_error();
    if (!same) {
        X509_free(cert);
        *status = TV_X509_DECODE_NOT_DER;
        return NULL;
    }
    *status = TV_X509_DECODE_OK;
    return cert;
}

int tv_x509_der_status(const uint8_t *der, size_t length) {
    int status = TV_X509_DECODE_NOT_CERTIFICATE;
    X509_free(tv_x509_cert_new_der(der, length, &status));
    return status;
}

// The orders of the curves a twin is made for without reading them from a key, big-endian.
static const uint8_t p256_order[] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51};
static const uint8_t p384_order[] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xC7, 0x63, 0x4D, 0x81, 0xF4, 0x37, 0x2D, 0xDF,
    0x58, 0x1A, 0x0D, 0xB2, 0x48, 0xB0, 0xA7, 0x7A, 0xEC, 0xEC, 0x19, 0x6A, 0xCC, 0xC5, 0x29, 0x73};
static const uint8_t p521_order[] = {
    0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFA, 0x51, 0x86,
    0x87, 0x83, 0xBF, 0x2F, 0x96, 0x6B, 0x7F, 0xCC, 0x01, 0x48, 0xF7, 0x09, 0xA5, 0xD0, 0x3B, 0xB5, 0xC9, 0xB8,
    0x89, 0x9C, 0x47, 0xAE, 0xBB, 0x6F, 0xB7, 0x1E, 0x91, 0x38, 0x64, 0x09};

static const struct {
    const char *name;
    const uint8_t *order;
    int length;
} known_curves[] = {
    {SN_X9_62_prime256v1, p256_order, sizeof p256_order},
    {SN_secp384r1, p384_order, sizeof p384_order},
    {SN_secp521r1, p521_order, sizeof p521_order},
};
#define KNOWN_CURVES ((int)(sizeof known_curves / sizeof known_curves[0]))

// The order of the group of an EC key (the table's for a known curve, else the key's own
// parameters); NULL when the key is not EC.
static BIGNUM *key_order(const EVP_PKEY *key) {
    if (key == NULL || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return NULL;
    char group[64];
    size_t length = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &length)) {
        for (int i = 0; i < KNOWN_CURVES; i++)
            if (strcmp(group, known_curves[i].name) == 0)
                return BN_bin2bn(known_curves[i].order, known_curves[i].length, NULL);
    }
    BIGNUM *order = NULL;
    return EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_ORDER, &order) ? order : NULL;
}

// The order to twin `cert`'s signature with, for `candidate`; *stop when there is none to try.
// Without an issuer: a self-issued certificate's own key, else each known curve in turn.
static BIGNUM *order_for(const X509 *cert, const X509 *issuer, int candidate, int *stop) {
    *stop = 1;
    if (issuer == NULL && X509_check_issued((X509 *)cert, (X509 *)cert) == X509_V_OK) issuer = cert;
    if (issuer != NULL) {
        if (candidate != 0) return NULL;
        *stop = 0;
        return key_order(X509_get0_pubkey(issuer));
    }
    if (candidate < 0 || candidate >= KNOWN_CURVES) return NULL;
    *stop = 0;
    return BN_bin2bn(known_curves[candidate].order, known_curves[candidate].length, NULL);
}

// The length of the DER header (tag and length octets) at `p`, its content's length in *length;
// 0 when there is none before `end`.
static size_t der_header(const uint8_t *p, const uint8_t *end, size_t *length) {
    if (end - p < 2) return 0;
    size_t first = p[1];
    if (first < 0x80) {
        *length = first;
        return (size_t)(end - p) - 2 >= first ? 2 : 0;
    }
    size_t count = first & 0x7F;
    if (count == 0 || count > 4 || (size_t)(end - p) < 2 + count) return 0;
    size_t value = 0;
    for (size_t i = 0; i < count; i++) value = value << 8 | p[2 + i];
    *length = value;
    return (size_t)(end - p) - 2 - count >= value ? 2 + count : 0;
}

// Writes a DER header of `tag` and `length` at `out` (when not NULL); returns its size.
static size_t put_header(uint8_t *out, uint8_t tag, size_t length) {
    uint8_t octets[8];
    size_t count = 0;
    for (size_t rest = length; rest > 0; rest >>= 8) octets[count++] = (uint8_t)(rest & 0xFF);
    size_t size = length < 0x80 ? 2 : 2 + count;
    if (out != NULL) {
        out[0] = tag;
        if (length < 0x80) {
            out[1] = (uint8_t)length;
        } else {
            out[1] = (uint8_t)(0x80 | count);
            for (size_t i = 0; i < count; i++) out[2 + i] = octets[count - 1 - i];
        }
    }
    return size;
}

// The certificate `der` with its signature BIT STRING's value replaced by `value`: the outer
// SEQUENCE around its unchanged tbsCertificate and signatureAlgorithm bytes. Returns the length
// (written when it fits `capacity`), or -1 when `der` is not that shape.
static long splice_signature(
    const uint8_t *der, size_t length, const uint8_t *value, size_t value_length, uint8_t *buffer, size_t capacity) {
    const uint8_t *end = der + length;
    size_t outer = 0, tbs = 0, algorithm = 0;
    size_t h = der_header(der, end, &outer);
    if (h == 0) return -1;
    const uint8_t *start = der + h;
    size_t ht = der_header(start, end, &tbs);
    if (ht == 0) return -1;
    const uint8_t *next = start + ht + tbs;
    size_t ha = der_header(next, end, &algorithm);
    if (ha == 0) return -1;
    size_t prefix = (size_t)(next + ha + algorithm - start);
    size_t bits = 1 + value_length;
    size_t content = prefix + put_header(NULL, 0x03, bits) + bits;
    size_t total = put_header(NULL, 0x30, content) + content;
    if (total <= capacity) {
        uint8_t *p = buffer + put_header(buffer, 0x30, content);
        memcpy(p, start, prefix);
        p += prefix;
        p += put_header(p, 0x03, bits);
        *p++ = 0;  // no unused bits
        memcpy(p, value, value_length);
    }
    return (long)total;
}

// Whether a certificate's signature algorithm is ECDSA (with any digest).
static int signed_with_ecdsa(const X509 *cert) {
    int digest = 0, key = 0;
    return OBJ_find_sigid_algs(X509_get_signature_nid(cert), &digest, &key) && key == NID_X9_62_id_ecPublicKey;
}

// The DER ECDSA-Sig-Value (r, order - s) of `signature`, or NULL when r or s is not in [1, order).
static unsigned char *twin_signature(const ASN1_BIT_STRING *signature, const BIGNUM *order, int *length) {
    const unsigned char *p = ASN1_STRING_get0_data(signature);
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, ASN1_STRING_length(signature));
    if (sig == NULL) return NULL;
    unsigned char *out = NULL;
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    BIGNUM *r2 = BN_dup(r), *s2 = BN_new();
    ECDSA_SIG *twin = ECDSA_SIG_new();
    if (r2 != NULL && s2 != NULL && twin != NULL && !BN_is_zero(r) && !BN_is_zero(s) && BN_cmp(r, order) < 0 &&
        BN_cmp(s, order) < 0 && BN_sub(s2, order, s) && ECDSA_SIG_set0(twin, r2, s2)) {
        r2 = s2 = NULL;  // owned by twin now
        *length = i2d_ECDSA_SIG(twin, &out);
        if (*length <= 0) out = NULL;
    }
    BN_free(r2);
    BN_free(s2);
    ECDSA_SIG_free(twin);
    ECDSA_SIG_free(sig);
    return out;
}

long tv_x509_cert_twin(
    const void *cert, const uint8_t *der, size_t length, const void *issuer, int candidate, uint8_t *buffer,
    size_t capacity) {
    const X509 *x = cert;
    int stop = 1;
    if (!signed_with_ecdsa(x)) return -1;
    BIGNUM *order = order_for(x, issuer, candidate, &stop);
    if (stop) {
        BN_free(order);
        return -1;
    }
    const ASN1_BIT_STRING *signature = NULL;
    const X509_ALGOR *algorithm = NULL;
    X509_get0_signature(&signature, &algorithm, x);
    int value_length = 0;
    unsigned char *value = order == NULL ? NULL : twin_signature(signature, order, &value_length);
    long result = value == NULL ? 0 : splice_signature(der, length, value, (size_t)value_length, buffer, capacity);
    OPENSSL_free(value);
    BN_free(order);
    ERR_clear_error();
    return result < 0 ? 0 : result;
}

// Whether a certificate's key is EC with its point as carried not uncompressed (0x04 first).
static int compressed_point(const X509 *cert) {
    const unsigned char *point = NULL;
    int length = 0;
    X509_PUBKEY *key = X509_get_X509_PUBKEY(cert);
    if (key == NULL || !X509_PUBKEY_get0_param(NULL, &point, &length, NULL, key)) return 0;
    return EVP_PKEY_get_base_id(X509_get0_pubkey(cert)) == EVP_PKEY_EC && length > 0 && point[0] != 0x04;
}

long tv_x509_cert_spki(const void *cert, uint8_t *buffer, size_t capacity) {
    const X509 *x = cert;
    EVP_PKEY *key = X509_get0_pubkey(x);
    if (key == NULL) return -1;
    if (!compressed_point(x)) {
        // As carried: already the canonical form.
        int length = i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), NULL);
        if (length <= 0) return -1;
        if ((size_t)length <= capacity) {
            unsigned char *p = buffer;
            if (i2d_X509_PUBKEY(X509_get_X509_PUBKEY(x), &p) != length) return -1;
        }
        return length;
    }
    EVP_PKEY *copy = EVP_PKEY_dup(key);
    if (copy == NULL) return -1;
    (void)EVP_PKEY_set_utf8_string_param(copy, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, "uncompressed");
    long result = -1;
    int length = i2d_PUBKEY(copy, NULL);
    if (length > 0) {
        result = length;
        if ((size_t)length <= capacity) {
            unsigned char *p = buffer;
            if (i2d_PUBKEY(copy, &p) != length) result = -1;
        }
    }
    EVP_PKEY_free(copy);
    ERR_clear_error();
    return result;
}
