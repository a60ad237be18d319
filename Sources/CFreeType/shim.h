// FreeType, for glyph outlines (pkg-config freetype2, Debian libfreetype-dev); only MapRenderer's
// FontFace uses it. Opened on first use, not linked, for the reason CHarfBuzz/shim.h gives.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include <dlfcn.h>
#include <stddef.h>

/// The FreeType functions LocationKit calls, by name.
#define CFREETYPE_FUNCTIONS(X) \
    X(FT_Done_Face) X(FT_Done_FreeType) X(FT_Init_FreeType) X(FT_Load_Glyph) \
    X(FT_New_Memory_Face) X(FT_Outline_Decompose)

/// Those functions resolved from the library, each field typed by the function's prototype in
/// FreeType's headers (so a wrong signature cannot compile).
typedef struct CFreeTypeLibrary {
#define CFREETYPE_FIELD(name) __typeof__(name) *_Nonnull name;
    CFREETYPE_FUNCTIONS(CFREETYPE_FIELD)
#undef CFREETYPE_FIELD
} CFreeTypeLibrary;

/// Opens FreeType by its soname (libfreetype.so.6, FreeType 2's) and fills `library`.
/// Returns NULL on success, else the dynamic loader's message.
static inline const char *_Nullable cfreetype_open(CFreeTypeLibrary *_Nonnull library) {
    void *handle = dlopen("libfreetype.so.6", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return dlerror();
#define CFREETYPE_RESOLVE(name) \
    if ((library->name = (__typeof__(name) *)dlsym(handle, #name)) == NULL) return dlerror();
    CFREETYPE_FUNCTIONS(CFREETYPE_RESOLVE)
#undef CFREETYPE_RESOLVE
    return NULL;
}
