// Anchor stores and RFC 5280 path validation by X509_verify_cert (see CTokenX509.h).
#include "CTokenX509.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>
#include <stdlib.h>

void *tv_x509_store_new(void) { return X509_STORE_new(); }

int tv_x509_store_add(void *store, const uint8_t *der, size_t length) {
    int status = 0;
    X509 *cert = tv_x509_cert_new_der(der, length, &status);
    if (cert == NULL) return 0;
    int ok = X509_STORE_add_cert((X509_STORE *)store, cert);
    X509_free(cert);
    ERR_clear_error();
    return ok == 1;
}

void tv_x509_store_free(void *store) { X509_STORE_free((X509_STORE *)store); }

typedef struct {
    int category;
    int error;
    int failing_index;
    int forced;
    X509 *failing;
    STACK_OF(X509) *path;
} result_t;

static int category_of(int error) {
    switch (error) {
    case X509_V_OK:
        return TV_X509_OK;
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return TV_X509_EXPIRED;
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return TV_X509_NOT_YET_VALID;
    case X509_V_ERR_ERROR_IN_CERT_NOT_BEFORE_FIELD:
    case X509_V_ERR_ERROR_IN_CERT_NOT_AFTER_FIELD:
        return TV_X509_TIME_UNCOMPARABLE;
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_UNTRUSTED:
        return TV_X509_UNKNOWN_ISSUER;
    case X509_V_ERR_INVALID_CA:
        return TV_X509_NOT_CA;
    case X509_V_ERR_KEYUSAGE_NO_CERTSIGN:
        return TV_X509_NO_CERTSIGN;
    case X509_V_ERR_PATH_LENGTH_EXCEEDED:
        return TV_X509_PATH_TOO_LONG;
    case X509_V_ERR_CERT_CHAIN_TOO_LONG:
        return TV_X509_TOO_MANY;
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
    case X509_V_ERR_UNABLE_TO_DECRYPT_CERT_SIGNATURE:
    case X509_V_ERR_UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY:
        return TV_X509_BAD_SIGNATURE;
    case X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION:
        return TV_X509_UNSUPPORTED_CRITICAL;
    default:
        return TV_X509_OTHER;
    }
}

static result_t *result_new(int category, int error, int index) {
    result_t *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->category = category;
    r->error = error;
    r->failing_index = index;
    return r;
}

// The index in the given chain of a certificate (by identical encoding), or -1.
static int index_in(STACK_OF(X509) *given, const X509 *cert) {
    for (int i = 0; cert != NULL && i < sk_X509_num(given); i++)
        if (X509_cmp(sk_X509_value(given, i), cert) == 0) return i;
    return -1;
}

static void set_failing(result_t *r, X509_STORE_CTX *ctx, STACK_OF(X509) *given) {
    X509 *cert = X509_STORE_CTX_get_current_cert(ctx);
    if (cert == NULL) {
        STACK_OF(X509) *built = X509_STORE_CTX_get0_chain(ctx);
        int depth = X509_STORE_CTX_get_error_depth(ctx);
        if (built != NULL && depth >= 0 && depth < sk_X509_num(built)) cert = sk_X509_value(built, depth);
    }
    if (cert == NULL) cert = sk_X509_value(given, 0);
    X509_up_ref(cert);
    r->failing = cert;
    r->failing_index = index_in(given, cert);
}

// The candidates for the issuer of `x`: anchors and given certificates (a given one equal to an
// anchor counted once) that X509_check_issued accepts.
static int issuer_candidates(X509_STORE_CTX *ctx, STACK_OF(X509) *given, X509 *x) {
    int count = 0;
    STACK_OF(X509) *stored = X509_STORE_CTX_get1_certs(ctx, X509_get_issuer_name(x));
    for (int i = 0; i < sk_X509_num(stored); i++)
        if (X509_check_issued(sk_X509_value(stored, i), x) == X509_V_OK) count++;
    for (int i = 0; i < sk_X509_num(given); i++) {
        X509 *candidate = sk_X509_value(given, i);
        if (X509_check_issued(candidate, x) != X509_V_OK) continue;
        int known = 0;
        for (int j = 0; j < sk_X509_num(stored) && !known; j++)
            known = X509_cmp(sk_X509_value(stored, j), candidate) == 0;
        if (!known) count++;
    }
    sk_X509_pop_free(stored, X509_free);
    return count;
}

