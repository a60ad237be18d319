import MapRenderer
import Platform

/// Thin outlines of polygons (a `line` layer over polygons: buildings' outlines) shaded
/// segment by segment from each pixel's distance to the segment, without building their mesh:
/// the pixels ``LineShading/fill(_:into:clip:)`` gives the ring's ``LineMesh`` with miter
/// joins, with less work (a thin line's triangles cover a pixel or two per row: no vertices
/// are stored, and one quadrilateral is set up per segment instead of two triangles).
///
/// With miter joins a segment's two triangles make one quadrilateral: the band within the
/// line's outset either side of the segment, cut at each end by the miter line through the
/// join's two vertices. Each end is tested exactly as the mesh's triangle on it tests it (the
/// same edge function and the same rule for a pixel centre on it), so a pixel on a miter line
/// goes where the mesh sends it. Inside, the shader's distance varying is the distance to the
/// segment's line, up to the 1/63 steps in which the mesh keeps each extrusion (under 0.02 px
/// at the widths drawn here). A segment too short for its quadrilateral (its miter lines cross
/// inside the band, its triangles overlapping its neighbours') is left to the mesh.
extension LineShading {
    /// The widest outset (half width plus half a pixel of antialiasing) shaded this way, device
    /// pixels: a line 1.5 px wide.
    static let thinOutset = 1.25

    /// Whether polygon rings may be shaded by ``fillThinRing(_:miterLimit:into:clip:short:)``:
    /// a line of one colour, at most 1.5 device pixels wide, with no gap, offset, dashes,
    /// pattern or tilt.
    var shadesThinRings: Bool {
        joinable && inset == 0 && offset == 0 && outset <= Self.thinOutset
    }

    /// Shades one closed ring (device pixels, its last point repeating its first) drawn with
    /// miter joins, only inside `clip` (max exclusive), as ``fill(_:into:clip:)`` shades its
    /// mesh; a segment too short for its quadrilateral is added to `short` as the mesh's two
    /// triangles, to be shaded with the mesh `short` gathers (in one colour the order of
    /// blending changes a pixel by rounding only). Returns false, having drawn nothing, when a
    /// join would not be a miter (sharper than `miterLimit` allows) or the ring is not closed:
    /// the caller then builds its mesh. Requires ``shadesThinRings``.
    func fillThinRing(_ ring: [Point], miterLimit: Double, into image: inout Pixmap, clip: (minX: Int, minY: Int, maxX: Int, maxY: Int),
                      short: inout LineMesh) -> Bool {
        // Per point k, in one buffer of three parts (no allocation per ring): the ring's points
        // without repeats (as the mesh skips them; `m` distinct points, then the first again),
        // each segment's unit direction (to point k + 1) and the extrusion of each join (the
        // mesh's vertices lie at the point ± extrusion · outset).
        let n = ring.count + 1
        return withUnsafeTemporaryAllocation(of: Point.self, capacity: 3 * n) { buffer in
            let points = UnsafeMutableBufferPointer(rebasing: buffer[0..<n])
            let direction = UnsafeMutableBufferPointer(rebasing: buffer[n..<(2 * n)])
            let extrusion = UnsafeMutableBufferPointer(rebasing: buffer[(2 * n)..<(3 * n)])
            var count = 0
            for p in ring where count == 0 || points[count - 1] != p { points[count] = p; count += 1 }
            let m = count - 1
            guard m >= 3, points[m] == points[0] else { return false }
            for k in 0..<m { direction[k] = (points[k + 1] - points[k]).unit }
            for k in 0..<m {
                let (normal, _, miterLength) = LineMesh.join(LineMesh.perp(direction[k == 0 ? m - 1 : k - 1]), LineMesh.perp(direction[k]))
                guard miterLength <= miterLimit else { return false }
                extrusion[k] = Point(x: LineMesh.quantized(normal.x * miterLength), y: LineMesh.quantized(normal.y * miterLength))
            }
            extrusion[m] = extrusion[0]
            let w = image.width
            // As the line shader: full coverage of an opaque colour is the colour.
            let solid = opaqueWord
            image.withUnsafeMutableBytes { bytes in
                for k in 0..<m {
                    fillSegment(from: points[k], points[k + 1], direction: direction[k], extrusions: extrusion[k], extrusion[k + 1],
                                width: w, solid: solid, into: bytes, clip: clip, short: &short)
                }
            }
            return true
        }
    }

