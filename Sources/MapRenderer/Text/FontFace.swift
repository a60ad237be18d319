#if canImport(CFreeType) && canImport(CHarfBuzz)
import CFreeType
import CHarfBuzz

/// The two libraries' function tables: immutable once loaded, C function pointers only.
extension CHarfBuzzLibrary: @retroactive @unchecked Sendable {}
extension CFreeTypeLibrary: @retroactive @unchecked Sendable {}

/// HarfBuzz and FreeType, opened the first time a font is (`charfbuzz_open`, CHarfBuzz/shim.h;
/// `cfreetype_open`, CFreeType/shim.h).
private let fontLibraries: Result<(harfBuzz: CHarfBuzzLibrary, freeType: CFreeTypeLibrary), RenderError> = {
    let harfBuzz = UnsafeMutablePointer<CHarfBuzzLibrary>.allocate(capacity: 1)
    let freeType = UnsafeMutablePointer<CFreeTypeLibrary>.allocate(capacity: 1)
    defer { harfBuzz.deallocate(); freeType.deallocate() }
    if let message = charfbuzz_open(harfBuzz) {
        return .failure(RenderError(.font, "cannot open HarfBuzz (Debian libharfbuzz0b): \(String(cString: message))"))
    }
    if let message = cfreetype_open(freeType) {
        return .failure(RenderError(.font, "cannot open FreeType (Debian libfreetype6): \(String(cString: message))"))
    }
    return .success((harfBuzz.pointee, freeType.pointee))
}()

/// One face of a TrueType / OpenType font held in memory: HarfBuzz shapes text with it,
/// FreeType gives its glyph outlines (unhinted, in font units, scaled here), as Mapnik pairs
/// them. The bytes come from the caller (MapRenderer reads no files).
///
/// Not `Sendable`: FreeType faces are not thread-safe; give each rendering task its own.
public final class FontFace: GlyphFace {
    /// A name for messages (usually the file name).
    public let name: String
    /// Font design units per em.
    public let unitsPerEm: Double
    private let hb: CHarfBuzzLibrary
    let ft: CFreeTypeLibrary
    private let storage: UnsafeMutableRawBufferPointer
    private var library: FT_Library?
    var face: FT_Face?
    private let hbBlob: OpaquePointer
    private let hbFace: OpaquePointer
    private let hbFont: OpaquePointer

    /// Opens face `index` of the font file `data` (a `.ttf`, `.otf`, or a collection `.ttc`).
    /// - Throws: `RenderError.font` naming `name` when FreeType cannot read it, or when HarfBuzz
    ///   or FreeType is not installed.
    public init(data: [UInt8], index: Int = 0, name: String) throws(RenderError) {
        self.name = name
        (hb, ft) = try fontLibraries.get()
        storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        storage.copyBytes(from: data)
        var lib: FT_Library?
        guard ft.FT_Init_FreeType(&lib) == 0, let lib else {
            storage.deallocate()
            throw RenderError(.font, "\(name): FreeType could not start")
        }
        var f: FT_Face?
        let status = ft.FT_New_Memory_Face(lib, storage.baseAddress!.assumingMemoryBound(to: FT_Byte.self), FT_Long(data.count), FT_Long(index), &f)
        guard status == 0, let f else {
            _ = ft.FT_Done_FreeType(lib)
            storage.deallocate()
            throw RenderError(.font, "\(name): not a font FreeType can read (error \(status)) or no face \(index)")
        }
        library = lib
        face = f
        unitsPerEm = Double(max(f.pointee.units_per_EM, 1))
        // HarfBuzz's constructors never return NULL (an empty object on failure).
        hbBlob = hb.hb_blob_create(storage.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(data.count), HB_MEMORY_MODE_READONLY, nil, nil)!
        hbFace = hb.hb_face_create(hbBlob, UInt32(index))!
        hbFont = hb.hb_font_create(hbFace)!
        // Positions in font units: scaled to pixels here, one HarfBuzz font for every size.
        hb.hb_font_set_scale(hbFont, Int32(unitsPerEm), Int32(unitsPerEm))
    }

