import Foundation
import GeoCore
import GeoTestSupport
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Sprite sheets from icons (`geo sprites build`): SVG drawn by librsvg, shelves packed
/// without overlap, the index as MapLibre reads it.
@Suite struct SpriteSheetTests {
    /// An SVG of `width × height` CSS pixels filled with one colour.
    private func svg(_ width: Int, _ height: Int, fill: String) -> [UInt8] {
        Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(width)" height="\#(height)"><rect width="\#(width)" height="\#(height)" fill="\#(fill)"/></svg>"#.utf8)
    }

    private func png(_ width: Int, _ height: Int, _ color: Color) throws -> [UInt8] {
        var image = try Pixmap(width: width, height: height)
        image.clear(to: color)
        return try PNG.encode(image)
    }

    @Test func theSuitesIconMatchesItsSVGDrawnAtTwiceItsSize() throws {
        // Oracle: the render suite's icon-text-fit.png is its icon-text-fit.svg (120 × 30, a grey
        // rectangle with corners of radius 15) drawn at 2× by another rasterizer. Pixels wholly
        // inside or outside the shape there (alpha 255 or 0, and their neighbours' too) must agree
        // within 3 of 255 per channel; those on its anti-aliased edge (~3 % of them) within 48,
        // the spread between two rasterizers' coverage of an arc.
        guard let svgURL = try Fixtures.url("maplibre-render/sprites/icon-text-fit.svg"),
              let pngURL = try Fixtures.url("maplibre-render/sprites/icon-text-fit.png") else { return }
        let drawn = try SVG.rasterize(Array(try Data(contentsOf: svgURL)), scale: 2, name: "icon-text-fit.svg")
        let expected = try PNG.decode(Array(try Data(contentsOf: pngURL)))
        #expect((drawn.width, drawn.height) == (240, 60))
        try #require((drawn.width, drawn.height) == (expected.width, expected.height))
        var worstInterior = 0, worstEdge = 0, edges = 0
        let (w, h) = (drawn.width, drawn.height)
        func alpha(_ x: Int, _ y: Int) -> UInt8 { expected.bytes[(min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)) * 4 + 3] }
        for y in 0..<h {
            for x in 0..<w {
                let i = (y * w + x) * 4
                let difference = (0..<4).map { abs(Int(drawn.bytes[i + $0]) - Int(expected.bytes[i + $0])) }.max()!
                let a = alpha(x, y)
                // Inside or outside: wholly covered or empty, and so are the four neighbours.
                if (a == 0 || a == 255), [alpha(x - 1, y), alpha(x + 1, y), alpha(x, y - 1), alpha(x, y + 1)].allSatisfy({ $0 == a }) {
                    worstInterior = max(worstInterior, difference)
                } else {
                    worstEdge = max(worstEdge, difference)
                    edges += 1
                }
            }
        }
        #expect(worstInterior <= 3)
        #expect(worstEdge <= 48)
        #expect(edges < drawn.width * drawn.height / 20, "the edge is a thin line")
        #expect(drawn.color(x: 120, y: 30) == Color(red: 192, green: 192, blue: 192), "the fill, #c0c0c0")
        #expect(drawn.color(x: 0, y: 0).alpha == 0, "outside the rounded corner")
    }

    @Test func iconsArePackedWithoutOverlapAndEachRectangleHoldsItsIcon() throws {
        let files: [(path: String, bytes: [UInt8])] = [
            ("bus.svg", svg(15, 15, fill: "#ff0000")),
            ("shop/bakery.svg", svg(11, 20, fill: "#00ff00")),
            ("dot.png", try png(4, 4, Color(red: 0, green: 0, blue: 255))),
            ("dot@2x.png", try png(8, 8, Color(red: 255, green: 255, blue: 0))),
            ("wide.png", try png(30, 3, Color(red: 0, green: 0, blue: 0))),
            ("README.md", Array("icons".utf8)),
        ]
        let (icons, ignored) = try SpriteIcon.icons(files: files)
        #expect(icons.map(\.name) == ["bus", "dot", "shop/bakery", "wide"])
        #expect(ignored == ["README.md"])
        let colours = ["bus": Color(red: 255, green: 0, blue: 0), "shop/bakery": Color(red: 0, green: 255, blue: 0),
                       "wide": Color(red: 0, green: 0, blue: 0)]
        let sizes = ["bus": (15, 15), "shop/bakery": (11, 20), "dot": (4, 4), "wide": (30, 3)]
        for ratio in [1, 2] {
            let sheet = try SpriteSheet(icons: icons, pixelRatio: ratio)
            #expect(sheet.index.count == 4)
            let rects = sheet.index.sorted { $0.key < $1.key }
            for (name, e) in rects {
                #expect(e.pixelRatio == Double(ratio) && !e.sdf)
                #expect((e.width, e.height) == (sizes[name]!.0 * ratio, sizes[name]!.1 * ratio), "\(name) at \(ratio)×")
                #expect(e.x + e.width <= sheet.image.width && e.y + e.height <= sheet.image.height)
                let colour = name == "dot" ? (ratio == 1 ? Color(red: 0, green: 0, blue: 255) : Color(red: 255, green: 255, blue: 0)) : colours[name]!
                for (x, y) in [(e.x, e.y), (e.x + e.width - 1, e.y + e.height - 1), (e.x + e.width / 2, e.y + e.height / 2)] {
                    #expect(sheet.image.color(x: x, y: y) == colour, "\(name) at \(ratio)×, pixel (\(x), \(y))")
                }
            }
            // No two rectangles (each with its gap) overlap.
            for (i, a) in rects.enumerated() {
                for b in rects[(i + 1)...] {
                    let apart = a.value.x + a.value.width + SpriteSheet.gap <= b.value.x || b.value.x + b.value.width + SpriteSheet.gap <= a.value.x
                        || a.value.y + a.value.height + SpriteSheet.gap <= b.value.y || b.value.y + b.value.height + SpriteSheet.gap <= a.value.y
                    #expect(apart, "\(a.key) and \(b.key) overlap at \(ratio)×")
                }
            }
        }
    }

    @Test func theIndexReadsBackAsTheStyleLoaderReadsIt() throws {
        let (icons, _) = try SpriteIcon.icons(files: [("a.svg", svg(10, 6, fill: "red")), ("b.svg", svg(7, 9, fill: "blue"))])
        let sheet = try SpriteSheet(icons: icons, pixelRatio: 2)
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(try sheet.indexJSON()))
        let read = SpriteIndex.entries(json, prefix: "", sheetWidth: sheet.image.width, sheetHeight: sheet.image.height)
        #expect(read.problems.isEmpty)
        #expect(read.entries == sheet.index)
        #expect(read.entries["a"]?.width == 20 && read.entries["a"]?.height == 12)
    }

    @Test func badIconsAreNamedInTheirErrors() throws {
        #expect { try SpriteSheet(icons: [SpriteIcon(name: "broken", source: .svg(Array("<svg".utf8)))], pixelRatio: 1) } throws: { error in
            guard let e = error as? RenderError else { return false }
            return e.code == .invalidSVG && e.message.hasPrefix("broken.svg: ")
        }
        #expect { try SpriteIcon.icons(files: [("lone@2x.png", try png(2, 2, Color(red: 1, green: 2, blue: 3)))]) } throws: { error in
            (error as? RenderError).map { $0.code == .invalidSprite && $0.message.contains("lone@2x.png") } == true
        }
        #expect { try SpriteIcon.icons(files: [("x.png", Array("not a png".utf8))]) } throws: { error in
            (error as? RenderError).map { $0.code == .invalidPNG && $0.message.hasPrefix("x.png: ") } == true
        }
        #expect { try SpriteIcon.icons(files: [("x.png", try png(2, 2, Color(red: 1, green: 2, blue: 3))), ("x.svg", svg(2, 2, fill: "red"))]) } throws: { error in
            (error as? RenderError).map { $0.code == .invalidSprite && $0.message.contains("both name the icon x") } == true
        }
    }
}
