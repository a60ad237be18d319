import Platform

/// A local flat-earth approximation on the WGS84 ellipsoid (Mapbox's cheap-ruler, ISC):
/// metres per degree of longitude and latitude from the normal and meridional radii of
/// curvature at one latitude. Within a few hundred kilometres it is within 0.1 % of the
/// geodesic; `distance` is defined with it.
struct CheapRuler {
    let kx: Double, ky: Double

    init(latitude: Double) {
        let equatorialRadius = 6378.137, flattening = 1 / 298.257223563
        let e2 = flattening * (2 - flattening)
        let m = Double.pi / 180 * equatorialRadius * 1000
        let cosLat = cos(latitude * .pi / 180)
        let w2 = 1 / (1 - e2 * (1 - cosLat * cosLat))
        let w = w2.squareRoot()
        kx = m * w * cosLat
        ky = m * w * w2 * (1 - e2)
    }

    /// Longitude difference brought into -180 … 180.
    private func wrap(_ degrees: Double) -> Double {
        var d = degrees
        while d < -180 { d += 360 }
        while d > 180 { d -= 360 }
        return d
    }

    /// Metres between two points (x = longitude, y = latitude).
    func distance(_ a: TilePoint, _ b: TilePoint) -> Double {
        let dx = wrap(a.x - b.x) * kx, dy = (a.y - b.y) * ky
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Metres from `p` to the nearest point of the polyline; NaN for fewer than two points.
    func distance(_ p: TilePoint, toLine line: [TilePoint]) -> Double {
        var best = Double.infinity
        var nearest: TilePoint?
        for (a, b) in zip(line, line.dropFirst()) {
            var x = a.x, y = a.y
            let dx = wrap(b.x - x) * kx, dy = (b.y - y) * ky
            if dx != 0 || dy != 0 {
                let t = (wrap(p.x - x) * kx * dx + (p.y - y) * ky * dy) / (dx * dx + dy * dy)
                if t > 1 {
                    x = b.x
                    y = b.y
                } else if t > 0 {
                    x += dx / kx * t
                    y += dy / ky * t
                }
            }
            let ex = wrap(p.x - x) * kx, ey = (p.y - y) * ky
            let squared = ex * ex + ey * ey
            if squared < best { best = squared; nearest = TilePoint(x: x, y: y) }
        }
        return nearest.map { distance(p, $0) } ?? .nan
    }

    func distance(segment p1: TilePoint, _ p2: TilePoint, _ q1: TilePoint, _ q2: TilePoint) -> Double {
        min(distance(p1, toLine: [q1, q2]), distance(p2, toLine: [q1, q2]), distance(q1, toLine: [p1, p2]), distance(q2, toLine: [p1, p2]))
    }
}

extension GeometryFilter {
    /// `distance`: metres from the feature to the nearest of the geometries (0 where they
    /// touch or one contains the other), measured with a ``CheapRuler`` at the feature's first
    /// point; NaN without a geometry or tile.
    func distance(_ ctx: EvaluationContext) -> Double {
        guard let feature = ctx.feature, let geometry = feature.geometry, let tile = ctx.canonical, !geometry.isEmpty else { return .nan }
        func degrees(_ p: TilePoint) -> TilePoint { let q = Self.position(p, tile); return TilePoint(x: q.lng, y: q.lat) }
        let targets = geometries.map { g in (g.kind, g.rings.map { $0.map { TilePoint(x: $0.lng, y: $0.lat) } }) }
        var best = Double.infinity
        switch feature.geometryType {
        case "Point", "LineString":
            let points = geometry.joined().map(degrees)
            guard let first = points.first else { return .nan }
            let ruler = CheapRuler(latitude: first.y)
            let isLine = feature.geometryType == "LineString"
            for (kind, rings) in targets {
                switch kind {
                case .point, .lineString:
                    best = min(best, Self.setDistance(points, isLine, rings.first ?? [], kind == .lineString, ruler))
                case .polygon:
                    best = min(best, Self.polygonDistance(points, isLine, rings, ruler))
                }
                if best == 0 { return 0 }
            }
        case "Polygon":
            guard !geometry[0].isEmpty else { return .nan }
            let polygons = Self.classifyRings(geometry).map { $0.map { $0.map(degrees) } }
            let ruler = CheapRuler(latitude: polygons[0][0][0].y)
            for (kind, rings) in targets {
                for polygon in polygons {
                    switch kind {
                    case .point, .lineString: best = min(best, Self.polygonDistance(rings.first ?? [], kind == .lineString, polygon, ruler))
                    case .polygon: best = min(best, Self.polygonToPolygon(polygon, rings, ruler))
                    }
                    if best == 0 { return 0 }
                }
            }
        default:
            return .nan
        }
        return best
    }

