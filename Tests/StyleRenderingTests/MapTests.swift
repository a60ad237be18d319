import Foundation
import GeoCore
import GeoTestSupport
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import Testing

/// `Map`: one style and its sources drawn for many cameras, the decoded tiles kept between
/// snapshots (counted, not timed), and the runtime style API changing only what it must.
@Suite struct MapTests {
    static let water = Color(red: 0xAA, green: 0xD3, blue: 0xDF)

    /// The sample city in the built-in day style, and a camera over its river (190 px north
    /// of the centre at zoom 15, `MapSnapshotterTests`).
    static func cityMap() throws -> (Map, FeatureMapSource, StyleCamera) {
        let source = try FeatureMapSource(features: try SampleCity.generate().mapFeatures(), name: "sample city")
        let camera = StyleCamera(longitude: SampleCity.center.longitude, latitude: SampleCity.center.latitude, zoom: 15, width: 300, height: 450)
        return (try Map(data: source), source, camera)
    }

    /// A map's snapshot is `MapSnapshotter`'s image pixel for pixel, a second snapshot of the
    /// same camera decodes no tile, and a pan of 40 px within the same tiles decodes none either.
    @Test func snapshotsAreTheSnapshottersAndReuseDecodedTiles() throws {
        let (map, source, camera) = try Self.cityMap()
        let first = try map.snapshot(camera: camera)
        let decoded = map.tilesDecoded
        #expect(decoded > 0)
        #expect(first.image == (try MapSnapshotter(data: source, camera: camera).snapshot().image))
        #expect(try map.snapshot(camera: camera).image == first.image)
        #expect(map.tilesDecoded == decoded, "the same camera again decodes nothing")
        var panned = camera
        panned.longitude += 40 / (512 * 32768) * 360 // 40 px east at zoom 15
        let moved = try map.snapshot(camera: panned)
        #expect(moved.image != first.image)
        #expect(map.tilesDecoded == decoded, "a 40 px pan over the same tiles decodes none")
        #expect(map.tilesKept == decoded)
    }

