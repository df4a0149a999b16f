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

// The order of the group of an EC key; NULL when the key is not EC.
static BIGNUM *key_order(const EVP_PKEY *key) {
    BIGNUM *order = NULL;
    if (key == NULL || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return NULL;
    if (!EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_ORDER, &order)) return NULL;
    return order;
}

// The order of a named curve.
static BIGNUM *curve_order(int nid) {
    EC_GROUP *group = EC_GROUP_new_by_curve_name(nid);
    if (group == NULL) return NULL;
    BIGNUM *order = BN_dup(EC_GROUP_get0_order(group));
    EC_GROUP_free(group);
    return order;
}

// The curves whose orders are tried for a certificate whose issuer's key is not known.
static const int fallback_curves[] = {NID_X9_62_prime256v1, NID_secp384r1, NID_secp521r1};

// The order to twin `cert`'s signature with, for `candidate`; *stop when there is none to try.
static BIGNUM *order_for(const X509 *cert, const X509 *issuer, int candidate, int *stop) {
    *stop = 1;
    if (issuer == NULL && X509_check_issued((X509 *)cert, (X509 *)cert) == X509_V_OK) issuer = cert;
    if (issuer != NULL) {
        if (candidate != 0) return NULL;
        *stop = 0;
        return key_order(X509_get0_pubkey(issuer));
    }
    if (candidate < 0 || candidate >= (int)(sizeof fallback_curves / sizeof fallback_curves[0])) return NULL;
    *stop = 0;
    return curve_order(fallback_curves[candidate]);
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

long tv_x509_cert_twin(const void *cert, const void *issuer, int candidate, uint8_t *buffer, size_t capacity) {
    const X509 *x = cert;
    int stop = 1;
    if (!signed_with_ecdsa(x)) return -1;
    BIGNUM *order = order_for(x, issuer, candidate, &stop);
    if (stop) return -1;
    long result = 0;
    const ASN1_BIT_STRING *signature = NULL;
    const X509_ALGOR *algorithm = NULL;
    X509_get0_signature(&signature, &algorithm, x);
    int length = 0;
    unsigned char *value = order == NULL ? NULL : twin_signature(signature, order, &length);
    X509 *twin = value == NULL ? NULL : X509_dup(x);
    if (twin != NULL) {
        const ASN1_BIT_STRING *copied = NULL;
        X509_get0_signature(&copied, &algorithm, twin);
        // The copy's own signature, replaced: the tbsCertificate and algorithm stay as they are.
        if (ASN1_BIT_STRING_set((ASN1_BIT_STRING *)copied, value, length)) {
            result = tv_x509_cert_der(twin, buffer, capacity);
        }
    }
    X509_free(twin);
    OPENSSL_free(value);
    BN_free(order);
    ERR_clear_error();
    return result < 0 ? 0 : result;
}

long tv_x509_cert_spki(const void *cert, uint8_t *buffer, size_t capacity) {
    EVP_PKEY *key = X509_get0_pubkey((const X509 *)cert);
    if (key == NULL) return -1;
    EVP_PKEY *copy = EVP_PKEY_dup(key);
    if (copy == NULL) return -1;
    // An EC point as carried may be compressed: the canonical form is uncompressed.
    if (EVP_PKEY_get_base_id(copy) == EVP_PKEY_EC)
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
