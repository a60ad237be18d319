import Foundation
import GeoTestSupport
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Styles drawn by `StyleSnapshot`: colours and geometry where MapLibre puts them (a 512-pixel
/// world at zoom 0, the style's camera), sources read through the loader.
@Suite struct StyleSnapshotTests {
    private func draw(_ text: String, size: Int = 64, pixelRatio: Double = 1, files: [String: [UInt8]] = [:]) throws -> StyleSnapshot {
        let style = try StyleDocument(data: Data(text.utf8))
        let camera = StyleCamera(style: style, width: size, height: size, pixelRatio: pixelRatio)
        return try StyleSnapshot(style: style, camera: camera) { url in
            guard let bytes = files[url] else { throw StyleRenderError("no file \(url)") }
            return bytes
        }
    }

    @Test func backgroundColourAndOpacityFollowTheZoom() throws {
        // stops blue at z0 → white at z10; zoom 5 is half way: (127.5, 127.5, 255), opacity 0.5 on transparent.
        let s = try draw(#"{"version": 8, "zoom": 5, "sources": {}, "layers": [{"id": "bg", "type": "background", "paint": {"background-color": {"stops": [[0, "blue"], [10, "white"]]}, "background-opacity": 0.5}}]}"#)
        let c = s.image.color(x: 10, y: 10)
        #expect(abs(Int(c.alpha) - 128) <= 1)
        #expect(abs(Int(c.red) - 128) <= 2 && c.blue >= 253)
    }

    @Test func aGeoJSONPolygonFillsItsSquareOnScreen() throws {
        // ±10° of longitude at zoom 0 is ±(20/360)·512/2 ≈ ±14.2 px around the centre of a 64 px image.
        let s = try draw("""
            {"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-10, -10], [-10, 10], [10, 10], [10, -10], [-10, -10]]]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": ["case", ["==", ["geometry-type"], "Polygon"], "red", "blue"]}}]}
            """)
        #expect(s.image.color(x: 32, y: 32) == Color(red: 255, green: 0, blue: 0))
        #expect(s.image.color(x: 32 + 12, y: 32 - 12) == Color(red: 255, green: 0, blue: 0))
        #expect(s.image.color(x: 32 + 16, y: 32) == Color(red: 255, green: 255, blue: 255))
        #expect(s.image.color(x: 5, y: 5) == Color(red: 255, green: 255, blue: 255))
    }

    @Test func circlesTakeTheirRadiusInCSSPixelsTimesThePixelRatio() throws {
        let text = """
            {"version": 8, "sources": {"p": {"type": "geojson", "data": "local://points.geojson"}},
             "layers": [{"id": "c", "type": "circle", "source": "p", "paint": {"circle-radius": ["get", "r"], "circle-color": "#00ff00"}}]}
            """
        let points = Array(#"{"type": "Feature", "properties": {"r": 8}, "geometry": {"type": "Point", "coordinates": [0, 0]}}"#.utf8)
        let s = try draw(text, pixelRatio: 2, files: ["local://points.geojson": points])
        #expect(s.image.width == 128)
        // 8 CSS px at ratio 2: 16 device pixels from the centre (64, 64).
        #expect(s.image.color(x: 64 + 14, y: 64) == Color(red: 0, green: 255, blue: 0))
        #expect(s.image.color(x: 64 + 18, y: 64).alpha == 0)
        #expect(s.warnings.isEmpty)
    }

    @Test func lineSortKeyDrawsLowerKeysFirst() throws {
        // Two crossing lines, the red one first in the data but with the higher key: red on top
        // where they cross (the image's centre); without the key, the later blue one is on top.
        let lines = #"{"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"k": 2, "c": "red"}, "geometry": {"type": "LineString", "coordinates": [[-20, 0], [20, 0]]}}, {"type": "Feature", "properties": {"k": 1, "c": "blue"}, "geometry": {"type": "LineString", "coordinates": [[0, -20], [0, 20]]}}]}"#
        func centre(_ layout: String) throws -> Color {
            let s = try draw("""
                {"version": 8, "sources": {"l": {"type": "geojson", "data": \(lines)}},
                 "layers": [{"id": "l", "type": "line", "source": "l", "layout": {\(layout)}, "paint": {"line-width": 6, "line-color": ["get", "c"]}}]}
                """)
            return s.image.color(x: 32, y: 32)
        }
        #expect(try centre(#""line-sort-key": ["get", "k"]"#) == Color(red: 255, green: 0, blue: 0))
        #expect(try centre("") == Color(red: 0, green: 0, blue: 255))
    }

    @Test func featuresTakeTheValuesOfTheirOwnPropertiesWhereValuesAreKeptByProperty() throws {
        // Five 10° squares along the equator, 28.4 px apart on a 128 px image at zoom 0. The
        // filter and the colour read only `k`: the third square repeats the first's `k` (its
        // kept value), the fourth's `k` is an array (evaluated as it is), the fifth is filtered out.
        func square(_ longitude: Int, _ properties: String) -> String {
            let (w, e) = (longitude - 5, longitude + 5)
            return #"{"type": "Feature", "properties": {\#(properties)}, "geometry": {"type": "Polygon", "coordinates": [[[\#(w), -5], [\#(w), 5], [\#(e), 5], [\#(e), -5], [\#(w), -5]]]}}"#
        }
        let squares = [square(-40, #""k": "a""#), square(-20, #""k": "b""#), square(0, #""k": "a", "n": 1"#), square(20, #""k": ["a"]"#), square(40, #""k": "c""#)]
        let s = try draw("""
            {"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "FeatureCollection", "features": [\(squares.joined(separator: ", "))]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "f", "type": "fill", "source": "g", "filter": ["!=", ["get", "k"], "c"],
                         "paint": {"fill-color": ["match", ["get", "k"], "a", "red", "b", "lime", "blue"]}}]}
            """, size: 128)
        let red = Color(red: 255, green: 0, blue: 0), lime = Color(red: 0, green: 255, blue: 0), blue = Color(red: 0, green: 0, blue: 255)
        let centres = [-40.0, -20, 0, 20, 40].map { Int((64 + $0 * 512 / 360).rounded()) }
        #expect(centres.map { s.image.color(x: $0, y: 64) } == [red, lime, red, blue, Color(red: 255, green: 255, blue: 255)])
        #expect(s.warnings.isEmpty)
    }

    @Test func aMissingSourceFileIsAWarningNotAFailure() throws {
        let s = try draw(#"{"version": 8, "sources": {"p": {"type": "geojson", "data": "missing.geojson"}}, "layers": [{"id": "c", "type": "circle", "source": "p"}]}"#)
        #expect(s.warnings.contains { $0.contains("missing.geojson") })
        #expect(s.image.color(x: 32, y: 32).alpha == 0)
    }

    @Test func aPointAcrossTheAntimeridianIsDrawnOnTheWorldsCopy() throws {
        // Centre 179° E; the point at 179° W lies 2° further east: 2/360 · 512 ≈ 2.8 px right of x = 32.
        let s = try draw("""
            {"version": 8, "center": [179, 0], "sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [-179, 0]}}},
             "layers": [{"id": "c", "type": "circle", "source": "p", "paint": {"circle-radius": 3, "circle-color": "#0000ff"}}]}
            """)
        #expect(s.image.color(x: 34, y: 31) == Color(red: 0, green: 0, blue: 255))
        #expect(s.image.color(x: 28, y: 31).alpha == 0)
    }

    @Test func clusteredPointsWithinTheRadiusBecomeOneAtTheirMean() throws {
        // At zoom 0, ±5° is ±7.1 px from the centre of a 64 px image: within clusterRadius 25 of
        // each other, so one cluster of 2 at the centre; 20° E (28.4 px right, 35.6 px from −5°) stays alone.
        let s = try draw("""
            {"version": 8, "sources": {"p": {"type": "geojson", "cluster": true, "clusterRadius": 25, "data": {"type": "FeatureCollection", "features": [
               {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [-5, 0]}},
               {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [5, 0]}},
               {"type": "Feature", "properties": {}, "geometry": {"type": "Point", "coordinates": [20, 0]}}]}}},
             "layers": [{"id": "c", "type": "circle", "source": "p", "filter": ["==", ["get", "point_count"], 2], "paint": {"circle-radius": 3, "circle-color": "#00ff00"}},
                        {"id": "u", "type": "circle", "source": "p", "filter": ["!", ["has", "point_count"]], "paint": {"circle-radius": 3, "circle-color": "#0000ff"}}]}
            """)
        #expect(s.image.color(x: 32, y: 32) == Color(red: 0, green: 255, blue: 0))
        #expect(s.image.color(x: 25, y: 32).alpha == 0 && s.image.color(x: 39, y: 32).alpha == 0)
        #expect(s.image.color(x: 60, y: 32) == Color(red: 0, green: 0, blue: 255))
    }

    @Test func aGeoJSONLineFromMinus180To180CrossesTheWholeWorld() throws {
        // MapLibre's regression test mapbox-gl-js#3426: the world at zoom 0 is 512 px, so the
        // 64 px image shows its middle and the 10 px line crosses it at y = 32. The longitudes
        // as written: 180 is the world's east edge, not −180 (a line of length 0).
        let s = try draw("""
            {"version": 8, "sources": {"g": {"type": "geojson", "data": {"type": "LineString", "coordinates": [[-180, 0], [180, 0]]}}},
             "layers": [{"id": "l", "type": "line", "source": "g", "paint": {"line-width": 10, "line-color": "#000000"}}]}
            """)
        for x in [0, 32, 63] { #expect(s.image.color(x: x, y: 32) == Color(red: 0, green: 0, blue: 0), "x \(x)") }
        #expect(s.image.color(x: 32, y: 20).alpha == 0)
    }

    @Test func circlesByATilesEdgeAreWholeAndDrawnOnceAsMapLibreDrawsThem() throws {
        // The render suite's extent/1024-circle against MapLibre's expected.png: circles of the
        // world's copy to the west reach past x = 0 into the image (MapLibre draws circles without
        // clipping them to their tile, and only a tile's own points). Pixels differing by more than
        // 64 levels in a channel: 0 (115 when each tile's circles were clipped to the tile).
        guard let root = try Fixtures.url("maplibre-render") else { return }
        let test = root.appendingPathComponent("render-tests/extent/1024-circle")
        let style = try StyleDocument(data: Data(contentsOf: test.appendingPathComponent("style.json")))
        let snapshot = try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 512, height: 512, pixelRatio: 1)) { url in
            [UInt8](try Data(contentsOf: root.appendingPathComponent(String(url.dropFirst("local://".count)))))
        }
        let expected = try PNG.decode([UInt8](try Data(contentsOf: test.appendingPathComponent("expected.png"))))
        var differing = 0
        for y in 0..<512 {
            for x in 0..<512 {
                let a = snapshot.image.color(x: x, y: y), b = expected.color(x: x, y: y)
                let channels: [(UInt8, UInt8)] = [(a.red, b.red), (a.green, b.green), (a.blue, b.blue), (a.alpha, b.alpha)]
                if channels.contains(where: { abs(Int($0.0) - Int($0.1)) > 64 }) { differing += 1 }
            }
        }
        #expect(differing == 0)
    }
}
