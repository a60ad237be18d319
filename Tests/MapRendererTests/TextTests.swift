import Foundation
import GeoTestSupport
import MapRenderer
import SystemIO
import Testing

/// Noto Sans, Noto Sans Arabic and Noto Sans CJK as `NotoFonts` finds them (Debian
/// fonts-noto-core, fonts-noto-cjk), in that fallback order; nil (skip) outside CI when they
/// are not installed.
func notoFaces() throws -> [FontFace]? {
    do {
        return try NotoFonts.faces(environment: [:], read: { try FileDescriptor.readContentsIfPresent(of: $0) })
    } catch let error as RenderError where error.code == .fontNotFound {
        if Fixtures.isCI { throw FixtureError.missing("\(error.message) (scripts/setup.sh installs them)") }
        print("note: skipping, \(error.message)")
        return nil
    }
}

@Test func shaping_picksTheFaceThatCoversEachScript() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    #expect(Set(text.shape("Monaco", size: 16).glyphs.map(\.face)) == [0])
    #expect(Set(text.shape("モナコ", size: 16).glyphs.map(\.face)) == [2])
    #expect(Set(text.shape("موناكو", size: 16).glyphs.map(\.face)) == [1])
    // Mixed: the Latin run from face 0, the Japanese from face 2, the space stays with Latin.
    let mixed = text.shape("Monaco モナコ", size: 16)
    #expect(mixed.glyphs.map(\.face) == [0, 0, 0, 0, 0, 0, 0, 2, 2, 2])
    #expect(mixed.glyphs.map(\.x) == mixed.glyphs.map(\.x).sorted(), "visual order, left to right")
}

@Test func arabic_isJoinedAndRightToLeft() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let word = "موناكو" // Monaco: meem waw noon alef kaf waw
    let joined = text.shape(word, size: 20)
    let isolated = word.map { text.shape(String($0), size: 20).glyphs[0].glyph }
    #expect(joined.glyphs.count == 6)
    // Joining: the first letter (meem, initial form) is not its isolated glyph; a right-to-left
    // run comes out in visual order, so the initial meem is the last (rightmost) glyph.
    #expect(joined.glyphs.last?.glyph != isolated[0])
    #expect(Set(joined.glyphs.map(\.glyph)) != Set(isolated))
    // Right to left: the glyph of the last logical letter (final waw) is drawn leftmost.
    #expect(joined.glyphs.first?.x == 0)
    #expect(joined.width > 0)
}

@Test func golden_threeScriptsSideBySide() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    var canvas = try Canvas(width: 260, height: 40, background: Color(hex: 0xE8E4D8))
    let style = TextStyle(size: 18, color: Color(hex: 0x202020))
    var x = 8.0
    for name in ["Monaco", "モナコ", "موناكو"] {
        let shaped = text.shape(name, size: style.size)
        text.draw(shaped, at: Point(x: x, y: 26), style: style, on: &canvas)
        x += shaped.width + 24
    }
    // FreeType versions may round outlines a little differently: a small per-pixel tolerance.
    try expectMatchesGolden(canvas.pixmap, "scripts", tolerance: 24, maxDiffering: 40)
    // Ink in each third: every label drew something dark.
    for third in 0..<3 {
        let dark = (0..<40).flatMap { y in (third * 86..<(third + 1) * 86).map { canvas.pixmap.color(x: $0, y: y) } }.filter { $0.red < 100 }
        #expect(dark.count > 20, "label \(third)")
    }
}

@Test func badFont_isAClearError() {
    let error = #expect(throws: RenderError.self) { try FontFace(data: Array("not a font".utf8), name: "bogus.ttf") }
    #expect(error?.code == .font && error?.message.contains("bogus.ttf") == true)
    #expect(throws: RenderError.self) { try TextRenderer(faces: []) }
}

/// The ink's horizontal centre of mass in `pixmap`, pixels (coverage-weighted darkness).
private func inkCentreX(_ pixmap: Pixmap) -> Double {
    var sum = 0.0, weight = 0.0
    for y in 0..<pixmap.height {
        for x in 0..<pixmap.width {
            let ink = 255 - Double(pixmap.color(x: x, y: y).red)
            sum += ink * (Double(x) + 0.5); weight += ink
        }
    }
    return sum / weight
}

@Test func straightText_movesWithItsPenToAQuarterPixel() throws {
    guard let faces = try notoFaces() else { return }
    let text = try TextRenderer(faces: faces)
    let shaped = text.shape("l", size: 18)
    var centres: [Double] = []
    for x in [10.0, 10.5, 10.9, 11.0] {
        var canvas = try Canvas(width: 32, height: 32, background: .white)
        text.draw(shaped, at: Point(x: x, y: 24), style: TextStyle(size: 18, color: .black), on: &canvas)
        centres.append(inkCentreX(canvas.pixmap))
    }
    // Quarter-pixel masks: the ink follows the pen within 1/8 px (+ 0.02 px of coverage rounding);
    // a pen 0.9 px past a pixel must not fall back to that pixel's left edge.
    for (i, dx) in [0.0, 0.5, 0.9, 1.0].enumerated() {
        #expect(abs(centres[i] - centres[0] - dx) <= 0.125 + 0.02, "pen +\(dx) px: ink moved \(centres[i] - centres[0]) px")
    }
}
