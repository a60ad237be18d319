import Foundation
import GeoTestSupport
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Symbol layers' text drawn by `StyleSnapshot` with the render suite's glyph PBFs
/// (`maplibre-render/glyphs`, Open Sans Semibold at 24 px): where the ink lands for anchors,
/// line breaking, halos and collisions. Distances in device pixels at pixel ratio 1.
@Suite struct SymbolTextTests {
    /// A 256 × 256 image of `layout` (members of the layout object) / `paint` over points at longitudes `points` (latitude 0), zoom 0.
    private func draw(layout: String, paint: String = "{}", points: [Double] = [0], field: String = "{name}") throws -> StyleSnapshot? {
        guard let glyphs = try Fixtures.url("maplibre-render/glyphs") else { return nil }
        let features = points.map { #"{"type": "Feature", "properties": {"name": "Test Test Test"}, "geometry": {"type": "Point", "coordinates": [\#($0), 0]}}"# }
        let text = """
            {"version": 8, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
             "sources": {"p": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [\(features.joined(separator: ","))]}}},
             "layers": [{"id": "t", "type": "symbol", "source": "p",
                         "layout": {"text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"], "text-field": "\(field)"\(layout.isEmpty ? "" : ", " + layout)},
                         "paint": \(paint)}]}
            """
        let style = try StyleDocument(data: Data(text.utf8))
        let camera = StyleCamera(style: style, width: 256, height: 256, pixelRatio: 1)
        return try StyleSnapshot(style: style, camera: camera) { url in
            guard url.hasPrefix("local://glyphs/") else { throw StyleRenderError("no file \(url)") }
            return [UInt8](try Data(contentsOf: glyphs.appendingPathComponent(String(url.dropFirst("local://glyphs/".count)))))
        }
    }

    /// The box of pixels with alpha over 128 and the count of such pixels.
    private func ink(_ image: Pixmap, where keep: (Color) -> Bool = { $0.alpha > 128 }) -> (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int) {
        var box = (minX: Int.max, minY: Int.max, maxX: -1, maxY: -1, count: 0)
        for y in 0..<image.height {
            for x in 0..<image.width where keep(image.color(x: x, y: y)) {
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y), box.count + 1)
            }
        }
        return box
    }

    @Test func maxWidthBreaksIntoLinesAndTheAnchorPlacesTheBlock() throws {
        guard let one = try draw(layout: #""text-max-width": 100"#), let three = try draw(layout: #""text-max-width": 2"#) else { return }
        #expect(one.warnings.isEmpty, "\(one.warnings)")
        let a = ink(one.image), b = ink(three.image)
        // One line of 16 px text (the default size): ink about 12 px tall, centred on (128, 128).
        #expect((9...14).contains(a.maxY - a.minY), "\(a)")
        #expect(abs((a.minX + a.maxX) / 2 - 128) <= 2 && abs((a.minY + a.maxY) / 2 - 128) <= 3, "\(a)")
        // At 2 ems (48 px) a line per word: three lines 1.2 em apart, 2 × 19.2 px more ink
        // height, a word (a third of the line less its two spaces) wide.
        #expect(abs(Double(b.maxY - b.minY - (a.maxY - a.minY)) - 38.4) <= 2, "\(b)")
        #expect(abs(Double(b.maxX - b.minX) - Double(a.maxX - a.minX) / 3) <= 6, "\(b)")
        // Anchor top: the block hangs under the point.
        let top = try #require(try draw(layout: #""text-max-width": 100, "text-anchor": "top""#))
        let t = ink(top.image)
        #expect(t.minY >= 128 && t.minY <= 134, "\(t)")
    }

    @Test func charactersWithoutGlyphsTakeNoLetterSpacingWhenLinesAreBroken() throws {
        // "{name:latin}\n{name:nonlatin}" (OSM Bright, Positron) leaves a newline at the end of a
        // Latin name; like it, U+0001 has no glyph in the PBF. "Test Test Test" at letter spacing
        // 0.5 em (12 px a character) stays one line under 15 em (360 px); ten glyph-less
        // characters that each took 12 px of spacing added 120 px and broke it in two.
        guard let plain = try draw(layout: #""text-max-width": 15, "text-letter-spacing": 0.5"#),
              let padded = try draw(layout: #""text-max-width": 15, "text-letter-spacing": 0.5"#,
                                    field: "{name}" + String(repeating: #"\u0001"#, count: 10))
        else { return }
        let a = ink(plain.image), b = ink(padded.image)
        #expect((9...14).contains(a.maxY - a.minY), "one line: \(a)")
        #expect(a.minX == b.minX && a.maxX == b.maxX && a.minY == b.minY && a.maxY == b.maxY, "\(a) vs \(b)")
    }

    /// GL JS's `mergeLines`: two lines of one name, the second starting where the first ends,
    /// are one line of twice the length: with a spacing longer than both, one label at its
    /// middle (the joint); the same lines meeting end to end (the second reversed) are not
    /// joined, and each gets its own label at its middle, ±75 px from the centre.
    @Test func linesOfOneTextMeetingEndToStartAreLabelledAsOneLine() throws {
        guard let glyphs = try Fixtures.url("maplibre-render/glyphs") else { return }
        func labels(_ second: String) throws -> [Int] {
            // 105° of longitude is 149 px at zoom 0 (512 px around the world).
            let text = """
                {"version": 8, "glyphs": "local://glyphs/{fontstack}/{range}.pbf",
                 "sources": {"l": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
                    {"type": "Feature", "properties": {"name": "Ab"}, "geometry": {"type": "LineString", "coordinates": [[-105, 0], [0, 0]]}},
                    {"type": "Feature", "properties": {"name": "Ab"}, "geometry": {"type": "LineString", "coordinates": \(second)}}]}}},
                 "layers": [{"id": "t", "type": "symbol", "source": "l",
                             "layout": {"symbol-placement": "line", "symbol-spacing": 1000, "text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"], "text-field": "{name}"},
                             "paint": {"text-color": "#000000"}}]}
                """
            let style = try StyleDocument(data: Data(text.utf8))
            let s = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 256, height: 64, pixelRatio: 1)) { url in
                [UInt8](try Data(contentsOf: glyphs.appendingPathComponent(String(url.dropFirst("local://glyphs/".count)))))
            }
            // The columns with ink, grouped into runs at least 10 px apart: one run per label.
            let columns = (0..<256).filter { x in (0..<64).contains { s.image.color(x: x, y: $0).alpha > 128 } }
            var runs: [Int] = []
            for (i, x) in columns.enumerated() where i == 0 || x - columns[i - 1] > 10 { runs.append(x) }
            return runs
        }
        let joined = try labels("[[0, 0], [105, 0]]"), apart = try labels("[[105, 0], [0, 0]]")
        #expect(joined.count == 1, "\(joined)")
        #expect(apart.count == 2, "\(apart)")
    }

    @Test func haloSurroundsTheTextInItsColour() throws {
        guard let s = try draw(layout: "", paint: ##"{"text-color": "#000000", "text-halo-color": "#ff0000", "text-halo-width": 2}"##) else { return }
        let red = ink(s.image) { $0.red > 200 && $0.green < 60 && $0.alpha > 200 }
        let black = ink(s.image) { $0.red < 60 && $0.alpha > 200 }
        #expect(red.count > black.count / 2, "halo \(red.count) px, text \(black.count) px")
        // The halo reaches about 2 px past the text on each side.
        #expect((1...4).contains(black.minX - red.minX) && (1...4).contains(red.maxX - black.maxX), "\(red) \(black)")
    }

    @Test func collidingLabelsKeepTheFirstUnlessOverlapIsAllowed() throws {
        // Two points 2° apart at zoom 0: 2.8 px, the labels overlap.
        guard let kept = try draw(layout: "", points: [0, 2]), let both = try draw(layout: #""text-allow-overlap": true"#, points: [0, 2]),
              let single = try draw(layout: "") else { return }
        #expect(ink(kept.image).count == ink(single.image).count)
        #expect(ink(both.image).count > ink(single.image).count)
    }

    @Test func aLabelIsReportedWhereItsTextReachesTheImageNotWhereItsAnchorLies() throws {
        // At zoom 0 on a 256-px image x = 128 + lon / 360 · 512. "Test Test Test" at 16 px is
        // about 110 px wide, centred on its anchor: the anchor at x ≈ −20 (lon −104.06) leaves
        // its right end about 35 px into the image; at x ≈ −114 (lon −170) none of it reaches in.
        guard let s = try draw(layout: #""text-allow-overlap": true"#, points: [0, -104.0625, -170]) else { return }
        let ink = self.ink(s.image)
        #expect(s.symbols.count == 2, "\(s.symbols)")
        let edge = try #require(s.symbols.first { $0.anchor.x < 0 })
        #expect(abs(edge.anchor.x + 20) <= 0.5, "\(edge)")
        // Its rectangle is cut at the image's left edge and ends a few pixels past the ink there.
        #expect(edge.minX == 0 && (20...50).contains(edge.maxX), "\(edge)")
        #expect(ink.minX == 0, "\(ink)")
        #expect(s.symbols.allSatisfy { $0.minX < $0.maxX && $0.minY < $0.maxY && $0.maxX <= 256 })
    }
}
