@testable import MapRenderer
import Testing

/// A halo drawn as the glyph grown by the halo width (``Stroker/grown(_:by:tolerance:)``) covers
/// what the glyph's stroke 2 × width wide covers outside the glyph and all of the glyph
/// inside: for TrueType outlines (Noto Sans: Latin, Arabic) and CFF ones (Noto Sans CJK,
/// wound the other way), turned 40°. Outside within 0.03 of a pixel (8 levels of 255): beside
/// a sharp corner (the tail of "e") the two outlines overlap themselves differently, and the
/// rasterizer clamps a pixel's mean winding, not each part's (as font-rs and stb_truetype do):
/// 0.98 against 1.0 at two pixels of the 9 glyphs.
@Test func glyphGrownByHalo_coversTheStrokeOutsideAndTheGlyphInside() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let size = 20.0, halo = 1.5
    for word in ["eB@", "بيت", "字國"] {
        let shaped = text.shape(word, size: size)
        try #require(!shaped.glyphs.isEmpty)
        for g in shaped.glyphs {
            let place = AffineTransform.rotation(radians: 0.7).then(.translation(x: 24, y: 30))
            let flat = text.outline(face: g.face, glyph: g.glyph, size: size).flattened().map { c in
                Path.Contour(points: c.points.map(place.apply), isClosed: true)
            }
            var r = Rasterizer()
            let glyph = r.coverage(of: flat, rule: .nonZero, clipWidth: 48, clipHeight: 48)
            let stroke = r.coverage(of: Stroker.outline(of: flat, style: StrokeStyle(width: 2 * halo, join: .round)), rule: .nonZero, clipWidth: 48, clipHeight: 48)
            let grown = r.coverage(of: Stroker.grown(flat, by: halo), rule: .nonZero, clipWidth: 48, clipHeight: 48)
            var outside: Float = 0, inside: Float = 0, covered = 0
            for y in 0..<48 {
                for x in 0..<48 {
                    let ink = glyph.coverage(x: x, y: y), h = grown.coverage(x: x, y: y)
                    if h > 0 { covered += 1 }
                    if ink == 0 { outside = max(outside, abs(h - stroke.coverage(x: x, y: y))) }
                    if ink >= 1 { inside = max(inside, 1 - h) }
                }
            }
            #expect(outside < 0.03, "\(word) glyph \(g.glyph): outside the glyph the halo differs from the stroke by \(outside)")
            #expect(inside < 0.01, "\(word) glyph \(g.glyph): inside the glyph the halo leaves \(inside) uncovered")
            #expect(covered > 0 || flat.isEmpty)
        }
    }
}
