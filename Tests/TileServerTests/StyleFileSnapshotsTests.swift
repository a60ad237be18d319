import Foundation
import GeoCore
import GeoTestSupport
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import Testing
import TileArchives
import TileServer

/// `StyleFileSnapshots`: what `geo snapshot --style` draws — a style with its URLs read from
/// files, or a built-in style over a command's map data.
@Suite struct StyleFileSnapshotsTests {
    /// A style whose GeoJSON source is a file next to it: the file is read and its polygon drawn
    /// over the background; a URL that leads to no file is a warning, not a failure.
    @Test func styleFile_readsItsGeoJSONFromTheStylesFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("style-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        // A square of ±1° around 0°, 0°: at zoom 2 in a 64² view it covers the middle pixels.
        try Data(#"{"type": "Polygon", "coordinates": [[[-1, -1], [1, -1], [1, 1], [-1, 1], [-1, -1]]]}"#.utf8)
            .write(to: dir.appendingPathComponent("square.geojson"))
        let style = try StyleDocument(data: Data("""
            {"version": 8, "sources": {"square": {"type": "geojson", "data": "square.geojson"},
                                       "gone": {"type": "geojson", "data": "missing.geojson"}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#123456"}},
                        {"id": "fill", "type": "fill", "source": "square", "paint": {"fill-color": "#ff0000"}},
                        {"id": "none", "type": "fill", "source": "gone", "paint": {"fill-color": "#00ff00"}}]}
            """.utf8))
        let paths = StyleResourcePaths(base: nil, stylePath: dir.appendingPathComponent("style.json").path)
        let snapshot = try StyleFileSnapshots.snapshot(style, resources: paths, camera: StyleCamera(zoom: 2, width: 64, height: 64, pixelRatio: 1))
        let middle = snapshot.image.color(x: 32, y: 32), corner = snapshot.image.color(x: 0, y: 0)
        #expect([middle.red, middle.green, middle.blue, middle.alpha] == [0xFF, 0, 0, 0xFF])
        #expect([corner.red, corner.green, corner.blue, corner.alpha] == [0x12, 0x34, 0x56, 0xFF])
        #expect(snapshot.warnings.contains { $0.contains("missing.geojson") }, "\(snapshot.warnings)")
    }

    /// A vector source's `url` naming a tile archive, `pmtiles://` (relative to the style's
    /// folder) or `mbtiles://` (an absolute path), is opened and drawn: the same image from both,
    /// no warning; an archive that is not there is the style's failure naming it.
    @Test func archiveURLs_pmtilesAndMBTiles_areOpenedAndDrawn() throws {
        guard let monaco = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try withTemporaryDirectory { dir in
            let options = TilingOptions(maxZoom: 14, parallelism: 2, compressesTiles: true)
            for name in ["tiles.pmtiles", "tiles.mbtiles"] {
                _ = try OSMTiling.build(monaco.path, to: dir.appendingPathComponent(name).path, options: options, temporaryDirectory: dir.path)
            }
            func draw(_ url: String) throws -> StyleSnapshot {
                let style = try StyleDocument(data: Data("""
                    {"version": 8, "sources": {"omt": {"type": "vector", "url": "\(url)"}},
                     "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "#ffffff"}},
                                {"id": "water", "type": "fill", "source": "omt", "source-layer": "water", "paint": {"fill-color": "#0000ff"}}]}
                    """.utf8))
                let paths = StyleResourcePaths(base: nil, stylePath: dir.appendingPathComponent("style.json").path)
                // Monaco's harbour at MapLibre zoom 14: water in the view's lower right.
                return try StyleFileSnapshots.snapshot(style, resources: paths, camera: StyleCamera(longitude: 7.4246, latitude: 43.7384, zoom: 14, width: 128, height: 128))
            }
            let relative = try draw("pmtiles://tiles.pmtiles"), absolute = try draw("mbtiles://" + dir.appendingPathComponent("tiles.mbtiles").path)
            #expect(relative.warnings.isEmpty && absolute.warnings.isEmpty, "\(relative.warnings) \(absolute.warnings)")
            let blue = (0..<128).flatMap { y in (0..<128).map { x in relative.image.color(x: x, y: y) } }.filter { $0.blue == 255 && $0.red == 0 }.count
            #expect(blue > 128 * 128 / 20, "water drawn: \(blue) pixels")
            #expect(relative.image.bytes == absolute.image.bytes)
            #expect(throws: MapFilesError.self) { try draw("pmtiles://missing.pmtiles") }
        }
    }

    /// The file loader reads a relative URL under the style's folder and fetches no network URL.
    @Test func readFile_resolvesRelativeURLs_andRefusesNetworkOnes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("style-read-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try Data([1, 2, 3]).write(to: dir.appendingPathComponent("three.bin"))
        let paths = StyleResourcePaths(base: nil, stylePath: dir.appendingPathComponent("style.json").path)
        #expect(try paths.readFile("three.bin") == [1, 2, 3])
        #expect(throws: (any Error).self) { try paths.readFile("https://example.com/three.bin") }
    }

    /// The legacy snapshot's switches: "all" shows every class (nil), names show only those,
    /// nothing named shows none (not `Options()`'s every POI).
    @Test func defaultStyleOptions_fromTheLegacySwitches() {
        let all = DefaultStyle.Options(hiding: ["water"], poiClasses: ["all"], pedestrianClasses: ["footway", "steps"])
        #expect(all.hiddenCategories == ["water"])
        #expect(all.poiClasses == nil)
        #expect(all.pedestrianClasses == ["footway", "steps"])
        let none = DefaultStyle.Options(hiding: [], poiClasses: [], pedestrianClasses: [])
        #expect(none.poiClasses == [] && none.pedestrianClasses == [])
        #expect(DefaultStyle.Options().poiClasses == nil)
    }

    /// The built-in style over the sample city's features tiled in memory: drawn, not one colour.
    @Test func builtInStyle_overDrawnMapData() throws {
        let data = DrawnMapData.features(try SampleCity.generate().mapFeatures())
        let centre = data.center
        let camera = StyleCamera(longitude: centre.longitude, latitude: centre.latitude, zoom: StyleFileSnapshots.defaultStyleZoom, width: 128, height: 128, pixelRatio: 1)
        #expect(StyleFileSnapshots.defaultStyleZoom == 15)
        let snapshot = try StyleFileSnapshots.snapshot(.day, options: DefaultStyle.Options(), data: data, named: "city", camera: camera, glyphRange: nil)
        #expect(snapshot.image.width == 128)
        let pixels = snapshot.image.bytes
        #expect(Set(stride(from: 0, to: pixels.count, by: 4 * 61).map { pixels[$0] }).count > 1)
    }
}
