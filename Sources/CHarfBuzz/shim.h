// HarfBuzz, the text shaper (pkg-config harfbuzz, Debian libharfbuzz-dev); only MapRenderer's
// FontFace uses it. The library is opened on first use, not linked: linked, every `geo` command
// loaded HarfBuzz, FreeType and what they need (glib, pcre2, graphite2, libpng, brotli) at
// start-up, 0.57 ms of CPU a process (a C hello world linked with and without -lharfbuzz
// -lfreetype, perf stat -r 200), which `geo osm info` on a small extract felt against osmium.
// The pattern is CDBus/shim.h's.
#include <hb.h>
#include <dlfcn.h>
#include <stddef.h>

/// The HarfBuzz functions LocationKit calls, by name.
#define CHARFBUZZ_FUNCTIONS(X) \
    X(hb_blob_create) X(hb_blob_destroy) X(hb_buffer_add_utf8) X(hb_buffer_create) \
    X(hb_buffer_destroy) X(hb_buffer_get_glyph_infos) X(hb_buffer_get_glyph_positions) \
    X(hb_buffer_guess_segment_properties) X(hb_face_create) X(hb_face_destroy) X(hb_font_create) \
    X(hb_font_destroy) X(hb_font_get_nominal_glyph) X(hb_font_set_scale) X(hb_shape)

/// Those functions resolved from the library, each field typed by the function's prototype in
/// HarfBuzz's headers (so a wrong signature cannot compile).
typedef struct CHarfBuzzLibrary {
#define CHARFBUZZ_FIELD(name) __typeof__(name) *_Nonnull name;
    CHARFBUZZ_FUNCTIONS(CHARFBUZZ_FIELD)
#undef CHARFBUZZ_FIELD
} CHarfBuzzLibrary;

/// Opens HarfBuzz by its soname (libharfbuzz.so.0, the only one it has had) and fills `library`.
/// Returns NULL on success, else the dynamic loader's message.
static inline const char *_Nullable charfbuzz_open(CHarfBuzzLibrary *_Nonnull library) {
    void *handle = dlopen("libharfbuzz.so.0", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return dlerror();
#define CHARFBUZZ_RESOLVE(name) \
    if ((library->name = (__typeof__(name) *)dlsym(handle, #name)) == NULL) return dlerror();
    CHARFBUZZ_FUNCTIONS(CHARFBUZZ_RESOLVE)
#undef CHARFBUZZ_RESOLVE
    return NULL;
}