    /// Shades one segment of a ring (``fillThinRing(_:miterLimit:into:clip:short:)``) from `p0`
    /// to `p1` with the join extrusions `e0` and `e1` into the RGBA bytes of an image `width`
    /// pixels wide (a pixel fully covered takes the bytes `solid` (``opaqueWord``), where the colour is opaque),
    /// or adds its triangles to `short`.
    @inline(__always)
    private func fillSegment(from p0: Point, _ p1: Point, direction u: Point, extrusions e0: Point, _ e1: Point, width w: Int,
                             solid: UInt32?, into bytes: UnsafeMutableBufferPointer<UInt8>,
                             clip: (minX: Int, minY: Int, maxX: Int, maxY: Int), short: inout LineMesh) {
        let o = outset
        // The quadrilateral's corners, the mesh's vertices: a and b at the start (down and up),
        // c and d at the end; its triangles are (a, b, c) and (c, b, d).
        let a = p0 + e0 * o, b = p0 + (e0 * -1) * o, c = p1 + e1 * o, d = p1 + (e1 * -1) * o
        // Wholly left or right of the clip (its triangles' columns there empty, as in
        // ``fill(_:into:clip:)``), it draws nothing.
        guard max(a.x, b.x, c.x, d.x) - 0.5 >= Double(clip.minX), min(a.x, b.x, c.x, d.x) - 0.5 <= Double(clip.maxX - 1) else { return }
        // Convex (each corner of a, c, d, b turning the same way), the two triangles are the
        // quadrilateral; else the miter lines cross inside the band, the triangles overlap.
        func turn(_ p: Point, _ q: Point, _ r: Point) -> Double { (q.x - p.x) * (r.y - q.y) - (q.y - p.y) * (r.x - q.x) }
        let turns = (turn(a, c, d), turn(c, d, b), turn(d, b, a), turn(b, a, c))
        guard turns.0 > 0 && turns.1 > 0 && turns.2 > 0 && turns.3 > 0 || turns.0 < 0 && turns.1 < 0 && turns.2 < 0 && turns.3 < 0 else {
            short.add(quadrilateralOf: p0, e0, p1, e1)
            return
        }
        let start = EdgeTest(a, b, opposite: c), end = EdgeTest(d, c, opposite: b)
        let top = min(a.y, b.y, c.y, d.y), bottom = max(a.y, b.y, c.y, d.y)
        let y0 = max(clip.minY, Self.ceil(top - 0.5)), y1 = min(clip.maxY - 1, Self.floor(bottom - 0.5))
        guard y0 <= y1 else { return }
        // The distance varying, as the mesh interpolates it: 1 at the corners, whose distance
        // from the line is the extrusion's part along the normal.
        let n = LineMesh.perp(u)
        let scale = 2 / ((e0.x + e1.x) * n.x + (e0.y + e1.y) * n.y)
        let nx = n.x * scale, ny = n.y * scale
        let acRun = c.y == a.y ? 0 : (c.x - a.x) / (c.y - a.y), cdRun = d.y == c.y ? 0 : (d.x - c.x) / (d.y - c.y)
        let dbRun = b.y == d.y ? 0 : (b.x - d.x) / (b.y - d.y), baRun = a.y == b.y ? 0 : (a.x - b.x) / (a.y - b.y)
        for y in y0...y1 {
            let sy = Double(y) + 0.5
            // The row's span within the quadrilateral, give or take ``spanSlack``; the ends'
            // edge tests decide there, the distance along the sides.
            var lo = Double.infinity, hi = -Double.infinity
            Self.span(a.x, a.y, c.x, c.y, acRun, sy, &lo, &hi)
            Self.span(c.x, c.y, d.x, d.y, cdRun, sy, &lo, &hi)
            Self.span(d.x, d.y, b.x, b.y, dbRun, sy, &lo, &hi)
            Self.span(b.x, b.y, a.x, a.y, baRun, sy, &lo, &hi)
            guard lo <= hi else { continue }
            let xa = max(clip.minX, Self.ceil(lo - 0.5 - Self.spanSlack)), xb = min(clip.maxX - 1, Self.floor(hi - 0.5 + Self.spanSlack))
            guard xa <= xb else { continue }
            let across = ny * (sy - p0.y), startRow = start.row(sy), endRow = end.row(sy)
            // A centre more than ``spanSlack`` inside the span of a row strictly between the
            // top and bottom corners is inside both ends (as in ``fill(_:into:clip:)``): only
            // those near the span's ends, or on a top or bottom row, are tested.
            let sureFrom = sy > top && sy < bottom ? lo + Self.spanSlack : .infinity, sureTo = hi - Self.spanSlack
            for x in xa...xb {
                let sx = Double(x) + 0.5
                guard sx > sureFrom && sx < sureTo || start.inside(startRow, sx) && end.inside(endRow, sx) else { continue }
                let dist = abs(nx * (sx - p0.x) + across)
                let edge = min(dist - (inset - blur), o - dist)
                // x and y lie in the clip, inside the image: the offset without overflow checks.
                let i = (y &* w &+ x) &* 4
                if edge >= blur, let solid {
                    Self.store(solid, at: i, in: bytes)
                    continue
                }
                let alpha = edge / blur
                guard alpha > 0 else { continue }
                blend(min(alpha, 1), at: i, in: bytes)
            }
        }
    }

