// FreeType, for glyph outlines (pkg-config freetype2, Debian libfreetype-dev); only MapRenderer's
// FontFace uses it. Opened on first use, not linked, for the reason CHarfBuzz/shim.h gives.
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
#include "../CLazyLibrary/lazy_library.h"

/// The FreeType functions LocationKit calls, by name.
#define CFREETYPE_FUNCTIONS(X) \
    X(FT_Done_Face) X(FT_Done_FreeType) X(FT_Init_FreeType) X(FT_Load_Glyph) \
    X(FT_New_Memory_Face) X(FT_Outline_Decompose) X(FT_Set_Char_Size) X(FT_Get_Char_Index)

/// Those functions' table, `CFreeTypeLibrary`, and `cfreetype_open`, which opens the library by its soname
/// (libfreetype.so.6, FreeType 2's) and fills it (CLazyLibrary/lazy_library.h).
LAZY_LIBRARY(CFreeTypeLibrary, cfreetype_open, "libfreetype.so.6", CFREETYPE_FUNCTIONS)
