import Foundation
import GeoCore
import MapRenderer
import MapStyle
import StyleRendering
import Testing

/// A `line` layer over polygons at most 1.5 px wide (buildings' outlines) is shaded ring by
/// ring without building the ring's mesh: its pixels are those of MapLibre's line shader, as
/// the mesh gives them, on a 64-pixel image of the zoom-0 world (512 px wide).
@Suite struct ThinOutlineTests {
    private func draw(_ geometry: String, width: Double) throws -> StyleSnapshot {
        let text = """
            {"version": 8, "sources": {"g": {"type": "geojson", "data": \(geometry)}},
             "layers": [{"id": "bg", "type": "background", "paint": {"background-color": "white"}},
                        {"id": "l", "type": "line", "source": "g", "paint": {"line-width": \(width), "line-color": "#204060"}}]}
            """
        let style = try StyleDocument(data: Data(text.utf8))
        return try StyleSnapshot(style: style, camera: StyleCamera(style: style, width: 64, height: 64, pixelRatio: 1)) { url in
            throw StyleRenderError("no file \(url)")
        }
    }

    /// Where a longitude, latitude (degrees) lands on the image, pixels.
    private func pixel(_ lon: Double, _ lat: Double) -> (x: Double, y: Double) {
        (32 + lon / 360 * 512, 32 - log(tan(.pi / 4 + lat * .pi / 360)) / (2 * .pi) * 512)
    }

    @Test func aThinOutlineFadesWithTheDistanceToItsEdgeAsTheLineShaderDoes() throws {
        // A square ring whose west edge lies at x = 3.75 (19.86328125° W; a whole 1/16 pixel,
        // the step of the GeoJSON source's tiles here). Width 1 (outset 1: half the width plus
        // half a pixel), the shader's alpha is 1 − distance: column 3 (centre 3.5) 0.75,
        // column 4 (4.5) 0.25, column 2 (2.5) nothing.
        let e = 19.86328125
        let s = try draw(#"{"type": "Polygon", "coordinates": [[[-\#(e), -20], [\#(e), -20], [\#(e), 20], [-\#(e), 20], [-\#(e), -20]]]}"#, width: 1)
        let white = 255.0, ink = (r: 0x20, g: 0x40, b: 0x60)
        for (column, distance) in [(3, 3.5 - 3.75), (4, 4.5 - 3.75)] {
            let alpha = 1 - abs(distance)
            let c = s.image.color(x: column, y: 32)
            #expect(abs(Double(c.red) - (Double(ink.r) * alpha + white * (1 - alpha))) <= 1, "column \(column)")
            #expect(abs(Double(c.blue) - (Double(ink.b) * alpha + white * (1 - alpha))) <= 1, "column \(column)")
        }
        #expect(s.image.color(x: 2, y: 32) == Color(red: 255, green: 255, blue: 255))
    }

    @Test func aThinPolygonOutlineIsTheMeshOfTheSameRingAsALine() throws {
        // Right, obtuse and sharp corners and a jog of 0.43 px (narrower than the line's
        // antialiased band: that segment's triangles overlap its neighbours' and are left to
        // the mesh). The same points as a line string are shaded through the mesh; the two
        // differ only about the first point, joined in the ring and capped on the line. That
        // corner is square to the axes, so its extrusions (the join's and the caps') are kept
        // exactly: the segments beside it shade alike in both.
        let points = "[[-20, -15], [18, -15], [18, -2], [17.7, -2], [17.7, 12], [6, 14], [0, 22], [-20, 22], [-20, -15]]"
        let first = pixel(-20, -15)
        for width in [0.6, 1.0, 1.5] {
            let ring = try draw(#"{"type": "Polygon", "coordinates": [\#(points)]}"#, width: width)
            let line = try draw(#"{"type": "LineString", "coordinates": \#(points)}"#, width: width)
            var worst = 0, changed = 0, inked = 0, at = (0, 0)
            for y in 0..<64 {
                for x in 0..<64 where abs(Double(x) + 0.5 - first.x) > 4 || abs(Double(y) + 0.5 - first.y) > 4 {
                    let a = ring.image.color(x: x, y: y), b = line.image.color(x: x, y: y)
                    if b.red != 255 { inked += 1 }
                    let d = max(abs(Int(a.red) - Int(b.red)), abs(Int(a.green) - Int(b.green)), abs(Int(a.blue) - Int(b.blue)), abs(Int(a.alpha) - Int(b.alpha)))
                    if d > worst { (worst, at) = (d, (x, y)) }
                    if d > 0 { changed += 1 }
                }
            }
            // Within 2/255 a channel: the distance from the segment's line instead of the
            // mesh's interpolated one (its extrusions kept in 1/63 steps) and the order in
            // which the jog's pixels blend.
            #expect(worst <= 2, "width \(width): \(changed) pixels differ, by up to \(worst) at \(at)")
            #expect(inked > 100, "width \(width): the outline drew \(inked) pixels")
        }
    }
}
