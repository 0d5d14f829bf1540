#ifndef CLOUDSYNC_ZLIB_SHIM_H
#define CLOUDSYNC_ZLIB_SHIM_H
#include <zlib.h>

/// `inflateInit2` is a macro, which Swift cannot call.
static inline int cloudsync_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -MAX_WBITS);
}
#endif