    /// `setPaintProperty` on the water layer: the next snapshot shows the new colour where the
    /// water was but for the river's `waterway` line over it (every water pixel now red, water
    /// or, at the line's edges, a blend of the two within 3 per channel), every pixel at least 2 px from water is unchanged, no tile is decoded again, and
    /// only the ground's revision moves.
    @Test func aPaintChangeShowsInTheNextSnapshotAndOnlyThere() throws {
        let (map, _, camera) = try Self.cityMap()
        let before = try map.snapshot(camera: camera).image
        let decoded = map.tilesDecoded, symbols = map.symbolRevision, ground = map.groundRevision
        try map.setPaintProperty("fill-color", .string("#FF0000"), layer: "water")
        let after = try map.snapshot(camera: camera).image
        #expect(map.tilesDecoded == decoded)
        #expect(map.groundRevision == ground + 1 && map.symbolRevision == symbols)
        var wasWater = 0, isRed = 0, stillWater = 0, notBlend = 0, changedAwayFromWater = 0
        func nearWater(_ x: Int, _ y: Int) -> Bool {
            for dy in -2...2 { for dx in -2...2 {
                let (u, v) = (x + dx, y + dy)
                if u >= 0, v >= 0, u < before.width, v < before.height, before.color(x: u, y: v) == Self.water || after.color(x: u, y: v) == Color(red: 255, green: 0, blue: 0) { return true }
            } }
            return false
        }
        for y in 0..<before.height {
            for x in 0..<before.width {
                if before.color(x: x, y: y) == Self.water {
                    wasWater += 1
                    // On the line from the water's colour (t = 0) to red (t = 1), within 3 per channel.
                    let c = after.color(x: x, y: y), t = 1 - Double(c.green) / 211
                    if abs(Double(c.red) - (170 + 85 * t)) > 3 || abs(Double(c.blue) - 223 * (1 - t)) > 3 { notBlend += 1 }
                }
                if after.color(x: x, y: y) == Color(red: 255, green: 0, blue: 0) { isRed += 1 }
                if after.color(x: x, y: y) == Self.water { stillWater += 1 }
                if before.color(x: x, y: y) != after.color(x: x, y: y), !nearWater(x, y) { changedAwayFromWater += 1 }
            }
        }
        #expect(wasWater > 1000, "the view shows the river: \(wasWater) water pixels")
        // The river's `waterway` line, drawn over the water in the water's colour, keeps it; its
        // anti-aliased edges now blend it with the red.
        #expect(isRed > 1000 && stillWater > 0 && notBlend == 0,
                "\(isRed) red, \(stillWater) waterway pixels, \(notBlend) of neither nor their blend where \(wasWater) were water")
        #expect(changedAwayFromWater == 0)
    }

    /// A 256-px raster tile of zoom 17 drawn alone is its square of the 4 × 4 metatile drawn
    /// round it, every channel of every pixel within 1 (the two cameras' centres, turned into
    /// latitude and longitude and back, differ by ~1e-10 px: checked, some 250 pixels of a tile
    /// differ by 1, none by more) (`geo tiles render`'s blocks), labels and all, whether drawn by a
    /// map of its own or by the map that drew the block: what a view skips (features that cannot
    /// reach it) and what a map keeps (each vector tile's filtered features and their reach,
    /// its labels placed once per tile and zoom) change nothing a tile shows — also after a
    /// paint change makes the roads 40 px wide, so that roads outside a tile reach into it.
    /// The inner 2 × 2 tiles are checked: 256 px or more inside the block, no label of a vector
    /// tile only the block loads reaches them.
    @Test func aTileAloneIsItsSquareOfTheMetatile() throws {
        #if os(Linux)
        let path = "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"
        guard FileManager.default.fileExists(atPath: path) else {
            if Fixtures.isCI { throw FixtureError.missing("\(path) (scripts/setup.sh installs fonts-noto-core)") }
            return
        }
        let glyphs = LocalGlyphRanges(faces: [try FontFace(data: [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), index: 0, name: path)])
        let source = try FeatureMapSource(features: try SampleCity.generate().mapFeatures(), name: "sample city")
        let map = try Map(data: source, glyphRange: { glyphs.range(stack: $0, startingAt: $1) })
        let centre = WebMercator.worldPoint(SampleCity.center), n = Double(1 << 17)
        let block = Metatile.block(holding: Int(centre.x * n), Int(centre.y * n), zoom: 17)
        func check(_ state: String) throws {
            let whole = try map.snapshot(camera: StyleCamera(block: block, pixelRatio: 1))
            #expect(whole.symbols.count >= 5, "\(state): the block's labels: \(whole.symbols.count)")
            var inner = 0
            for tile in try block.tiles(of: whole.image) where tile.x > block.columns.lowerBound && tile.x < block.columns.upperBound - 1
                && tile.y > block.rows.lowerBound && tile.y < block.rows.upperBound - 1 {
                inner += 1
                let camera = StyleCamera(block: Metatile(zoom: 17, columns: tile.x..<tile.x + 1, rows: tile.y..<tile.y + 1), pixelRatio: 1)
                let alone = try Map(style: map.style, sources: map.sources, load: map.load).snapshot(camera: camera).image
                #expect(Self.differing(alone, tile.image, by: 1) == 0, "\(state): tile \(tile.x)/\(tile.y) drawn by a map of its own")
                #expect(Self.differing(try map.snapshot(camera: camera).image, tile.image, by: 1) == 0, "\(state): tile \(tile.x)/\(tile.y) drawn by the block's map")
            }
            #expect(inner == 4)
        }
        try check("the day style")
        try map.setPaintProperty("line-width", .number(40), layer: "road-fill")
        try check("roads 40 px wide")
        #endif
    }

    /// Pixels of two images of one size with a channel differing by more than `tolerance`.
    static func differing(_ a: Pixmap, _ b: Pixmap, by tolerance: Int) -> Int {
        (0..<a.height).reduce(0) { n, y in
            n + (0..<a.width).filter { x in
                let p = a.color(x: x, y: y), q = b.color(x: x, y: y)
                return [(p.red, q.red), (p.green, q.green), (p.blue, q.blue), (p.alpha, q.alpha)].contains { abs(Int($0.0) - Int($0.1)) > tolerance }
            }.count
        }
    }

    /// A layer added and removed, a source added and removed, and a style set again: each
    /// changes what it must. A layer change decodes nothing; a source removed drops its tiles
    /// (the next snapshot decodes them again); setting a style with the same sources keeps them.
    @Test func sourceAndStyleChangesDropOnlyWhatTheyMakeStale() throws {
        let (map, source, camera) = try Self.cityMap()
        _ = try map.snapshot(camera: camera)
        let decoded = map.tilesDecoded
        try map.addLayer(.object(["id": .string("tint"), "type": .string("background"), "paint": .object(["background-color": .string("#00FF00")])]), before: "water")
        let tinted = try map.snapshot(camera: camera).image
        let green = (0..<tinted.height).reduce(0) { n, y in n + (0..<tinted.width).filter { tinted.color(x: $0, y: y) == Color(red: 0, green: 255, blue: 0) }.count }
        #expect(green > 1000, "the green layer shows between the land and the water: \(green) px")
        #expect(map.tilesDecoded == decoded)
        try map.removeLayer("tint")
        try map.setStyle(try DefaultStyle.document(.night))
        _ = try map.snapshot(camera: camera)
        #expect(map.tilesDecoded == decoded, "the same source's tiles serve the night style")
        try map.setStyle(try DefaultStyle.document(.day), sources: [DefaultStyle.sourceID: source])
        _ = try map.snapshot(camera: camera)
        #expect(map.tilesDecoded == 2 * decoded, "new map sources: their tiles are decoded anew")
    }

    /// Bad input is refused with its path and leaves the map as it was: a missing layer, a
    /// value of the wrong type, a map source for a source the style lacks, a camera out of range.
    @Test func badChangesAreRefusedWithTheirPath() throws {
        let (map, source, camera) = try Self.cityMap()
        let ground = map.groundRevision
        #expect(throws: StyleDocumentError.self) { try map.setPaintProperty("fill-color", .string("red"), layer: "no-such-layer") }
        do {
            try map.setPaintProperty("fill-opacity", .string("opaque"), layer: "water")
            Issue.record("a string opacity was accepted")
        } catch {
            #expect(error.path.contains("fill-opacity"), "\(error)")
        }
        #expect(map.groundRevision == ground)
        let style = try DefaultStyle.document(.day)
        do {
            _ = try Map(style: style, sources: ["elsewhere": source])
            Issue.record("a map source for a missing style source was accepted")
        } catch {
            #expect(error.path == "sources.elsewhere")
        }
        var wide = camera
        wide.zoom = 30
        #expect(throws: MapSnapshotError(path: "camera.zoom", message: "30.0 is outside MapLibre's 0.0...24.0")) { try map.snapshot(camera: wide) }
    }
}