    /// The test of ``fill(_:into:clip:)`` for one edge (p, q) of its triangle (p, q, opposite):
    /// the triangle turned to positive area as the fill turns it, the edge function from the
    /// edge's first vertex in that order, and a pixel centre on the edge inside when the edge
    /// is a top or left one.
    private struct EdgeTest {
        let x: Double, y: Double, dx: Double, dy: Double, onEdge: Bool

        init(_ p: Point, _ q: Point, opposite r: Point) {
            // The fill swaps the triangle's last two vertices when its area is negative: the
            // edge then runs from q to p.
            let area = (q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)
            let (from, to) = area < 0 ? (q, p) : (p, q)
            (x, y, dx, dy) = (from.x, from.y, to.x - from.x, to.y - from.y)
            onEdge = dy > 0 || (dy == 0 && dx < 0)
        }

        /// The part of the edge function that depends on the row (pixel centre `sy`).
        @inline(__always) func row(_ sy: Double) -> Double { dx * (sy - y) }

        /// Whether the pixel centre at `sx` on a row with ``row(_:)`` `r` is on the triangle's side.
        @inline(__always) func inside(_ r: Double, _ sx: Double) -> Bool {
            let v = r - dy * (sx - x)
            return v > 0 || (v == 0 && onEdge)
        }
    }
}

extension LineMesh {
    /// Adds one segment's two triangles as a miter-joined ring's mesh has them: from `p0` to
    /// `p1`, with the (quantized) join extrusions `e0` and `e1`.
    mutating func add(quadrilateralOf p0: Point, _ e0: Point, _ p1: Point, _ e1: Point) {
        let first = Int32(vertices.count)
        vertices.append(LineVertex(x: p0.x, y: p0.y, ex: e0.x, ey: e0.y, round: false, up: false, direction: 0, distance: 0))
        vertices.append(LineVertex(x: p0.x, y: p0.y, ex: -e0.x, ey: -e0.y, round: false, up: true, direction: 0, distance: 0))
        vertices.append(LineVertex(x: p1.x, y: p1.y, ex: e1.x, ey: e1.y, round: false, up: false, direction: 0, distance: 0))
        vertices.append(LineVertex(x: p1.x, y: p1.y, ex: -e1.x, ey: -e1.y, round: false, up: true, direction: 0, distance: 0))
        // The strip's order: (down, up, next down), then (next down, up, next up); appended one
        // by one (an array literal would be allocated per segment).
        triangles.append(first); triangles.append(first + 1); triangles.append(first + 2)
        triangles.append(first + 2); triangles.append(first + 1); triangles.append(first + 3)
    }
}
