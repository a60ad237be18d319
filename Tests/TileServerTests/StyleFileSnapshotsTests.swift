import Foundation
import GeoCore
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
