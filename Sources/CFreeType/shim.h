#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_OUTLINE_H
