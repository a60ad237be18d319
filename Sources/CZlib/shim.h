// zlib (https://zlib.net) for OSMImport: PBF blob inflate/deflate and gzip XML.
#ifndef LOCATIONKIT_CZLIB_SHIM_H
#define LOCATIONKIT_CZLIB_SHIM_H
#include <zlib.h>
#endif
