import Foundation
import GeoTestSupport
import MapData
import Testing

/// The render test suite's glyph range (`maplibre-render/glyphs/…/0-255.pbf`, made by
/// node-fontnik from Open Sans Semibold and Arial Unicode MS Bold).
private func openSansRange() throws -> [UInt8]? {
    guard let url = try Fixtures.url("maplibre-render/glyphs/Open Sans Semibold,Arial Unicode MS Bold/0-255.pbf") else { return nil }
    return [UInt8](try Data(contentsOf: url))
}

@Test func glyphPBF_decodesFontnikRange() throws {
    guard let bytes = try openSansRange() else { return }
    let stacks = try GlyphPBF.decode(bytes)
    #expect(stacks.count == 1)
    let stack = try #require(stacks.first)
    #expect(stack.name == "Open Sans Semibold, Arial Unicode MS Bold")
    #expect(stack.range == "0-255")
    #expect(stack.glyphs.allSatisfy { $0.id <= 255 })
    let a = try #require(stack.glyphs.first { $0.id == 65 })
    // A capital A at 24 px: about 15 px wide, 17 px tall (cap height ≈ 0.71 em), sitting on the
    // baseline, which fontnik's `top` (relative to the ascender) puts about 17 px down.
    #expect((12...18).contains(a.width) && (15...19).contains(a.height))
    #expect(a.bitmap.count == (a.width + 6) * (a.height + 6))
    #expect((-9 ... -1).contains(a.top), "top \(a.top)")
    // The field is 192 on the outline: the border rows are outside (small values), the
    // middle of the left stroke is inside (≥ 192).
    #expect(a.bitmap.prefix(a.width + 6).allSatisfy { $0 < 100 })
    let space = try #require(stack.glyphs.first { $0.id == 32 })
    #expect(space.width == 0 && space.bitmap.isEmpty && space.advance > 0)
}

@Test func glyphPBF_roundTripsBytesForBytes() throws {
    guard let bytes = try openSansRange() else { return }
    let stacks = try GlyphPBF.decode(bytes)
    let again = GlyphPBF.encode(stacks)
    #expect(try GlyphPBF.decode(again) == stacks)
    #expect(again == bytes, "fontnik writes the fields in glyphs.proto order, as the encoder does")
}

@Test func glyphPBF_refusesBadInputWithItsPlace() throws {
    let glyph = SDFGlyph(id: 65, bitmap: [UInt8](repeating: 7, count: 9 * 10), width: 3, height: 4, left: 1, top: -5, advance: 6)
    let good = GlyphPBF.encode([GlyphFontStack(name: "Test Regular", range: "0-255", glyphs: [glyph])])
    #expect(try GlyphPBF.decode(good).first?.glyphs == [glyph])

    // Truncated: every cut inside the message is refused with an offset inside the input.
    for cut in 1..<good.count {
        do {
            _ = try GlyphPBF.decode(Array(good.prefix(cut)))
            Issue.record("a PBF cut at byte \(cut) decoded")
        } catch {
            #expect(error.code == .invalidGlyphs)
            #expect((0..<cut).contains(error.offset ?? -1), "cut \(cut): \(error)")
        }
    }

    // A bitmap that is not (width + 6) × (height + 6): the error names the glyph and points at its bitmap.
    var short = glyph
    short.bitmap.removeLast()
    let shortBytes = GlyphPBF.encode([GlyphFontStack(name: "Test Regular", range: "0-255", glyphs: [short])])
    #expect {
        try GlyphPBF.decode(shortBytes)
    } throws: { e in
        guard let e = e as? MapDataError else { return false }
        return e.code == .invalidGlyphs && e.message.contains("glyph 0 (U+41)") && e.message.contains("89 bytes") && (e.offset ?? 0) > 0
    }

    // A code point past U+FFFF.
    var astral = glyph
    astral.id = 0x1F600
    let astralBytes = GlyphPBF.encode([GlyphFontStack(name: "Test Regular", range: "0-255", glyphs: [astral])])
    #expect {
        try GlyphPBF.decode(astralBytes)
    } throws: { e in
        (e as? MapDataError)?.message.contains("U+1F600): code point past U+FFFF") == true
    }
    #expect(GlyphPBF.rangeName(0x1F600) == nil)
    #expect(GlyphPBF.rangeName(0x4E2D) == "19968-20223")
}
