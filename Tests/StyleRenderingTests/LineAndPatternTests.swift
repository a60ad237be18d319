import Foundation
import GeoCore
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Lines as MapLibre GL's line shader draws them (width, gap, dashes in line widths) and
/// patterns from the style's sprite, on a 64-pixel image of the zoom-0 world (512 px wide).
@Suite struct LineAndPatternTests {
    private func draw(_ layers: String, sprite: String = "", root: String = "", size: Int = 64, files: [String: [UInt8]] = [:]) throws -> StyleSnapshot {
        // A line along the equator from 20° W to 20° E: ±(20/360)·512 ≈ ±28.4 px around x = 32.
        let text = """
            {"version": 8, \(sprite) \(root) "sources": {"g": {"type": "geojson", "data": {"type": "LineString", "coordinates": [[-20, 0], [20, 0]]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}}, \(layers)]}
            """
        let style = try StyleDocument(data: Data(text.utf8))
        let camera = StyleCamera(style: style, width: size, height: size, pixelRatio: 1)
        return try StyleSnapshot(style: style, camera: camera) { url in
            guard let bytes = files[url] else { throw StyleRenderError("no file \(url)") }
            return bytes
        }
    }

    private let white = Color(red: 255, green: 255, blue: 255)
    private let black = Color(red: 0, green: 0, blue: 0)

