// base64url decoding 32 characters a step with AVX2, where the processor has it: the vector
// prefix of a decode whose scalar loop (in Swift) does the rest and the canonical checks of the
// last group.
#ifndef TOKENVERIFY_CTOKENBASE64_H
#define TOKENVERIFY_CTOKENBASE64_H

#include <stddef.h>
#include <stdint.h>

// Decodes the whole blocks of 32 characters among the first `count` of `input` into `output`,
// 24 bytes a block (it writes no byte past them). Returns the number of characters decoded (a
// multiple of 32; 0 where the processor has no AVX2), or -1 when a block holds a character
// outside the base64url alphabet.
long tv_base64url_decode_blocks(const uint8_t *input, size_t count, uint8_t *output);

#endif