// Whether the path OpenSSL built (or began to build) left it no choice (tv_x509_result_forced).
static int path_forced(X509_STORE_CTX *ctx, STACK_OF(X509) *given) {
    STACK_OF(X509) *built = X509_STORE_CTX_get0_chain(ctx);
    int count = sk_X509_num(built);
    if (count <= 0) return 0;
    for (int i = 0; i < count; i++) {
        X509 *x = sk_X509_value(built, i);
        int candidates = issuer_candidates(ctx, given, x);
        int expected = i < count - 1 || X509_check_issued(x, x) == X509_V_OK ? 1 : 0;
        if (candidates != expected) return 0;
    }
    return 1;
}

static result_t *run(X509_STORE *store, STACK_OF(X509) *given, int64_t time) {
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    if (ctx == NULL) return NULL;
    result_t *r = NULL;
    STACK_OF(X509) *untrusted = sk_X509_dup(given);
    if (untrusted == NULL) goto done;
    (void)sk_X509_shift(untrusted);
    if (!X509_STORE_CTX_init(ctx, store, sk_X509_value(given, 0), untrusted)) goto done;
    X509_VERIFY_PARAM *param = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_flags(param, X509_V_FLAG_X509_STRICT | X509_V_FLAG_PARTIAL_CHAIN);
    X509_VERIFY_PARAM_set_time(param, (time_t)time);
    // The depth counts the certificates between the leaf and the anchor.
    X509_VERIFY_PARAM_set_depth(param, TV_X509_MAX_PATH - 2);
    int ok = X509_verify_cert(ctx);
    int error = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
    if (ok == 1 && error != X509_V_OK) error = X509_V_ERR_UNSPECIFIED;
    if (ok != 1 && error == X509_V_OK) error = X509_V_ERR_UNSPECIFIED;
    r = result_new(category_of(error), error, -1);
    if (r == NULL) goto done;
    r->forced = path_forced(ctx, given);
    if (error == X509_V_OK) {
        r->path = X509_STORE_CTX_get1_chain(ctx);
        if (r->path == NULL) r->category = TV_X509_OTHER, r->error = X509_V_ERR_OUT_OF_MEM;
    } else {
        set_failing(r, ctx, given);
    }
done:
    sk_X509_free(untrusted);
    X509_STORE_CTX_free(ctx);
    ERR_clear_error();
    return r;
}

void *tv_x509_validate(void *store, const uint8_t *const *ders, const size_t *lengths, size_t count, int64_t time) {
    if (count == 0) return result_new(TV_X509_NOT_DER, X509_V_ERR_UNSPECIFIED, -1);
    if (count > TV_X509_MAX_PATH) return result_new(TV_X509_TOO_MANY, X509_V_ERR_CERT_CHAIN_TOO_LONG, TV_X509_MAX_PATH);
    STACK_OF(X509) *given = sk_X509_new_null();
    if (given == NULL) return NULL;
    result_t *r = NULL;
    for (size_t i = 0; i < count; i++) {
        int status = 0;
        X509 *cert = tv_x509_cert_new_der(ders[i], lengths[i], &status);
        if (cert == NULL || !sk_X509_push(given, cert)) {
            X509_free(cert);
            int category = status == TV_X509_DECODE_NOT_DER ? TV_X509_NOT_STRICT_DER : TV_X509_NOT_DER;
            r = result_new(category, X509_V_ERR_UNSPECIFIED, (int)i);
            goto done;
        }
    }
    r = run((X509_STORE *)store, given, time);
done:
    sk_X509_pop_free(given, X509_free);
    ERR_clear_error();
    return r;
}

void tv_x509_result_free(void *result) {
    result_t *r = result;
    if (r == NULL) return;
    X509_free(r->failing);
    sk_X509_pop_free(r->path, X509_free);
    free(r);
}

int tv_x509_result_category(const void *result) { return ((const result_t *)result)->category; }
int tv_x509_result_error(const void *result) { return ((const result_t *)result)->error; }
const char *tv_x509_result_error_text(const void *result) {
    return X509_verify_cert_error_string(((const result_t *)result)->error);
}
const void *tv_x509_result_failing_cert(const void *result) { return ((const result_t *)result)->failing; }
int tv_x509_result_failing_index(const void *result) { return ((const result_t *)result)->failing_index; }
int tv_x509_result_forced(const void *result) { return ((const result_t *)result)->forced; }
int tv_x509_result_path_count(const void *result) {
    const result_t *r = result;
    return r->path == NULL ? 0 : sk_X509_num(r->path);
}
const void *tv_x509_result_path_cert(const void *result, int index) {
    const result_t *r = result;
    return r->path == NULL ? NULL : sk_X509_value(r->path, index);
}
