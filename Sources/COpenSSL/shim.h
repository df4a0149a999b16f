#ifndef TOKENVERIFY_COPENSSL_SHIM_H
#define TOKENVERIFY_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#endif
