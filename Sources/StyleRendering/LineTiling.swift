import MapStyle

/// GeoJSON lines cut into tiles as MapLibre GL's GeoJSON source cuts them (geojson-vt): each
/// tile keeps the parts within a buffer of a quarter tile around it, so a line's distance
/// (and its dash pattern) starts again where it enters a tile's buffer.
enum LineTiling {
    /// The buffer around a tile, in tiles (MapLibre's default 128 of 512 pixels).
    static let buffer = 0.25

    /// The parts of `lines` (world units, 0 … 1) each of `tiles` keeps.
    static func cut(_ lines: [[WorldPoint]], into tiles: [CanonicalTile]) -> [(CanonicalTile, [[WorldPoint]])] {
        tiles.compactMap { t in
            let n = Double(1 << t.z)
            let x0 = (Double(t.x) - buffer) / n, x1 = (Double(t.x) + 1 + buffer) / n
            let y0 = (Double(t.y) - buffer) / n, y1 = (Double(t.y) + 1 + buffer) / n
            var parts: [[WorldPoint]] = []
            for line in lines {
                for piece in clip(line, lo: x0, hi: x1, axis: \.x) { parts += clip(piece, lo: y0, hi: y1, axis: \.y) }
            }
            return parts.isEmpty ? nil : (t, parts)
        }
    }

    /// The parts of a polyline with `lo ≤ p[axis] ≤ hi`, each begun and ended on the bounds
    /// where the line crosses them.
    static func clip(_ line: [WorldPoint], lo: Double, hi: Double, axis: KeyPath<WorldPoint, Double>) -> [[WorldPoint]] {
        func cross(_ a: WorldPoint, _ b: WorldPoint, _ k: Double) -> WorldPoint {
            let t = (k - a[keyPath: axis]) / (b[keyPath: axis] - a[keyPath: axis])
            return WorldPoint(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t)
        }
        var out: [[WorldPoint]] = [], current: [WorldPoint] = []
        guard line.count >= 2 else { return [] }
        for i in 0..<(line.count - 1) {
            let a = line[i], b = line[i + 1]
            let ak = a[keyPath: axis], bk = b[keyPath: axis]
            if ak < lo {
                if bk > lo {
                    current.append(cross(a, b, lo))
                    if bk > hi { current.append(cross(a, b, hi)); out.append(current); current = [] }
                }
            } else if ak > hi {
                if bk < hi {
                    current.append(cross(a, b, hi))
                    if bk < lo { current.append(cross(a, b, lo)); out.append(current); current = [] }
                }
            } else {
                current.append(a)
                if bk < lo { current.append(cross(a, b, lo)); out.append(current); current = [] }
                else if bk > hi { current.append(cross(a, b, hi)); out.append(current); current = [] }
            }
        }
        if let last = line.last, last[keyPath: axis] >= lo, last[keyPath: axis] <= hi { current.append(last) }
        if current.count >= 2 { out.append(current) }
        return out
    }
}
