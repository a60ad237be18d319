// librsvg, the SVG renderer (pkg-config librsvg-2.0, Debian librsvg2-dev), drawing into a Cairo
// image surface; only MapRenderer's SVG rasterizer uses it, for `geo sprites build`. Opened on
// first use, not linked, as HarfBuzz is (CHarfBuzz/shim.h says why): librsvg brings glib, gio,
// Cairo, Pango and their own dependencies, which no other command needs. The Cairo and GObject
// functions resolve through librsvg's handle (dlsym searches a library's dependencies too).
#include <librsvg/rsvg.h>
#include <cairo.h>
#include "../CLazyLibrary/lazy_library.h"

/// The librsvg, Cairo and GLib functions LocationKit calls, by name.
#define CRSVG_FUNCTIONS(X) \
    X(rsvg_handle_new_from_data) X(rsvg_handle_get_intrinsic_size_in_pixels) \
    X(rsvg_handle_get_intrinsic_dimensions) X(rsvg_handle_render_document) \
    X(g_object_unref) X(g_error_free) \
    X(cairo_image_surface_create_for_data) X(cairo_format_stride_for_width) X(cairo_create) \
    X(cairo_scale) X(cairo_status) X(cairo_destroy) X(cairo_surface_flush) X(cairo_surface_destroy)

/// Those functions' table, `CRsvgLibrary`, and `crsvg_open`, which opens librsvg by its soname
/// (librsvg-2.so.2, the 2.x series' since 2.0) and fills it (CLazyLibrary/lazy_library.h).
LAZY_LIBRARY(CRsvgLibrary, crsvg_open, "librsvg-2.so.2", CRSVG_FUNCTIONS)
