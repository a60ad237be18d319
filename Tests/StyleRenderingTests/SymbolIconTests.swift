import Foundation
import GeoTestSupport
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Symbol layers' icons drawn by `StyleSnapshot` with the render suite's sprites
/// (`maplibre-render/sprites`) and glyphs: where an icon lands at its pixel ratio, SDF
/// colouring and halos, `icon-text-fit` and the collision pass. Distances in device pixels.
@Suite struct SymbolIconTests {
    /// A `size` × `size` image (CSS pixels) at `pixelRatio` of one symbol layer with `layout` /
    /// `paint` over points at longitudes `points` (latitude 0), zoom 0, sprite `sprite`.
    private func draw(sprite: String, layout: String, paint: String = "{}", points: [Double] = [0], size: Int = 128,
                      pixelRatio: Double = 1) throws -> StyleSnapshot? {
        guard let data = try Fixtures.url("maplibre-render") else { return nil }
        let features = points.map { #"{"type": "Feature", "properties": {"name": "ABC"}, "geometry": {"type": "Point", "coordinates": [\#($0), 0]}}"# }
        let text = """
            {"version": 8, "glyphs": "local://glyphs/{fontstack}/{range}.pbf", "sprite": "local://sprites/\(sprite)",
             "sources": {"p": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [\(features.joined(separator: ","))]}}},
             "layers": [{"id": "s", "type": "symbol", "source": "p", "layout": {\(layout)}, "paint": \(paint)}]}
            """
        let style = try StyleDocument(data: Data(text.utf8))
        let camera = StyleCamera(style: style, width: size, height: size, pixelRatio: pixelRatio)
        return try StyleSnapshot(style: style, camera: camera) { url in
            guard url.hasPrefix("local://") else { throw StyleRenderError("no file \(url)") }
            return [UInt8](try Data(contentsOf: data.appendingPathComponent(String(url.dropFirst("local://".count)))))
        }
    }

    /// The box of pixels `keep` accepts and their count.
    private func ink(_ image: Pixmap, where keep: (Color) -> Bool = { $0.alpha > 0 }) -> (minX: Int, minY: Int, maxX: Int, maxY: Int, count: Int) {
        var box = (minX: Int.max, minY: Int.max, maxX: -1, maxY: -1, count: 0)
        for y in 0..<image.height {
            for x in 0..<image.width where keep(image.color(x: x, y: y)) {
                box = (min(box.minX, x), min(box.minY, y), max(box.maxX, x), max(box.maxY, y), box.count + 1)
            }
        }
        return box
    }

    @Test func iconIsCentredOnItsAnchorAtItsPixelRatio() throws {
        // The suite's `icon` is 20 × 56 CSS pixels: 20 × 56 sheet pixels in `1x`, 40 × 112 at
        // pixel ratio 2 in `2x` (and both `@2x` sheets).
        guard let one = try draw(sprite: "1x", layout: #""icon-image": "icon""#) else { return }
        #expect(one.warnings.isEmpty, "\(one.warnings)")
        let a = ink(one.image)
        // Centred on (64, 64): 20 px wide, its top 28 px above the anchor (1 px of rounding).
        #expect(abs(a.maxX - a.minX + 1 - 20) <= 1 && abs(Double(a.minX + a.maxX + 1) / 2 - 64) <= 1, "\(a)")
        #expect(abs(a.minY - (64 - 28)) <= 1, "\(a)")
        // A 2× image at pixel ratio 1 covers the same CSS pixels.
        let two = try #require(try draw(sprite: "2x", layout: #""icon-image": "icon""#))
        let b = ink(two.image)
        #expect(abs(b.minX - a.minX) <= 1 && abs(b.maxX - a.maxX) <= 1 && abs(b.minY - a.minY) <= 1 && abs(b.maxY - a.maxY) <= 1, "\(a) \(b)")
        // At pixel ratio 2 everything doubles round the centre (128, 128) of the 256-px image.
        let hi = try #require(try draw(sprite: "2x", layout: #""icon-image": "icon""#, pixelRatio: 2))
        let c = ink(hi.image)
        #expect(abs(c.maxX - c.minX + 1 - 40) <= 1 && abs(c.minY - (128 - 56)) <= 1, "\(c)")
    }

    @Test func sdfIconTakesItsColourAndHalo() throws {
        // `dot.sdf` (19 × 20, a distance field) in red, then with a 2-px blue halo.
        guard let plain = try draw(sprite: "sprite", layout: #""icon-image": "dot.sdf""#, paint: #"{"icon-color": "red"}"#) else { return }
        #expect(plain.warnings.isEmpty, "\(plain.warnings)")
        let centre = plain.image.color(x: 64, y: 64)
        #expect(centre.red > 200 && centre.green < 40 && centre.blue < 40 && centre.alpha > 200, "\(centre)")
        let red = ink(plain.image) { $0.alpha > 128 }
        #expect((8...20).contains(red.maxX - red.minX), "\(red)")
        let haloed = try #require(try draw(sprite: "sprite", layout: #""icon-image": "dot.sdf""#,
                                           paint: #"{"icon-color": "red", "icon-halo-color": "blue", "icon-halo-width": 2}"#))
        let blue = ink(haloed.image) { $0.alpha > 128 && $0.blue > $0.red }
        // The halo rings the fill: 2 px wider on each side (1 px for the edges' smoothing).
        #expect(abs(Double(red.minX - blue.minX) - 2) <= 1 && abs(Double(blue.maxX - red.maxX) - 2) <= 1, "\(red) \(blue)")
        #expect(haloed.image.color(x: 64, y: 64).red > 200, "the fill is drawn over its halo")
    }

    @Test func iconTextFitStretchesTheIconRoundTheText() throws {
        // `label` is a 240 × 60 grey (192) rounded box; "ABC" at 16 px is one 19.2-px line.
        let font = #""text-field": "{name}", "text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"], "icon-image": "label""#
        guard let both = try draw(sprite: "icon-text-fit", layout: font + #", "icon-text-fit": "both""#) else { return }
        #expect(both.warnings.isEmpty, "\(both.warnings)")
        let grey: (Color) -> Bool = { $0.alpha > 0 && abs(Int($0.red) - 192) < 3 && $0.red == $0.blue }
        let tight = ink(both.image, where: grey)
        // As tall as the line (19.2 px less the atlas border's third of a pixel each side).
        #expect((17...20).contains(tight.maxY - tight.minY + 1), "\(tight)")
        #expect(abs(Double(tight.minY + tight.maxY + 1) / 2 - 64) <= 1, "\(tight)")
        let padded = try #require(try draw(sprite: "icon-text-fit", layout: font + #", "icon-text-fit": "both", "icon-text-fit-padding": [5, 10, 5, 10]"#))
        let wide = ink(padded.image, where: grey)
        // Padding adds 10 px left and right, 5 px above and below.
        #expect(abs(Double(tight.minX - wide.minX) - 10) <= 1 && abs(Double(wide.maxX - tight.maxX) - 10) <= 1, "\(tight) \(wide)")
        #expect(abs(Double(tight.minY - wide.minY) - 5) <= 1 && abs(Double(wide.maxY - tight.maxY) - 5) <= 1, "\(tight) \(wide)")
    }

    @Test func iconsCollideUnlessAllowedToOverlap() throws {
        // Two 18-px `generic_icon`s 10 px apart (0.703125° of longitude a pixel at zoom 0).
        let points = [0, 10 * 0.703125]
        guard let alone = try draw(sprite: "emerald", layout: #""icon-image": "generic_icon""#, points: points) else { return }
        #expect(alone.warnings.isEmpty, "\(alone.warnings)")
        let one = ink(alone.image)
        #expect(abs(one.maxX - one.minX + 1 - 18) <= 1, "the second icon's box hits the first's: \(one)")
        let both = try #require(try draw(sprite: "emerald", layout: #""icon-image": "generic_icon", "icon-allow-overlap": true"#, points: points))
        let two = ink(both.image)
        #expect(abs(two.maxX - two.minX + 1 - 28) <= 1, "\(two)")
        // An optional icon gives way while its text stays: text alone keeps its place.
        let text = #""text-field": "{name}", "text-font": ["Open Sans Semibold", "Arial Unicode MS Bold"], "icon-image": "generic_icon""#
        let optional = try #require(try draw(sprite: "emerald", layout: text + #", "icon-optional": true, "text-allow-overlap": true"#, points: points))
        let withText = try #require(try draw(sprite: "emerald", layout: text + #", "text-allow-overlap": true"#, points: points))
        // Without `icon-optional` the second symbol goes whole; with it, its text stays.
        #expect(ink(optional.image).count > ink(withText.image).count, "\(ink(optional.image)) \(ink(withText.image))")
    }

    @Test func iconsShowFromTheScaleTheirBoxesClear() throws {
        // Two 22-px `rocket-12`s: 26-px boxes with `icon-padding` 2. At an integer zoom the
        // second shows when its boxes clear below 2^0.1 × the layout scale (the tenths of a
        // zoom level GL JS's symbol vertices keep): 25 px apart (26 / 25 = 1.04) both show,
        // 24 px apart (1.083) only the first. 0.703125° of longitude a pixel at zoom 0.
        let layout = #""icon-image": "rocket-12""#
        guard let single = try draw(sprite: "sprite", layout: layout) else { return }
        #expect(single.warnings.isEmpty, "\(single.warnings)")
        let width = ink(single.image).maxX - ink(single.image).minX + 1
        let near = try #require(try draw(sprite: "sprite", layout: layout, points: [0, 24 * 0.703125]))
        let one = ink(near.image)
        #expect(abs(one.maxX - one.minX + 1 - width) <= 1, "the second icon's boxes clear only at 1.083: \(one), one icon \(width) px")
        let apart = try #require(try draw(sprite: "sprite", layout: layout, points: [0, 25 * 0.703125]))
        let two = ink(apart.image)
        #expect(abs(two.maxX - two.minX + 1 - (width + 25)) <= 1, "both icons, 25 px apart: \(two), one icon \(width) px")
    }
}
