import Foundation
import GeoCore
import MapData
import MapRenderer
import MapStyle
import OSMImport
import StyleRendering
import Testing

/// `MapSnapshotter`: the default style over the caller's data as `StyleSnapshot` draws it, the
/// seed's orientation, and typed errors for a camera or sources it cannot draw.
@Suite struct MapSnapshotterTests {
    /// The sample city in the built-in day style through the snapshotter equals the style drawn
    /// by `StyleSnapshot` over the same source: pixel for pixel.
    @Test func theSampleCityIsTheStyleSnapshotDrawnDirectly() throws {
        let source = try FeatureMapSource(features: try SampleCity.generate().mapFeatures(), name: "sample city")
        let camera = MapSnapshotter.camera(geoCoordinates: SampleCity.center, zoomLevel: 16.5, orientation: 30, width: 300, height: 200)
        #expect(camera.zoom == 15.5)
        let snapshot = try MapSnapshotter(data: source, camera: camera).snapshot()
        let direct = try StyleSnapshot(style: try DefaultStyle.document(.day), camera: camera, sources: [DefaultStyle.sourceID: source],
                                       load: DefaultStyleResources(glyphRange: nil).load)
        #expect(snapshot.image.width == 300 && snapshot.image.height == 200)
        #expect(snapshot.image == direct.image)
        #expect(Set(snapshot.image.unpremultipliedBytes).count > 10, "the city is drawn, not one colour")
    }

