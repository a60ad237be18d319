import Foundation
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// Styles seen under pitch as MapLibre GL's camera sees them: 36.87° vertical field of view, so
/// the eye is 1.5 image heights from the centre; pitch at most 60°. All sizes device pixels.
@Suite struct PerspectiveTests {
    private func draw(_ text: String, size: Int = 256, width: Int? = nil) throws -> StyleSnapshot {
        let style = try StyleDocument(data: Data(text.utf8))
        let camera = StyleCamera(style: style, width: width ?? size, height: size, pixelRatio: 1)
        return try StyleSnapshot(style: style, camera: camera) { url in throw StyleRenderError("no file \(url)") }
    }

    @Test func aSquareOnTheGroundIsFlattenedByThePitch() throws {
        // ±10° at zoom 0 is ±14.3 px of ground (north–south) around the centre. At pitch 60° the
        // eye is 384 px away: the far edge shows at 128 − 14.3 · cos 60° · 384 / (384 + 14.3 · sin 60°)
        // = 121.1, the near edge at 135.4 (from above: 113.7 and 142.3).
        let s = try draw("""
            {"version": 8, "pitch": 60, "sources": {"g": {"type": "geojson", "data": {"type": "Polygon", "coordinates": [[[-10, -10], [-10, 10], [10, 10], [10, -10], [-10, -10]]]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "red"}}]}
            """)
        let red = Color(red: 255, green: 0, blue: 0), white = Color(red: 255, green: 255, blue: 255)
        #expect(s.image.color(x: 128, y: 118) == white)
        #expect(s.image.color(x: 128, y: 124) == red)
        #expect(s.image.color(x: 128, y: 133) == red)
        #expect(s.image.color(x: 128, y: 138) == white)
        // The far edge is 13.8 px either side of the middle, the near one 14.7.
        #expect(s.image.color(x: 128 - 16, y: 122) == white && s.image.color(x: 128 + 15, y: 122) == white)
        #expect(s.image.color(x: 128 - 14, y: 134) == red && s.image.color(x: 128 + 13, y: 134) == red)
        #expect(s.warnings.isEmpty)
    }

    @Test func aFillReachingBehindTheEyeIsCutAtTheNearLimit_notMirroredAboveTheHorizon() throws {
        // Zoom 1 (a 1,024 px world), pitch 60°, 256 px image: the eye is 384 px from the centre,
        // so ground more than 384 / sin 60° = 443 px south of the centre lies behind it. The
        // band from 20° S (58 px south) to 85° S (512 px south) shows from row 128 + 58 · cos 60° ·
        // 384 / (384 − 58 · sin 60°) = 161.4 to the bottom; projected whole, its corners at
        // 85° S came out mirrored far above the image and the band covered its top. A second
        // polygon, 84–85° S (481 px south and more), lies wholly behind the eye: nothing of it is drawn.
        let s = try draw("""
            {"version": 8, "pitch": 60, "zoom": 1, "sources": {"g": {"type": "geojson", "data": {"type": "MultiPolygon", "coordinates": [[[[-20, -85], [20, -85], [20, -20], [-20, -20], [-20, -85]]],
                                                                                   [[[40, -85], [60, -85], [60, -84], [40, -84], [40, -85]]]]}}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "f", "type": "fill", "source": "g", "paint": {"fill-color": "red", "fill-antialias": true}}]}
            """)
        let red = Color(red: 255, green: 0, blue: 0), white = Color(red: 255, green: 255, blue: 255)
        for y in stride(from: 0, to: 158, by: 4) {
            for x in stride(from: 0, to: 256, by: 8) { #expect(s.image.color(x: x, y: y) == white, "(\(x), \(y)) is not the background") }
        }
        #expect(s.image.color(x: 128, y: 166) == red)
        #expect(s.image.color(x: 128, y: 255) == red)
    }

    @Test func circlesStayRoundAndShrinkWithDistanceUnlessScaledWithTheViewport() throws {
        // A point at 30° N is 44.8 px of ground north of the centre; pitch 90° is drawn as 60°:
        // its depth is 384 + 44.8 · sin 60° = 422.8 px, so it shows at y = 128 − 44.8 · 0.5 · 384 / 422.8
        // = 107.7 and a 20 px circle there is 18.2 px with `circle-pitch-scale: map` (the default).
        func circle(_ scale: String) throws -> StyleSnapshot {
            try draw("""
                {"version": 8, "pitch": 90, "sources": {"p": {"type": "geojson", "data": {"type": "Point", "coordinates": [0, 30]}}},
                 "layers": [{"id": "c", "type": "circle", "source": "p", "paint": {"circle-radius": 20, "circle-color": "#0000ff", "circle-pitch-scale": "\(scale)"}}]}
                """)
        }
        let map = try circle("map"), viewport = try circle("viewport")
        let blue = Color(red: 0, green: 0, blue: 255)
        for s in [map, viewport] {
            #expect(s.image.color(x: 128, y: 108) == blue)
            #expect(s.image.color(x: 128, y: 86).alpha == 0)
        }
        // 18.5 px right of the centre: outside 18.2 px, inside 20 px.
        #expect(map.image.color(x: 146, y: 107).alpha == 0)
        #expect(viewport.image.color(x: 146, y: 107) == blue)
    }

    @Test func anExtrusionShowsItsLitRoofAboveItsDarkerFrontWall() throws {
        // The suite's fill-extrusion-color/default scene (512 × 256, zoom 18, pitch 60, a black
        // box ±0.0003° wide and 10 m high, the largest of its three). MapLibre's image: the roof rows 58 … 165 at x = 256 in
        // (11, 11, 11), the front wall 166 … 202 in (6, 6, 6): black plus 0.03 ambient, times the
        // default light's 1.496 on the roof and 0.5 + 0.498 (the wall's normal against the light)
        // times the vertical gradient's 0.84 on the wall. Tolerance: one level per channel, two rows at the edges.
        let s = try draw("""
            {"version": 8, "zoom": 18, "pitch": 60, "sources": {"g": {"type": "geojson", "data": {"type": "Polygon",
              "coordinates": [[[-0.0003, -0.0003], [-0.0003, 0.0003], [0.0003, 0.0003], [0.0003, -0.0003], [-0.0003, -0.0003]]]}}},
             "layers": [{"id": "x", "type": "fill-extrusion", "source": "g", "paint": {"fill-extrusion-height": 10}}]}
            """, size: 256, width: 512)
        func grey(_ y: Int) -> Int { Int(s.image.color(x: 256, y: y).red) }
        #expect(s.image.color(x: 256, y: 55).alpha == 0)
        for y in [61, 100, 163] { #expect(abs(grey(y) - 11) <= 1 && s.image.color(x: 256, y: y).alpha == 255) }
        for y in [169, 185, 200] { #expect(abs(grey(y) - 6) <= 1 && s.image.color(x: 256, y: y).alpha == 255) }
        #expect(s.image.color(x: 256, y: 206).alpha == 0)
        #expect(!s.warnings.contains { $0.contains("fill-extrusion") })
    }
}
