import Foundation
import MapData
import MapRenderer
import Testing

/// Noto Sans Regular alone (Debian fonts-noto-core); nil (skip) outside CI when not installed.
private func notoSans() throws -> FontFace? { try notoFaces()?.first }

@Test func glyphSDF_metricsOfAMatchFreeType() throws {
    guard let face = try notoSans() else { return }
    // Built as `geo glyphs build` builds a range, then read back through the decoder.
    let range = GlyphStackBuilder(faces: [face]).range(startingAt: 0)
    #expect(range.name == "Noto Sans Regular")
    let decoded = try GlyphPBF.decode(GlyphPBF.encode([range]))
    let a = try #require(decoded.first?.glyphs.first { $0.id == 65 })
    let ft = try #require(face.freeTypeMetrics("A", size: 24))
    // Pixels at 24 px per em; our box is over the flattened outline, FreeType's over its
    // control points, both rounded: within 1 px.
    #expect(abs(Double(a.width) - ft.width) <= 1, "width \(a.width) vs \(ft.width)")
    #expect(abs(Double(a.height) - ft.height) <= 1, "height \(a.height) vs \(ft.height)")
    #expect(abs(Double(a.left) - ft.bearingX) <= 1, "left \(a.left) vs \(ft.bearingX)")
    #expect(abs(Double(a.top) - (ft.bearingY - ft.ascender)) <= 1, "top \(a.top) vs \(ft.bearingY - ft.ascender)")
    #expect(a.advance == Int(ft.advance.rounded(.down)))
    #expect(a.bitmap.count == (a.width + 6) * (a.height + 6))
    // Every printable ASCII character Noto Sans has is in the range; the space has no ink.
    #expect(Set(range.glyphs.map(\.id)).isSuperset(of: Set(32...126)))
    #expect(range.glyphs.first { $0.id == 32 }?.bitmap.isEmpty == true)
}

/// The field's 192 contour is the glyph's outline: pixels the rasterizer covers fully read
/// above 192, pixels it leaves empty read below (distance 0.5 px = 16 levels either side).
@Test func glyphSDF_outlineAt192MatchesTheRasterizedGlyph() throws {
    guard let face = try notoSans() else { return }
    for character in ["A", "g", "@", "e"] as [Unicode.Scalar] {
        let g = try #require(face.sdfGlyph(character))
        let ft = try #require(face.freeTypeMetrics(character, size: 24))
        let ascender = ft.ascender.rounded(.towardZero)
        let w = g.width + 6, h = g.height + 6
        let id = try #require(face.shape(String(character), size: 24).first?.glyph)
        // The bitmap's top-left corner is ink (left − 3, top + ascender + 3), y up.
        let path = face.outline(glyph: id, size: 24)
            .applying(AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: Double(3 - g.left), ty: Double(g.top) + ascender + 3))
        var canvas = try Canvas(width: w, height: h, background: .transparent)
        canvas.fill(path, color: Color(red: 0, green: 0, blue: 0, alpha: 255))
        var agree = 0, judged = 0
        for y in 0..<h {
            for x in 0..<w {
                let coverage = Double(canvas.pixmap.color(x: x, y: y).alpha) / 255
                let field = Int(g.bitmap[y * w + x])
                if coverage > 0.95 { judged += 1; agree += field > 192 - 8 ? 1 : 0 }
                if coverage < 0.05 { judged += 1; agree += field < 192 + 8 ? 1 : 0 }
            }
        }
        #expect(judged > w * h / 2)
        #expect(Double(agree) >= 0.99 * Double(judged), "\(character): \(agree) of \(judged) pixels agree")
    }
}
