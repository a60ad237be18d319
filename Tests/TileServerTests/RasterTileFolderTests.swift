import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import MapData
import OSMImport
import SystemIO
import Testing
import TileArchives
import TileServer

/// `RasterTileFolder`, the library part of `geo tiles render`: which tiles, where they go, and
/// what it refuses before drawing.
@Suite struct RasterTileFolderTests {
    /// The sample city's features (corners 47.9919° N 10.9839° E and 48.0081° N 11.0161° E) at
    /// zoom 14 lie in tiles x 8691…8693, y 5694…5695 by the slippy-map formula (OSM wiki
    /// "Slippy map tilenames": x = ⌊(lon + 180) / 360 · 2^z⌋, y = ⌊(1 − asinh(tan lat) / π) / 2 · 2^z⌋,
    /// worked out for the two corners): six 256 × 256 PNGs at z/x/y.png, and the bytes
    /// reported are the files' bytes.
    /// No features: nothing to draw, refused before a tile is counted (not the whole world's
    /// tiles, which `DrawnMapData.bounds` once returned for an empty set).
    @Test func noFeatures_isNothingToDraw() throws {
        #expect(DrawnMapData.features([]).bounds == nil)
        let error = #expect(throws: TileServerError.self) { try RasterTileFolder(.features([]), folder: "/nonexistent") }
        #expect(error?.code == .nothingToDraw)
    }

    /// `geo tiles render --zoom`: one level or a range, each 0…22, refused word for word.
    @Test func zooms_levelOrRange_elseRefusedNamingTheOption() throws {
        #expect(try RasterTileFolder.zooms(parsing: "15", named: "--zoom") == 15...15)
        #expect(try RasterTileFolder.zooms(parsing: "0-22", named: "--zoom") == 0...22)
        let refused = ["a": "--zoom must be a zoom level or a range such as 14-17, got 'a'",
                       "14-": "--zoom must be a zoom level or a range such as 14-17, got '14-'",
                       "1-2-3": "--zoom must be a zoom level or a range such as 14-17, got '1-2-3'",
                       "23": "--zoom must be 0…22, got 23", "14-23": "--zoom must be 0…22, got 23",
                       "5-3": "--zoom 5-3: 5 is above 3"]
        for (text, message) in refused {
            let error = #expect(throws: TileServerError.self, "\(text)") { try RasterTileFolder.zooms(parsing: text, named: "--zoom") }
            #expect(error?.code == .invalidZooms && error?.message == message, "\(text)")
        }
    }

    @Test func sampleCity_zoom14_writesTheSixTilesItCovers() throws {
        try withTemporaryDirectory { dir in
            let folder = try RasterTileFolder(.features(try SampleCity.generate().mapFeatures()), folder: dir.path)
            let tiles = try #require(try folder.tiles(zooms: 14...14, limit: 100)[14])
            #expect(Set(tiles.map { "\($0.x)/\($0.y)" }) == ["8691/5694", "8692/5694", "8693/5694", "8691/5695", "8692/5695", "8693/5695"])
            let drawn = try folder.render(tiles, zoom: 14)
            #expect(drawn.tiles == 6)
            var bytes = 0
            for tile in tiles {
                let png = try FileDescriptor.readContents(of: "\(dir.path)/14/\(tile.x)/\(tile.y).png")
                // The PNG signature, then IHDR's width and height, big-endian, at bytes 16…23.
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && Array(png[16..<24]) == [0, 0, 1, 0, 0, 0, 1, 0])
                bytes += png.count
            }
            #expect(drawn.bytes == bytes)
        }
    }

    /// Zooms 13–14 over the sample city: zoom by zoom, lowest first, each reported with its
    /// tiles (2 at 13: the city straddles x 4345/4346 at y 2847; the six above at 14) and the
    /// totals so far, which are the files written and their bytes.
    @Test func sampleCity_zooms13to14_reportEachZoomWithRunningTotals() throws {
        try withTemporaryDirectory { dir in
            let folder = try RasterTileFolder(.features(try SampleCity.generate().mapFeatures()), folder: dir.path)
            let tiles = try folder.tiles(zooms: 13...14, limit: 100)
            var reports: [(zoom: Int, tiles: Int, total: (tiles: Int, bytes: Int))] = []
            let written = try folder.render(tiles, zooms: 13...14) { reports.append(($0, $1, $2)) }
            #expect(reports.map(\.zoom) == [13, 14])
            #expect(reports.map(\.tiles) == [2, 6])
            #expect(reports.map(\.total.tiles) == [2, 8])
            #expect(written.tiles == 8 && reports.last?.total.bytes == written.bytes)
            var bytes = 0
            for z in 13...14 { for tile in tiles[z]! { bytes += try FileDescriptor.readContents(of: "\(dir.path)/\(z)/\(tile.x)/\(tile.y).png").count } }
            #expect(written.bytes == bytes)
        }
    }

    /// A style's warnings over a run: each once, sorted, with the number of blocks that gave it.
    @Test func blockWarnings_countEachWarning() {
        var warnings = RasterTileFolder.BlockWarnings()
        for w in ["glyphs 0-255 missing", "sprite missing", "glyphs 0-255 missing", "glyphs 0-255 missing"] { warnings.add(w) }
        #expect(warnings.lines == ["glyphs 0-255 missing (3 blocks)", "sprite missing"])
        #expect(RasterTileFolder.BlockWarnings().lines.isEmpty)
    }

    /// More tiles than the limit are refused while counting, before the folder exists.
    @Test func tooManyTiles_areRefusedBeforeDrawing() throws {
        let folder = try RasterTileFolder(.features(try SampleCity.generate().mapFeatures()), folder: "/nonexistent/never-written")
        // Six tiles at zoom 14 and more at 15: a limit of 6 passes 14 alone, not 14–15.
        #expect(try folder.tiles(zooms: 14...14, limit: 6)[14]?.count == 6)
        let tooMany = #expect(throws: (any Error).self) { try folder.tiles(zooms: 14...15, limit: 6) }
        #expect("\(tooMany.map { "\($0)" } ?? "")".contains("too many tiles"))
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent"))
    }
}