    /// Between two point sets, each a polyline when its flag is set.
    private static func setDistance(_ a: [TilePoint], _ aIsLine: Bool, _ b: [TilePoint], _ bIsLine: Bool, _ ruler: CheapRuler) -> Double {
        var best = Double.infinity
        switch (aIsLine, bIsLine) {
        case (false, false):
            for p in a { for q in b { best = min(best, ruler.distance(p, q)) } }
        case (false, true):
            for p in a { best = min(best, ruler.distance(p, toLine: b)) }
        case (true, false):
            for q in b { best = min(best, ruler.distance(q, toLine: a)) }
        case (true, true):
            for (p1, p2) in zip(a, a.dropFirst()) {
                for (q1, q2) in zip(b, b.dropFirst()) {
                    if Planar.segmentsCross(p1, p2, q1, q2) { return 0 }
                    best = min(best, ruler.distance(segment: p1, p2, q1, q2))
                }
            }
        }
        return best
    }

    /// From points (or a polyline) to a polygon: 0 when one is inside or a segment crosses an edge.
    private static func polygonDistance(_ points: [TilePoint], _ isLine: Bool, _ polygon: [[TilePoint]], _ ruler: CheapRuler) -> Double {
        if points.contains(where: { Planar.pointInPolygon($0, polygon, onBoundary: true) }) { return 0 }
        var best = Double.infinity
        if !isLine {
            for p in points {
                for ring in polygon {
                    if let front = ring.first, let back = ring.last { best = min(best, ruler.distance(p, toLine: [back, front])) }
                    best = min(best, ruler.distance(p, toLine: ring))
                }
            }
            return best
        }
        for (p1, p2) in zip(points, points.dropFirst()) {
            for ring in polygon {
                for (q1, q2) in closedEdges(ring) {
                    if Planar.segmentsCross(p1, p2, q1, q2) { return 0 }
                    best = min(best, ruler.distance(segment: p1, p2, q1, q2))
                }
            }
        }
        return best
    }

    private static func polygonToPolygon(_ a: [[TilePoint]], _ b: [[TilePoint]], _ ruler: CheapRuler) -> Double {
        func intersects(_ p: [[TilePoint]], _ q: [[TilePoint]]) -> Bool {
            p.joined().contains { Planar.pointInPolygon($0, q, onBoundary: true) }
        }
        if intersects(a, b) || intersects(b, a) { return 0 }
        var best = Double.infinity
        for ringA in a {
            for (p1, p2) in closedEdges(ringA) {
                for ringB in b {
                    for (q1, q2) in closedEdges(ringB) {
                        if Planar.segmentsCross(p1, p2, q1, q2) { return 0 }
                        best = min(best, ruler.distance(segment: p1, p2, q1, q2))
                    }
                }
            }
        }
        return best
    }

    /// Every edge of a ring including last → first.
    private static func closedEdges(_ ring: [TilePoint]) -> [(TilePoint, TilePoint)] {
        guard let last = ring.last else { return [] }
        return Array(zip([last] + ring.dropLast(), ring))
    }

    /// Rings grouped into polygons: a ring wound as the first starts a polygon, the others are
    /// its holes; rings of zero area are dropped (MVT §4.3.4.4).
    static func classifyRings(_ rings: [[TilePoint]]) -> [[[TilePoint]]] {
        if rings.count <= 1 { return [rings] }
        var polygons: [[[TilePoint]]] = []
        var clockwise: Bool?
        for ring in rings {
            var area = 0.0
            for (a, b) in closedEdges(ring) { area += (a.x - b.x) * (b.y + a.y) }
            if area == 0 { continue }
            if clockwise == nil { clockwise = area < 0 }
            if clockwise == (area < 0) { polygons.append([ring]) } else if !polygons.isEmpty { polygons[polygons.count - 1].append(ring) }
        }
        return polygons
    }
}
