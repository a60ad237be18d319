@testable import MapRenderer
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A line that runs right for `bendAt` pixels, then turns by `turn` degrees (negative: up on
/// screen) and runs on for 200 px.
private func bentLine(bendAt: Double, turn: Double) -> [Point] {
    let a = turn * .pi / 180
    return [Point(x: 0, y: 100), Point(x: bendAt, y: 100), Point(x: bendAt + 200 * cos(a), y: 100 + 200 * sin(a))]
}

/// Every point of a glyph's outline on the image.
private func inkPoints(_ text: TextRenderer, _ g: ShapedGlyph, size: Double, _ t: AffineTransform) -> [Point] {
    text.outline(face: g.face, glyph: g.glyph, size: size).applying(t).flattened().flatMap(\.points)
}

/// "Boulevard de Suisse" along a line bent by 25° (the most a street name may turn from glyph
/// to glyph) up or down, with the bend under the last "d" of "Boulevard", in the space, or
/// under the "d" of "de": on the line, the space between the words stays the space's advance
/// (within 0.01 px), and the two "d"s' outlines stay at least 1.5 px apart (Noto Sans at
/// 11 px: a space of 2.86 px plus side bearings; the old placement, each glyph turned to the
/// line at its left end, brought them within a pixel).
@Test func labelAlongBentLine_keepsTheSpaceBetweenWords() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let size = 11.0
    let shaped = text.shape("Boulevard de Suisse", size: size)
    try #require(shaped.glyphs.count == 19, "one glyph per letter, no ligature")
    let space = shaped.glyphs[9]
    #expect(space.advance > 2 && space.advance < 4, "Noto Sans's space at 11 px: 0.26 em")
    let onLine = -size * TextRenderer.baselineBelowLine
    let offset = 20.0
    let lastD = shaped.glyphs[8], nextD = shaped.glyphs[10]
    for turn in [-25.0, 25.0] {
        for bend in [offset + lastD.x + lastD.advance / 2, offset + space.x + space.advance / 2, offset + nextD.x + nextD.advance / 2] {
            let placed = try #require(TextRenderer.placements(of: shaped, along: PolylineMeasure(bentLine(bendAt: bend, turn: turn)), offset: offset))
            #expect(placed.count == shaped.glyphs.count)
            let end = placed[8].apply(Point(x: lastD.advance, y: onLine)), start = placed[10].apply(Point(x: 0, y: onLine))
            #expect(abs((start - end).length - space.advance) < 0.01, "turn \(turn)°, bend at \(bend) px: gap \((start - end).length) px on the line")
            let a = inkPoints(text, lastD, size: size, placed[8]), b = inkPoints(text, nextD, size: size, placed[10])
            let closest = a.map { p in b.map { (p - $0).length }.min()! }.min()!
            #expect(closest > 1.5, "turn \(turn)°, bend at \(bend) px: the words' outlines \(closest) px apart")
        }
    }
}

/// On a straight line every glyph lands where shaping put it: pen positions along the line,
/// all turned to the line's direction (within 1e-9 px and rad).
@Test func labelAlongStraightLine_matchesShapedPositions() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let shaped = text.shape("Rue Grimaldi", size: 11)
    let angle = 0.3
    let line = [Point(x: 10, y: 10), Point(x: 10 + 300 * cos(angle), y: 10 + 300 * sin(angle))]
    let placed = try #require(TextRenderer.placements(of: shaped, along: PolylineMeasure(line), offset: 5))
    for (g, t) in zip(shaped.glyphs, placed) {
        let origin = t.apply(Point(x: 0, y: 0)), drop = 11 * TextRenderer.baselineBelowLine
        let along = 5 + g.x
        let expected = Point(x: 10 + along * cos(angle) - drop * sin(angle), y: 10 + along * sin(angle) + drop * cos(angle))
        #expect((origin - expected).length < 1e-9)
        #expect(abs(atan2(t.b, t.a) - angle) < 1e-9)
    }
    #expect(TextRenderer.placements(of: shaped, along: PolylineMeasure(line), offset: 300 - shaped.width / 2) == nil, "runs off the line's end")
}

/// "Quai Louis II" along a nearly straight line with a vertex every 1.5 px, each 0.3 px off
/// the straight (a mapped quay drawn at z17): every glyph starts where the one before ended,
/// on the line, its advance away (within 0.05 px), so both spaces keep their width and no
/// glyph slides onto its neighbour.
@Test func labelAlongWigglyLine_keepsEveryAdvance() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let size = 11.0
    let shaped = text.shape("Quai Louis II", size: size)
    try #require(shaped.glyphs.count == 13)
    #expect(shaped.glyphs[4].advance > 2 && shaped.glyphs[10].advance > 2, "two spaces with an advance")
    let line = (0...200).map { i in Point(x: 10 + Double(i) * 1.5, y: 50 + (i % 2 == 0 ? 0.3 : -0.3)) }
    let placed = try #require(TextRenderer.placements(of: shaped, along: PolylineMeasure(line), offset: 40))
    let onLine = -size * TextRenderer.baselineBelowLine
    for i in 1..<shaped.glyphs.count {
        let previous = shaped.glyphs[i - 1]
        let end = placed[i - 1].apply(Point(x: previous.advance, y: onLine))
        let start = placed[i].apply(Point(x: 0, y: onLine))
        #expect((start - end).length < 0.05, "glyph \(i) starts \((start - end).length) px from where glyph \(i - 1) ended")
        let origin = placed[i - 1].apply(Point(x: 0, y: onLine))
        #expect(abs((start - origin).length - previous.advance) < 0.05, "glyph \(i - 1): \((start - origin).length) px on the line for an advance of \(previous.advance)")
    }
}
