#ifndef TOKENVERIFY_CSODIUM_SHIM_H
#define TOKENVERIFY_CSODIUM_SHIM_H
#include <sodium.h>
#endif