    /// A red circle 0.001° north of the centre (0°, 0°): at HERE zoom level 17 (MapLibre 16)
    /// that is 512 · 2¹⁶ · 0.001 / 360 ≈ 93.2 px (Mercator's y at the equator grows as the
    /// longitude's x, to 1e-7). Orientation 0 puts it above the centre, 90 (east up) left of
    /// it, 270 right of it; within 1 px.
    @Test func orientationTurnsNorthAwayFromTheTop() throws {
        let style = try StyleDocument(data: Data("""
            {"version": 8, "sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 0.001]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "c", "type": "circle", "source": "p", "paint": {"circle-color": "red", "circle-radius": 5}}]}
            """.utf8))
        let d = 512 * 65_536 * 0.001 / 360.0
        for (orientation, dx, dy) in [(0.0, 0.0, -d), (90, -d, 0), (270, d, 0)] {
            let camera = MapSnapshotter.camera(geoCoordinates: Coordinate(uncheckedLatitude: 0, longitude: 0), zoomLevel: 17,
                                               orientation: orientation, width: 320, height: 240)
            let image = try MapSnapshotter(style: style, camera: camera).snapshot().image
            var (sx, sy, n) = (0.0, 0.0, 0.0)
            for y in 0..<image.height {
                for x in 0..<image.width where image.color(x: x, y: y) == Color(red: 255, green: 0, blue: 0) {
                    (sx, sy, n) = (sx + Double(x) + 0.5, sy + Double(y) + 0.5, n + 1)
                }
            }
            #expect(n >= 50, "orientation \(orientation): \(n) red pixels")
            #expect(abs(sx / n - (160 + dx)) <= 1 && abs(sy / n - (120 + dy)) <= 1,
                    "orientation \(orientation): circle at (\(sx / n), \(sy / n)), expected (\(160 + dx), \(120 + dy))")
        }
    }

    /// A map source serves any vector source by its id, whatever the source's URLs say: the
    /// sample city's `water` layer under the id `city` fills the river's pixels blue (the
    /// built-in style's river at the same camera, 190 px north of the centre), and nothing without the source.
    @Test func aMapSourceServesTheStylesSourceOfItsID() throws {
        let source = try FeatureMapSource(features: try SampleCity.generate().mapFeatures(), name: "sample city")
        let camera = StyleCamera(longitude: SampleCity.center.longitude, latitude: SampleCity.center.latitude, zoom: 15, width: 300, height: 450)
        let style = try StyleDocument(data: Data("""
            {"version": 8, "sources": {"city": {"type": "vector", "tiles": ["https://nowhere.invalid/{z}/{x}/{y}.pbf"], "maxzoom": 14}},
             "layers": [{"id": "w", "type": "fill", "source": "city", "source-layer": "water", "paint": {"fill-color": "#0000FF", "fill-antialias": false}}]}
            """.utf8))
        let blue = Color(red: 0, green: 0, blue: 255)
        let served = try MapSnapshotter(style: style, sources: ["city": source], camera: camera).snapshot().image
        let reference = try MapSnapshotter(data: source, camera: camera).snapshot().image
        let waterColour = Color(hex: 0xAAD3DF)
        var (river, hit) = (0, 0)
        for y in 0..<450 { for x in 0..<300 where reference.color(x: x, y: y) == waterColour { river += 1; if served.color(x: x, y: y) == blue { hit += 1 } } }
        #expect(river >= 200, "the built-in style shows \(river) water pixels")
        #expect(Double(hit) >= 0.95 * Double(river), "\(hit) of \(river) water pixels blue")
        let unserved = try MapSnapshotter(style: style, camera: camera).snapshot()
        #expect(!unserved.warnings.isEmpty && (0..<450).allSatisfy { y in (0..<300).allSatisfy { x in unserved.image.color(x: x, y: y) != blue } })
    }

    @Test func aCameraOutOfRangeIsATypedErrorNamingIt() throws {
        let style = try DefaultStyle.document(.day)
        let good = StyleCamera(longitude: 7.42, latitude: 43.73, zoom: 15, width: 64, height: 64)
        func path(_ change: (inout StyleCamera) -> Void) -> String? {
            var camera = good
            change(&camera)
            do { _ = try MapSnapshotter(style: style, camera: camera).snapshot(); return nil } catch { return error.path }
        }
        #expect(path { _ in } == nil)
        #expect(path { $0.width = 0 } == "camera.width")
        #expect(path { $0.height = 100_000 } == "camera.height")
        #expect(path { $0.width = 4000; $0.pixelRatio = 8 } == "camera.width")
        #expect(path { $0.pixelRatio = 0 } == "camera.pixelRatio")
        #expect(path { $0.zoom = 24.5 } == "camera.zoom")
        #expect(path { $0.zoom = -1 } == "camera.zoom")
        #expect(path { $0.zoom = .nan } == "camera.zoom")
        #expect(path { $0.latitude = .nan } == "camera.latitude")
        #expect(path { $0.latitude = 91 } == "camera.latitude")
        #expect(path { $0.longitude = .infinity } == "camera.longitude")
        #expect(path { $0.bearing = .nan } == "camera.bearing")
        #expect(path { $0.pitch = -5 } == "camera.pitch")
    }

    /// A map source for an id the style lacks, or of tiles its source cannot draw, is refused;
    /// a source the style names that nobody serves is drawn as MapLibre draws it: its tiles
    /// fail (one warning each), the rest of the style (the land background) is drawn.
    @Test func sourcesMustFitTheStyleAndAnUnservedSourceOnlyWarns() throws {
        let source = try FeatureMapSource(features: try SampleCity.generate().mapFeatures(), name: "sample city")
        let camera = StyleCamera(longitude: SampleCity.center.longitude, latitude: SampleCity.center.latitude, zoom: 15, width: 64, height: 64)
        let style = try DefaultStyle.document(.day)
        #expect(throws: MapSnapshotError.self) { try MapSnapshotter(style: style, sources: ["tiles": source], camera: camera).snapshot() }
        do { _ = try MapSnapshotter(style: style, sources: ["tiles": source], camera: camera).snapshot() } catch {
            #expect(error.path == "sources.tiles")
        }
        let raster = try StyleDocument(data: Data(#"{"version": 8, "sources": {"r": {"type": "raster", "tiles": ["x://{z}/{x}/{y}.png"]}}, "layers": []}"#.utf8))
        do { _ = try MapSnapshotter(style: raster, sources: ["r": source], camera: camera).snapshot(); Issue.record("MVT served a raster source") } catch {
            #expect(error.path == "sources.r")
        }
        let unserved = try MapSnapshotter(style: style, camera: camera).snapshot()
        let tileWarnings = unserved.warnings.filter { $0.hasPrefix("source \(DefaultStyle.sourceID): tile 14/") }
        #expect(tileWarnings.count >= 1 && tileWarnings.count <= 4, "\(unserved.warnings)")
        let land = unserved.image.color(x: 32, y: 32)
        #expect(land.alpha == 255 && unserved.image.color(x: 0, y: 0) == land, "the background alone: \(land)")
    }
}
