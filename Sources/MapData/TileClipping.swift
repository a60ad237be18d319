import GeoCore

/// Geometry operations of tiling, in tile units (world units × 2^z × extent): simplification,
/// clipping to a tile's buffered box, and quantisation to the tile grid.
enum TileClipping {
    enum Axis { case x, y }

    @inline(__always) static func value(_ p: MapPoint, _ axis: Axis) -> Double { axis == .x ? p.x : p.y }

    @inline(__always) static func interpolate(_ a: MapPoint, _ b: MapPoint, at t: Double) -> MapPoint {
        MapPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
    }

    /// Douglas–Peucker simplification (GeoCore's `DouglasPeucker`) with a tolerance in the
    /// points' units; the first and last points are kept, so closed rings stay closed.
    static func simplified(_ points: [MapPoint], tolerance: Double) -> [MapPoint] {
        guard points.count > 2, tolerance > 0 else { return points }
        let keep = DouglasPeucker.kept(points, tolerance: tolerance, x: { $0.x }, y: { $0.y })
        var out: [MapPoint] = []
        out.reserveCapacity(points.count / 2)
        for i in points.indices where keep[i] { out.append(points[i]) }
        return out
    }

    /// The parts of a line inside `lower…upper` on one axis (a line leaving and re-entering
    /// gives several parts).
    static func clipLine(_ line: [MapPoint], _ axis: Axis, _ lower: Double, _ upper: Double, into out: inout [[MapPoint]]) {
        var current: [MapPoint] = []
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            let va = value(a, axis), vb = value(b, axis)
            var t0 = 0.0, t1 = 1.0
            let d = vb - va
            if d == 0 {
                if va < lower || va > upper { if current.count >= 2 { out.append(current) }; current = []; continue }
            } else {
                let ta = (lower - va) / d, tb = (upper - va) / d
                t0 = max(t0, min(ta, tb))
                t1 = min(t1, max(ta, tb))
                if t0 > t1 { if current.count >= 2 { out.append(current) }; current = []; continue }
            }
            if current.isEmpty { current.append(t0 == 0 ? a : interpolate(a, b, at: t0)) }
            current.append(t1 == 1 ? b : interpolate(a, b, at: t1))
            if t1 < 1 {
                if current.count >= 2 { out.append(current) }
                current = []
            }
        }
        if current.count >= 2 { out.append(current) }
    }

    /// Sutherland–Hodgman clipping of a closed ring to `lower…upper` on one axis (Sutherland &
    /// Hodgman 1974, two half-planes). The result is closed, or empty when nothing is inside.
    static func clipRing(_ ring: [MapPoint], _ axis: Axis, _ lower: Double, _ upper: Double) -> [MapPoint] {
        let once = clipHalfPlane(ring, axis, bound: lower, keepAbove: true)
        return once.isEmpty ? once : clipHalfPlane(once, axis, bound: upper, keepAbove: false)
    }

    private static func clipHalfPlane(_ ring: [MapPoint], _ axis: Axis, bound: Double, keepAbove: Bool) -> [MapPoint] {
        guard ring.count >= 2 else { return [] }
        @inline(__always) func inside(_ p: MapPoint) -> Bool { keepAbove ? value(p, axis) >= bound : value(p, axis) <= bound }
        var out: [MapPoint] = []
        out.reserveCapacity(ring.count + 4)
        // The ring is closed, so edges are (ring[i-1], ring[i]) for i in 1..<count.
        for i in 1..<ring.count {
            let a = ring[i - 1], b = ring[i]
            let ina = inside(a), inb = inside(b)
            if ina != inb {
                let t = (bound - value(a, axis)) / (value(b, axis) - value(a, axis))
                out.append(interpolate(a, b, at: t))
            }
            if inb { out.append(b) }
        }
        guard out.count >= 3 else { return [] }
        if out.first != out.last { out.append(out[0]) }
        return out
    }

    /// Twice the shoelace area of a closed ring (sign by orientation), in units².
    static func twiceArea(_ ring: [MapPoint]) -> Double {
        guard ring.count >= 4 else { return 0 }
        let o = ring[0]
        var sum = 0.0
        for i in 1..<(ring.count - 1) {
            sum += (ring[i].x - o.x) * (ring[i + 1].y - o.y) - (ring[i + 1].x - o.x) * (ring[i].y - o.y)
        }
        return sum
    }

    /// Length of a line in its units.
    static func length(_ line: [MapPoint]) -> Double {
        var sum = 0.0
        for i in 1..<line.count {
            let dx = line[i].x - line[i - 1].x, dy = line[i].y - line[i - 1].y
            sum += (dx * dx + dy * dy).squareRoot()
        }
        return sum
    }
}
