#ifndef TOKENVERIFY_CZLIB_SHIM_H
#define TOKENVERIFY_CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit and deflateInit are macros (they pass the library's version and the stream's
/// size); these functions are what Swift can call.
static inline int tv_inflate_init(z_stream *stream) { return inflateInit(stream); }
static inline int tv_deflate_init(z_stream *stream, int level) { return deflateInit(stream, level); }
#endif