    deinit {
        hb.hb_font_destroy(hbFont)
        hb.hb_face_destroy(hbFace)
        hb.hb_blob_destroy(hbBlob)
        _ = ft.FT_Done_Face(face)
        _ = ft.FT_Done_FreeType(library)
        storage.deallocate()
    }

    /// Whether the face has a glyph for `scalar` (its cmap maps it).
    public func covers(_ scalar: Unicode.Scalar) -> Bool {
        var glyph: hb_codepoint_t = 0
        return hb.hb_font_get_nominal_glyph(hbFont, scalar.value, &glyph) != 0
    }

    /// `text` (one run: one face, one script) shaped by HarfBuzz with its script and direction
    /// guessed from its characters.
    public func shape(_ text: String, size: Double) -> [GlyphFaceGlyph] {
        let buffer = hb.hb_buffer_create()
        defer { hb.hb_buffer_destroy(buffer) }
        let utf8 = Array(text.utf8)
        utf8.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                hb.hb_buffer_add_utf8(buffer, c.baseAddress, Int32(c.count), 0, Int32(c.count))
            }
        }
        hb.hb_buffer_guess_segment_properties(buffer)
        hb.hb_shape(hbFont, buffer, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb.hb_buffer_get_glyph_infos(buffer, &count), let positions = hb.hb_buffer_get_glyph_positions(buffer, &count) else { return [] }
        let scale = size / unitsPerEm
        return (0..<Int(count)).map { i in
            let p = positions[i]
            return GlyphFaceGlyph(glyph: infos[i].codepoint, x: Double(p.x_offset) * scale, y: -Double(p.y_offset) * scale, advance: Double(p.x_advance) * scale)
        }
    }

    /// The outline of glyph `glyph` at `size` pixels per em, with its origin (pen position on
    /// the baseline) at (0, 0) and y down; empty for a glyph without contours (a space).
    public func outline(glyph: UInt32, size: Double) -> Path {
        guard let face, ft.FT_Load_Glyph(face, glyph, Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING)) == 0 else { return Path() }
        var builder = OutlineBuilder(scale: size / unitsPerEm)
        var funcs = FT_Outline_Funcs(
            move_to: { to, user in
                user!.assumingMemoryBound(to: OutlineBuilder.self).pointee.move(to!.pointee); return 0
            },
            line_to: { to, user in
                user!.assumingMemoryBound(to: OutlineBuilder.self).pointee.line(to!.pointee); return 0
            },
            conic_to: { c, to, user in
                user!.assumingMemoryBound(to: OutlineBuilder.self).pointee.quad(c!.pointee, to!.pointee); return 0
            },
            cubic_to: { c1, c2, to, user in
                user!.assumingMemoryBound(to: OutlineBuilder.self).pointee.cubic(c1!.pointee, c2!.pointee, to!.pointee); return 0
            },
            shift: 0, delta: 0)
        withUnsafeMutablePointer(to: &builder) { b in
            _ = ft.FT_Outline_Decompose(&face.pointee.glyph.pointee.outline, &funcs, b)
        }
        builder.path.close()
        return builder.path
    }

    /// Collects FreeType's outline callbacks into a `Path` in pixels, y flipped to point down.
    private struct OutlineBuilder {
        let scale: Double
        var path = Path()
        var open = false

        func point(_ v: FT_Vector) -> Point { Point(x: Double(v.x) * scale, y: -Double(v.y) * scale) }
        mutating func move(_ v: FT_Vector) {
            if open { path.close() }
            path.move(to: point(v))
            open = true
        }
        mutating func line(_ v: FT_Vector) { path.line(to: point(v)) }
        mutating func quad(_ c: FT_Vector, _ v: FT_Vector) { path.quad(to: point(v), control: point(c)) }
        mutating func cubic(_ c1: FT_Vector, _ c2: FT_Vector, _ v: FT_Vector) { path.cubic(to: point(v), control1: point(c1), control2: point(c2)) }
    }
}
#endif
