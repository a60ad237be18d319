#if canImport(CRsvg)
import CRsvg

/// The function table: immutable once loaded, C function pointers only.
extension CRsvgLibrary: @retroactive @unchecked Sendable {}

/// librsvg (with Cairo and GLib through it), opened the first time an SVG is drawn
/// (`crsvg_open`, CRsvg/shim.h).
private let svgLibrary: Result<CRsvgLibrary, RenderError> = {
    let library = UnsafeMutablePointer<CRsvgLibrary>.allocate(capacity: 1)
    defer { library.deallocate() }
    if let message = crsvg_open(library) {
        return .failure(RenderError(.invalidSVG, "cannot open librsvg (Debian librsvg2-2): \(String(cString: message))"))
    }
    return .success(library.pointee)
}()
#endif

/// SVG documents drawn into pixmaps by librsvg, as Mapnik and spritezero draw map icons.
public enum SVG {
    /// Draws `document` (SVG bytes) at `scale` image pixels per CSS pixel of its intrinsic size
    /// (its `width` / `height`, else its `viewBox`): the image is ⌈width × scale⌉ × ⌈height × scale⌉
    /// pixels with the drawing stretched over it, transparent where the document draws nothing.
    /// - Throws: `RenderError.invalidSVG` naming `name` when librsvg cannot read or draw the
    ///   document, it has no size, or librsvg is not installed; `.invalidSize` for an image
    ///   outside 1…16384 pixels a side.
    public static func rasterize(_ document: [UInt8], scale: Double, name: String) throws(RenderError) -> Pixmap {
        #if canImport(CRsvg)
        let rsvg = try svgLibrary.get()
        var error: UnsafeMutablePointer<GError>?
        func message(_ error: UnsafeMutablePointer<GError>?) -> String {
            guard let error else { return "unknown error" }
            defer { rsvg.g_error_free(error) }
            return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        }
        let handle = document.withUnsafeBufferPointer { rsvg.rsvg_handle_new_from_data($0.baseAddress, gsize($0.count), &error) }
        guard let handle else { throw RenderError(.invalidSVG, "\(name): \(message(error))") }
        defer { rsvg.g_object_unref(UnsafeMutableRawPointer(handle)) }

        var width = 0.0, height = 0.0
        if rsvg.rsvg_handle_get_intrinsic_size_in_pixels(handle, &width, &height) == 0 {
            // Sizes in percentages (or none): the viewBox's size in user units, as browsers do.
            var hasWidth: gboolean = 0, hasHeight: gboolean = 0, hasViewBox: gboolean = 0
            var w = RsvgLength(), h = RsvgLength(), viewBox = RsvgRectangle()
            rsvg.rsvg_handle_get_intrinsic_dimensions(handle, &hasWidth, &w, &hasHeight, &h, &hasViewBox, &viewBox)
            guard hasViewBox != 0 else { throw RenderError(.invalidSVG, "\(name): no width and height in pixels and no viewBox") }
            (width, height) = (viewBox.width, viewBox.height)
        }
        guard scale.isFinite, scale > 0, width.isFinite, height.isFinite, width > 0, height > 0 else {
            throw RenderError(.invalidSVG, "\(name): size \(width)×\(height) at scale \(scale) is not drawable")
        }
        let columns = (width * scale - 1e-9).rounded(.up), rows = (height * scale - 1e-9).rounded(.up)
        guard columns <= Double(Pixmap.maxSide), rows <= Double(Pixmap.maxSide) else {
            throw RenderError(.invalidSize, "\(name): \(columns)×\(rows) pixels is outside 1…\(Pixmap.maxSide) a side")
        }
        var image = try Pixmap(width: Int(columns), height: Int(rows))
        let rowBytes = Int(rsvg.cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(image.width)))
        guard rowBytes == image.width * 4 else { throw RenderError(.invalidSVG, "\(name): unexpected Cairo row stride \(rowBytes)") }
        var failure: String?
        image.bytes.withUnsafeMutableBufferPointer { pixels in
            let surface = rsvg.cairo_image_surface_create_for_data(pixels.baseAddress, CAIRO_FORMAT_ARGB32, Int32(image.width), Int32(image.height), Int32(rowBytes))
            defer { rsvg.cairo_surface_destroy(surface) }
            let cairo = rsvg.cairo_create(surface)
            defer { rsvg.cairo_destroy(cairo) }
            var viewport = RsvgRectangle(x: 0, y: 0, width: columns, height: rows)
            if rsvg.rsvg_handle_render_document(handle, cairo, &viewport, &error) == 0 {
                failure = message(error)
            } else if rsvg.cairo_status(cairo) != CAIRO_STATUS_SUCCESS {
                failure = "Cairo status \(rsvg.cairo_status(cairo).rawValue)"
            }
            rsvg.cairo_surface_flush(surface)
            // Cairo's ARGB32 is a premultiplied 0xAARRGGBB word in native byte order; the
            // pixmap's is the bytes R, G, B, A.
            let words = UnsafeMutableRawBufferPointer(pixels)
            for i in stride(from: 0, to: pixels.count, by: 4) {
                let argb = words.load(fromByteOffset: i, as: UInt32.self)
                (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]) =
                    (UInt8(truncatingIfNeeded: argb >> 16), UInt8(truncatingIfNeeded: argb >> 8), UInt8(truncatingIfNeeded: argb), UInt8(argb >> 24))
            }
        }
        if let failure { throw RenderError(.invalidSVG, "\(name): \(failure)") }
        return image
        #else
        throw RenderError(.invalidSVG, "\(name): drawing SVG needs librsvg, which this platform's build does not use yet")
        #endif
    }
}
