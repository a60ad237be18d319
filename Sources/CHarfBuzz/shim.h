// HarfBuzz, the text shaper (pkg-config harfbuzz, Debian libharfbuzz-dev); only MapRenderer's
// FontFace uses it. The library is opened on first use, not linked: linked, every `geo` command
// loaded HarfBuzz, FreeType and what they need (glib, pcre2, graphite2, libpng, brotli) at
// start-up: 1.3 ms of CPU a process (200 alternated runs of `geo osm info --help`), which
// `geo osm info` on a small extract felt against osmium.
#include <hb.h>
#include "../CLazyLibrary/lazy_library.h"

/// The HarfBuzz functions LocationKit calls, by name.
#define CHARFBUZZ_FUNCTIONS(X) \
    X(hb_blob_create) X(hb_blob_destroy) X(hb_buffer_add_utf8) X(hb_buffer_create) \
    X(hb_buffer_destroy) X(hb_buffer_get_glyph_infos) X(hb_buffer_get_glyph_positions) \
    X(hb_buffer_guess_segment_properties) X(hb_face_create) X(hb_face_destroy) X(hb_font_create) \
    X(hb_font_destroy) X(hb_font_get_nominal_glyph) X(hb_font_set_scale) X(hb_shape)

/// Those functions' table, `CHarfBuzzLibrary`, and `charfbuzz_open`, which opens the library by its soname
/// (libharfbuzz.so.0, the only one it has had) and fills it (CLazyLibrary/lazy_library.h).
LAZY_LIBRARY(CHarfBuzzLibrary, charfbuzz_open, "libharfbuzz.so.0", CHARFBUZZ_FUNCTIONS)