    @Test func aLineCoversItsWidthAcrossAndStopsAtItsButtEnds() throws {
        // Width 4 px centred on y = 32: rows 30…33 full; row 28 and 35 outside (1 px of antialiasing each side).
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 4, "line-color": "black"}}"#)
        for y in 30...33 { #expect(s.image.color(x: 32, y: y) == black) }
        #expect(s.image.color(x: 32, y: 27) == white)
        #expect(s.image.color(x: 32, y: 36) == white)
        // Butt caps end at x ≈ 3.6 and 60.4.
        #expect(s.image.color(x: 1, y: 32) == white)
        #expect(s.image.color(x: 62, y: 32) == white)
        #expect(s.warnings.isEmpty)
    }

    @Test func aGapLeavesTheMiddleEmptyBetweenTwoHalves() throws {
        // gap 6, width 2: the middle ±3 px stays white, each half 2 px wide beside it (rows 28, 35).
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 2, "line-gap-width": 6, "line-color": "black"}}"#)
        #expect(s.image.color(x: 32, y: 31) == white)
        #expect(s.image.color(x: 32, y: 32) == white)
        #expect(s.image.color(x: 32, y: 28) == black)
        #expect(s.image.color(x: 32, y: 35) == black)
    }

    @Test func dashesAreMeasuredInLineWidths() throws {
        // Width 2, dashes [2, 2]: 4 px on, 4 px off from the line's start at x ≈ 3.56.
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 2, "line-color": "black", "line-dasharray": [2, 2]}}"#)
        let row = (0..<64).map { s.image.color(x: $0, y: 32) == black }
        // Dash centres at 3.56 + 2 + 8k, gap centres at 3.56 + 6 + 8k.
        for k in 0..<6 {
            #expect(row[5 + 8 * k], "dash \(k)")
            #expect(!row[9 + 8 * k], "gap \(k)")
        }
    }

    @Test func dashEndsAtAnIntegerZoomSmoothOverTheHalvedPatternOfTheFade() throws {
        // Width 2, dashes [2.25, 2.25]: 4.5 px on from x ≈ 3.556 to 8.056. At zoom 0 MapLibre
        // fades from zoom 1's pattern scaled ½, so the edge smooths over the 2.25-width pattern:
        // u_sdfgamma / floorwidth = 1 / (2 · 2.25 · 2) = 1/9 of the field. Pixel 8's centre lies
        // 0.444 px into the gap, 0.5 texel (of 256 / 4.5 a width) sampled back: field value
        // (128 − 12.15) / 255 = 0.4545, smoothstep(0.389, 0.611) = 0.21 of black, 201 of 255.
        // Smoothed over the drawn 4.5-width pattern alone (0.0556) it would be 0.024, 249.
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 2, "line-color": "black", "line-dasharray": [2.25, 2.25]}}"#)
        let c = s.image.color(x: 8, y: 32)
        #expect(abs(Int(c.red) - 201) <= 8, "pixel 8 is \(c.red), 201 ± 8 expected")
        #expect(s.image.color(x: 5, y: 32) == black)
        #expect(s.image.color(x: 10, y: 32) == white)
    }

    @Test func aLineEndingWhereItStartsIsJoinedThereNotCapped() throws {
        // A square 40° a side about (0, 0) on a 128 px image of the zoom-0 world: its corners
        // at x = 64 ∓ 28.44, y = 64 ∓ 28.99 (Mercator). Width 8 (outset 4.5) with round caps.
        // Closed, its start corner (−20, −20), bottom left, is a miter join as the top left is:
        // pixel (32, 96), 3.06 px left of the side and 3.5 px below the corner, is inside the
        // miter, as its mirror (32, 31) is. Left open (the last point dropped), two round caps
        // of radius 4.5 end there and leave it out (4.65 px from the corner).
        func corner(_ ring: String) throws -> (start: Color, mirror: Color) {
            let text = """
                {"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "LineString", "coordinates": \(ring)}}},
                 "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                            {"id": "l", "type": "line", "source": "g", "layout": {"line-cap": "round"}, "paint": {"line-width": 8, "line-color": "black"}}]}
                """
            let style = try StyleDocument(data: Data(text.utf8))
            let s = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 128, height: 128, pixelRatio: 1)) { url in throw StyleRenderError("no file \(url)") }
            return (s.image.color(x: 32, y: 96), s.image.color(x: 32, y: 31))
        }
        let closed = try corner("[[-20, -20], [-20, 20], [20, 20], [20, -20], [-20, -20]]")
        #expect(closed.mirror == black)
        #expect(closed.start == black)
        let open = try corner("[[-20, -20], [-20, 20], [20, 20], [20, -20]]")
        #expect(open.mirror == black)
        #expect(open.start == white)
    }

    @Test func aTiltedLineFadesOverAboutOneImagePixel() throws {
        // Pitch 60° shows the equator line across the image's middle at half its height
        // (cos 60°) and the map's scale there. MapLibre widens the edge's fade by how much the
        // tilt shrinks the extrusion (v_gamma_scale = 2), so a 4 px line (outset 2.5 px on the
        // ground, alpha (2.5 − d) / 2 past d = 0.5) leaves 2 · (0.5 + 1) = 3 px of ink on the
        // ground, 1.5 px on the image down a column; fading over one ground pixel would leave 2.0.
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 4, "line-color": "black"}}"#, root: #""pitch": 60,"#)
        for x in [24, 32, 40] {
            let ink = (16..<48).reduce(0.0) { $0 + (255 - Double(s.image.color(x: x, y: $1).red)) / 255 }
            #expect(abs(ink - 1.5) <= 0.15, "column \(x): \(ink) px of ink, 1.5 ± 0.15 expected")
        }
    }

    @Test func aTiltedLineIsShadedOnTheImageInPerspective() throws {
        // A meridian 4 px wide from 40° S (62 px below the centre on the ground) to 80° N,
        // pitch 60° on a 64 px image: down the middle column. A row v px from the centre shows
        // the ground at k = 1.5·64 / (1.5·64 − dy · sin 60°), dy = v · 96 / (96 cos 60° + v sin 60°),
        // across at k times its ground size, and the edge fades over one image pixel (1 / k
        // ground pixels): a row holds (5 − 1/k) · k px of ink, 1.16 on the top row (k 0.432),
        // 6.84 on the bottom (k 1.568).
        func draw(south: Int) throws -> StyleSnapshot {
            let text = """
                {"version": 8, "pitch": 60, "sources": {"g": {"type": "geojson", "data": {"type": "LineString", "coordinates": [[0, \(south)], [0, 80]]}}},
                 "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                            {"id": "l", "type": "line", "source": "g", "paint": {"line-width": 4, "line-color": "black"}}]}
                """
            let style = try StyleDocument(data: Data(text.utf8))
            return try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 64, height: 64, pixelRatio: 1)) { url in throw StyleRenderError("no file \(url)") }
        }
        let s = try draw(south: -40)
        func ink(_ y: Int) -> Double { (0..<64).reduce(0.0) { $0 + (255 - Double(s.image.color(x: $1, y: y).red)) / 255 } }
        #expect(abs(ink(0) - 1.16) <= 0.1, "top row: \(ink(0)) px of ink, 1.16 ± 0.1 expected")
        #expect(abs(ink(63) - 6.84) <= 0.1, "bottom row: \(ink(63)) px of ink, 6.84 ± 0.1 expected")
        // From 80° S the line reaches behind the eye: cut off at the near limit, it still
        // covers the middle of every row.
        let behind = try draw(south: -80)
        for y in 0..<64 { #expect(behind.image.color(x: 32, y: y) != white, "row \(y) has no line") }
    }

    @Test func underTiltAFillsOutlineFadesAlongEdgesThatRecede() throws {
        // A square 16° wide and 20° high at zoom 1, pitch 60°, on a transparent 64 px image:
        // its sides run from (≈14, 20.5) far to (≈1, 51.6) near and mirrored, receding in depth
        // (w 1.27 far, 0.74 near). GL interpolates the outline shader's v_pos perspective-
        // correctly, so halfway along the on-image position is wa / (wa + wb) ≈ 0.37 of the
        // way, ≈ 4 px from the pixel: beyond the 1 px fade. Rows 26…46 (5 px from either
        // corner) keep the aliased fill's whole pixels only, no partly covered pixel outside.
        let text = """
            {"version": 8, "pitch": 60, "zoom": 1, "sources": {"p": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-8, -10], [8, -10], [8, 10], [-8, 10], [-8, -10]]]}}},
             "layers": [{"id": "f", "type": "fill", "source": "p", "paint": {"fill-color": "black"}}]}
            """
        let style = try StyleDocument(data: Data(text.utf8))
        let s = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 64, height: 64, pixelRatio: 1)) { url in throw StyleRenderError("no file \(url)") }
        var partial = 0, whole = 0
        for y in 26...46 {
            for x in 0..<64 {
                let a = s.image.color(x: x, y: y).alpha
                if a == 255 { whole += 1 } else if a > 0 { partial += 1 }
            }
        }
        #expect(partial == 0, "\(partial) partly covered pixels beside the receding sides")
        #expect(whole > 21 * 30, "the fill itself: \(whole) pixels")
    }

    /// A 4 × 4 sheet: red on the left half, blue on the right.
    private func sheet() throws -> [UInt8] {
        var canvas = try Canvas(width: 4, height: 4, background: .transparent)
        canvas.fill(Path(rectX: 0, y: 0, width: 2, height: 4), color: Color(red: 255, green: 0, blue: 0))
        canvas.fill(Path(rectX: 2, y: 0, width: 2, height: 4), color: Color(red: 0, green: 0, blue: 255))
        return try PNG.encode(canvas.pixmap)
    }

    @Test func aLinePatternWiderThanItsImageShowsItsWrappedPaddingThenNothing() throws {
        // A 4 × 4 image, rows 0–1 red, 2–3 blue, on a line 10 px wide (outset 5.5) along y = 32.
        // GL samples row 2 + d − ½ at d px from the middle (one texel a pixel, its middle row on
        // the line's): d = ±1.5 gives rows 0 and 3 (red, blue, one each side); d = ±2.5 rows −1
        // and 4, the atlas's wrapped padding (the opposite edge: blue beside red's side, red beside
        // blue's); d = ±3.5 rows −2 and 5, beyond the padding: transparent, so the background.
        var canvas = try Canvas(width: 4, height: 4, background: .transparent)
        canvas.fill(Path(rectX: 0, y: 0, width: 4, height: 2), color: Color(red: 255, green: 0, blue: 0))
        canvas.fill(Path(rectX: 0, y: 2, width: 4, height: 2), color: Color(red: 0, green: 0, blue: 255))
        let files = ["s.json": Array(#"{"rows": {"x": 0, "y": 0, "width": 4, "height": 4, "pixelRatio": 1}}"#.utf8), "s.png": try PNG.encode(canvas.pixmap)]
        let s = try draw(#"{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 10, "line-pattern": "rows"}}"#, sprite: #""sprite": "s","#, files: files)
        let red = Color(red: 255, green: 0, blue: 0), blue = Color(red: 0, green: 0, blue: 255)
        func near(_ a: Color, _ b: Color) -> Bool { abs(Int(a.red) - Int(b.red)) <= 2 && abs(Int(a.green) - Int(b.green)) <= 2 && abs(Int(a.blue) - Int(b.blue)) <= 2 }
        let above = s.image.color(x: 32, y: 30), below = s.image.color(x: 32, y: 33)
        #expect((near(above, red) && near(below, blue)) || (near(above, blue) && near(below, red)), "rows 30 and 33: \(above), \(below)")
        #expect(near(s.image.color(x: 32, y: 29), below), "row 29 shows the padding: row 33's colour")
        #expect(near(s.image.color(x: 32, y: 34), above), "row 34 shows the padding: row 30's colour")
        #expect(s.image.color(x: 32, y: 28) == white)
        #expect(s.image.color(x: 32, y: 35) == white)
    }

    @Test func aPatternFillsOutlineTakesTheOutlineColourWhereTheStyleGivesOne() throws {
        // ±10° around the centre: the left edge at x = 32 − 14.22 = 17.78. The fill (no
        // antialiasing) covers pixel centres from 18.5; the antialiased outline reaches pixel 17,
        // in `fill-outline-color` (MapLibre's draw_fill.ts: the plain outline program once the
        // style sets one), else in the pattern (red or blue over white there).
        func edge(_ paint: String) throws -> Color {
            let text = """
                {"version": 8, "sprite": "s", "sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-10, -10], [-10, 10], [10, 10], [10, -10], [-10, -10]]]}}},
                 "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}}, {"id": "f", "type": "fill", "source": "g", "paint": \(paint)}]}
                """
            let files = ["s.json": Array(#"{"half": {"x": 0, "y": 0, "width": 4, "height": 4, "pixelRatio": 1}}"#.utf8), "s.png": try sheet()]
            let style = try StyleDocument(data: Data(text.utf8))
            let s = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 64, height: 64, pixelRatio: 1)) { url in
                guard let bytes = files[url] else { throw StyleRenderError("no file \(url)") }
                return bytes
            }
            return s.image.color(x: 17, y: 32)
        }
        let green = try edge(##"{"fill-pattern": "half", "fill-outline-color": "#00ff00"}"##)
        #expect(green.green == 255 && green.red < 250 && green.blue < 250, "\(green)")
        let patterned = try edge(#"{"fill-pattern": "half"}"#)
        #expect(patterned.green < 250 && (patterned.red == 255 || patterned.blue == 255), "\(patterned)")
    }

    @Test func aTiltedPatternFill_isCutAtTheNearLimit_andAPolygonWhollyBehindTheEyeDrawsNothing() throws {
        // Zoom 1, pitch 60°, 64 px image: the eye is 96 px from the centre. A band from 5° S
        // (14 px south of the centre on the ground, row 40 on the image) to 85° S reaches behind
        // the eye; a second polygon, 84–85° S, lies wholly behind it. Projected whole, the band
        // was mirrored over the image's top and missed its bottom rows, and the second polygon,
        // cut to nothing at the near limit, had no bounds (a trap converting infinity to Int).
        let text = """
            {"version": 8, "sprite": "s", "pitch": 60, "zoom": 1, "sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [
                {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[-20, -85], [20, -85], [20, -5], [-20, -5], [-20, -85]]]}},
                {"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[40, -85], [60, -85], [60, -84], [40, -84], [40, -85]]]}}]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}}, {"id": "f", "type": "fill", "source": "g", "paint": {"fill-pattern": "half"}}]}
            """
        let files = ["s.json": Array(#"{"half": {"x": 0, "y": 0, "width": 4, "height": 4, "pixelRatio": 1}}"#.utf8), "s.png": try sheet()]
        let style = try StyleDocument(data: Data(text.utf8))
        let s = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 64, height: 64, pixelRatio: 1)) { url in
            guard let bytes = files[url] else { throw StyleRenderError("no file \(url)") }
            return bytes
        }
        let above = (0..<38).reduce(0) { n, y in n + (0..<64).filter { s.image.color(x: $0, y: y) != white }.count }
        #expect(above == 0, "\(above) pixels drawn above the band")
        for y in [42, 50, 63] { #expect(s.image.color(x: 32, y: y) != white, "row \(y) shows no pattern") }
    }

    @Test func aBackgroundPatternRepeatsFromTheWorldsCorner() throws {
        // The world's left edge is at x = 32 − 256 = −224, a multiple of 4: columns 4k, 4k+1 red.
        let files = ["s.json": Array(#"{"half": {"x": 0, "y": 0, "width": 4, "height": 4, "pixelRatio": 1}}"#.utf8), "s.png": try sheet()]
        let s = try draw(#"{"id": "p", "type": "background", "paint": {"background-pattern": "half"}}"#, sprite: #""sprite": "s","#, files: files)
        for x in stride(from: 0, to: 64, by: 4) {
            #expect(s.image.color(x: x, y: 10) == Color(red: 255, green: 0, blue: 0))
            #expect(s.image.color(x: x + 1, y: 40) == Color(red: 255, green: 0, blue: 0))
            #expect(s.image.color(x: x + 2, y: 10) == Color(red: 0, green: 0, blue: 255))
            #expect(s.image.color(x: x + 3, y: 63) == Color(red: 0, green: 0, blue: 255))
        }
        #expect(s.warnings.isEmpty)
    }

    @Test func aDashedLineThatLeavesTheImageAndComesBackIsDrawnAsOnALargerImage() throws {
        // East along 10° N past the image's edge to 100° E (x ≈ 174 on the 64-pixel image),
        // south, back west along 10° S: the corners far off the image are left out of the
        // mesh, and the dashes of the way back still continue the distance travelled out there.
        // The 512-pixel image of the same camera shows the whole line; its middle 64 × 64
        // (224 px in) is the small image, within 2/255 a channel (positions on the image are
        // the same up to rounding).
        func draw(size: Int) throws -> StyleSnapshot {
            let text = """
                {"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "LineString",
                  "coordinates": [[-20, 10], [60, 10], [100, 10], [100, -10], [60, -10], [-20, -10]]}}},
                 "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                            {"id": "l", "type": "line", "source": "g",
                             "paint": {"line-width": 3, "line-color": "black", "line-dasharray": [2, 1.5]}}]}
                """
            let style = try StyleDocument(data: Data(text.utf8))
            return try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: size, height: size, pixelRatio: 1)) { url in
                throw StyleRenderError("no file \(url)")
            }
        }
        let small = try draw(size: 64), large = try draw(size: 512)
        var worst = 0, inked = 0
        for y in 0..<64 {
            for x in 0..<64 {
                let a = small.image.color(x: x, y: y), b = large.image.color(x: x + 224, y: y + 224)
                if a.red < 128 { inked += 1 }
                worst = max(worst, abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)), abs(Int(a.alpha) - Int(b.alpha)))
            }
        }
        #expect(worst <= 2, "largest channel difference \(worst)")
        // Both legs cross the image: about 60 px each, 3 px wide, dashed 4 of every 7 px.
        #expect(inked > 150, "\(inked) dark pixels")
    }

    @Test func aSpriteArrayPrefixesItsImagesAndAMissingImageIsAWarning() throws {
        let files = ["a.json": Array(#"{"half": {"x": 0, "y": 0, "width": 4, "height": 4}}"#.utf8), "a.png": try sheet()]
        let s = try draw(#"{"id": "p", "type": "background", "paint": {"background-pattern": "a:half"}}"#,
                         sprite: #""sprite": [{"id": "a", "url": "a"}],"#, files: files)
        #expect(s.image.color(x: 0, y: 0) == Color(red: 255, green: 0, blue: 0))
        let t = try draw(#"{"id": "p", "type": "background", "paint": {"background-pattern": "half"}}"#,
                         sprite: #""sprite": [{"id": "a", "url": "a"}],"#, files: files)
        #expect(t.warnings.contains { $0.contains("no sprite image \"half\"") })
    }

    @Test func spriteEntriesOutsideTheSheetAreReportedNotUsed() {
        let json = JSONValue.object([
            "in": .object(["x": .number(0), "y": .number(0), "width": .number(4), "height": .number(4), "pixelRatio": .number(2)]),
            "out": .object(["x": .number(2), "y": .number(0), "width": .number(4), "height": .number(4)]),
        ])
        let (entries, problems) = SpriteIndex.entries(json, prefix: "", sheetWidth: 4, sheetHeight: 4)
        #expect(entries["in"] == SpriteIndex.Entry(x: 0, y: 0, width: 4, height: 4, pixelRatio: 2, sdf: false))
        #expect(entries["out"] == nil)
        #expect(problems == ["out: not a rectangle inside the 4×4 sprite sheet"])
        #expect(SpriteIndex.url(.init(prefix: "", url: "http://x/s?k=1"), pixelRatio: 2, ext: "png") == "http://x/s@2x.png?k=1")
    }
}
