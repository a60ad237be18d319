// libdeflate (https://github.com/ebiggers/libdeflate) for ZlibCompression: whole-buffer zlib
// decompression of known size (PBF blobs), about twice as fast as zlib's streaming inflate.
#ifndef LOCATIONKIT_CLIBDEFLATE_SHIM_H
#define LOCATIONKIT_CLIBDEFLATE_SHIM_H
#include <libdeflate.h>
#endif
