public import GeoCore

/// A polygonal region: one or more polygons, each an exterior ring and its holes (a GeoJSON
/// Polygon or MultiPolygon, RFC 7946 §3.1.6, or an Osmosis `.poly` file), in either winding.
///
/// Geometry is worked in the fast flat frame (``LocalFrame``) around the centre of the region's
/// bounds: containment by the even–odd rule (so winding does not matter and holes need no
/// orientation), distances to the boundary in metres. The frame keeps distances within 0.2 % up
/// to 20 km from the centre; regions larger than that still decide containment right away from
/// the boundary, but their boundary distances (and so probabilities near the boundary) are
/// only as good as the frame there.
///
/// Each edge runs the shorter way round between its positions, across the antimeridian when
/// that is shorter (so a region may straddle ±180°). A ring that this reading cannot hold is
/// refused with the rule: one with a position on a pole, an edge whose ends are 180° of
/// longitude apart, or edges adding up to a full turn round a pole; −180° and 180° are one
/// meridian, so a ring along both has zero area. The plain-degree world box
/// `[-180, -90] … [180, 90]` is such a ring; a region covering the whole Earth is a circle of
/// a radius past any distance on it (40,000 km).
public struct PolygonRegion: Hashable, Sendable {
    /// The polygons: each the exterior ring first, then its holes; every ring closed (first ==
    /// last), at least four positions, as given.
    public let polygons: [[[Coordinate]]]
    /// The frame the edges are in.
    let frame: LocalFrame
    /// Every ring's edges, in the frame (metres).
    let edges: [PolygonEdge]
    /// The bounds of the edges in the frame, metres.
    let minEast: Double, maxEast: Double, minNorth: Double, maxNorth: Double
    /// The bounds in degrees (south, west, north, east), for the spatial index.
    let south: Double, west: Double, north: Double, east: Double

    /// Validates and prepares `polygons`.
    /// - Throws: `MonitoringError.invalidPolygon` naming the polygon and ring at fault: a ring
    ///   that is open or has under four positions, a ring the shorter-way reading cannot hold
    ///   (through or round a pole, an edge 180° of longitude long), a ring
    ///   of zero area, edges that cross or touch (within one ring or between rings), a hole
    ///   outside its exterior.
    public init(polygons: [[[Coordinate]]]) throws(MonitoringError) {
        guard !polygons.isEmpty else { throw MonitoringError(.invalidPolygon, "no polygon") }
        let all = polygons.flatMap { $0.flatMap { $0 } }
        guard !all.isEmpty else { throw MonitoringError(.invalidPolygon, "no positions") }
        var south = 90.0, north = -90.0
        for c in all { south = min(south, c.latitude); north = max(north, c.latitude) }
        // The centre longitude from the first position's meridian, so a region across the
        // antimeridian is centred on it, not on the far side of the globe.
        let lon0 = all[0].longitude
        var lonLow = 0.0, lonHigh = 0.0
        for c in all {
            var d = c.longitude - lon0
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            lonLow = min(lonLow, d); lonHigh = max(lonHigh, d)
        }
        let centre = Coordinate(uncheckedLatitude: (south + north) / 2,
                                longitude: Coordinate.normalizedLongitude(lon0 + (lonLow + lonHigh) / 2))
        let frame = LocalFrame(origin: centre)
        var edges: [PolygonEdge] = []
        for (p, polygon) in polygons.enumerated() {
            guard !polygon.isEmpty else { throw MonitoringError(.invalidPolygon, "polygon \(p) has no ring") }
            for (r, ring) in polygon.enumerated() {
                let place = "polygon \(p), ring \(r)"
                guard ring.count >= 4, ring.first == ring.last else {
                    throw MonitoringError(.invalidPolygon, "\(place): a ring needs four or more positions and must be closed (first = last)")
                }
                try Self.checkShorterWayRound(ring, place)
                var points: [(Double, Double)] = []
                for c in ring {
                    let q = frame.point(for: c)
                    if let last = points.last, last.0 == q.east, last.1 == q.north { continue } // repeated position
                    points.append((q.east, q.north))
                }
                var twiceArea = 0.0
                for i in 0..<(points.count - 1) {
                    twiceArea += points[i].0 * points[i + 1].1 - points[i + 1].0 * points[i].1
                    edges.append(PolygonEdge(ax: points[i].0, ay: points[i].1, bx: points[i + 1].0, by: points[i + 1].1,
                                             polygon: p, ring: r, index: i, ringEdges: points.count - 1))
                }
                guard points.count >= 4, abs(twiceArea) > 1e-6 else {
                    throw MonitoringError(.invalidPolygon, "\(place): the ring has zero area (\(Self.rule))")
                }
            }
        }
        if let (a, b) = PolygonEdge.firstCrossing(edges) {
            throw MonitoringError(.invalidPolygon, "polygon \(a.polygon), ring \(a.ring), edge \(a.index) crosses polygon \(b.polygon), ring \(b.ring), edge \(b.index): self-intersecting")
        }
        self.polygons = polygons
        self.frame = frame
        self.edges = edges
        minEast = edges.map { min($0.ax, $0.bx) }.min()!
        maxEast = edges.map { max($0.ax, $0.bx) }.max()!
        minNorth = edges.map { min($0.ay, $0.by) }.min()!
        maxNorth = edges.map { max($0.ay, $0.by) }.max()!
        self.south = south
        self.north = north
        west = Coordinate.normalizedLongitude(lon0 + lonLow)
        east = Coordinate.normalizedLongitude(lon0 + lonHigh)
        // Each hole lies inside its own exterior (rings do not cross, so one vertex decides).
        for (p, polygon) in polygons.enumerated() {
            for (r, hole) in polygon.enumerated().dropFirst() {
                let q = frame.point(for: hole[0])
                guard Self.evenOdd(q.east, q.north, edges.lazy.filter { $0.polygon == p && $0.ring == 0 }) else {
                    throw MonitoringError(.invalidPolygon, "polygon \(p), ring \(r): a hole outside its exterior ring")
                }
            }
        }
    }

    /// The type's rule for rings, as errors state it.
    private static let rule = "edges run the shorter way round (−180° and 180° are one meridian), so a ring cannot reach a pole,"
        + " go round one or span 180° of longitude; for the whole Earth, use a Point with a radius of 40,000,000 m"

    /// Throws unless every edge of `ring` has a shorter way round and the ring neither
    /// touches nor goes round a pole (the type's rule).
    private static func checkShorterWayRound(_ ring: [Coordinate], _ place: String) throws(MonitoringError) {
        var turn = 0.0
        for k in 0..<(ring.count - 1) {
            let a = ring[k], b = ring[k + 1]
            guard abs(a.latitude) < 90 else {
                throw MonitoringError(.invalidPolygon, "\(place): position \(k) lies on a pole (latitude \(a.latitude)): \(rule)")
            }
            var d = b.longitude - a.longitude
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            guard abs(d) < 180 else {
                throw MonitoringError(.invalidPolygon, "\(place), edge \(k): its ends are 180° of longitude apart: \(rule)")
            }
            turn += d
        }
        guard abs(turn) < 180 else {
            throw MonitoringError(.invalidPolygon, "\(place) goes round a pole (its edges add up to 360° of longitude): \(rule)")
        }
    }

    /// The smaller side of the region's bounds, metres: how large it is against a fix's error.
    public var minimumExtent: Double { min(maxEast - minEast, maxNorth - minNorth) }

    /// Whether the point (metres east and north in ``frame``) is inside.
    /// - Complexity: O(edges).
    func contains(east x: Double, north y: Double) -> Bool {
        guard x >= minEast, x <= maxEast, y >= minNorth, y <= maxNorth else { return false }
        return Self.evenOdd(x, y, edges)
    }

    /// Whether `coordinate` is inside.
    public func contains(_ coordinate: Coordinate) -> Bool {
        let q = frame.point(for: coordinate)
        return contains(east: q.east, north: q.north)
    }

    /// The distance to the nearest boundary edge, metres: positive inside, negative outside.
    /// - Complexity: O(edges).
    func signedDistance(east x: Double, north y: Double) -> Double {
        var best = Double.infinity
        for e in edges { best = min(best, e.squaredDistance(x, y)) }
        let d = best.squareRoot()
        return contains(east: x, north: y) ? d : -d
    }

    /// The distance from `coordinate` to the boundary, positive inside, negative outside.
    public func signedDistance(to coordinate: Coordinate) -> Distance {
        let q = frame.point(for: coordinate)
        return .meters(signedDistance(east: q.east, north: q.north))
    }

    /// The even–odd rule (W. R. Franklin's crossing test, PNPOLY).
    private static func evenOdd(_ x: Double, _ y: Double, _ edges: some Sequence<PolygonEdge>) -> Bool {
        var inside = false
        for e in edges where (e.ay > y) != (e.by > y) {
            let xCross = e.ax + (y - e.ay) / (e.by - e.ay) * (e.bx - e.ax)
            if x < xCross { inside.toggle() }
        }
        return inside
    }

    public static func == (a: PolygonRegion, b: PolygonRegion) -> Bool { a.polygons == b.polygons }
    public func hash(into hasher: inout Hasher) { hasher.combine(polygons) }
}

/// One edge of a ring in a region's flat frame, metres, and which ring it belongs to.
struct PolygonEdge: Sendable {
    var ax, ay, bx, by: Double
    var polygon: Int, ring: Int, index: Int, ringEdges: Int

    /// The squared distance from (x, y) to the segment, m².
    func squaredDistance(_ x: Double, _ y: Double) -> Double {
        let dx = bx - ax, dy = by - ay
        let length2 = dx * dx + dy * dy
        var t = length2 > 0 ? ((x - ax) * dx + (y - ay) * dy) / length2 : 0
        t = min(max(t, 0), 1)
        let ex = ax + t * dx - x, ey = ay + t * dy - y
        return ex * ex + ey * ey
    }

    /// Whether the two edges share a point, other than the vertex two consecutive edges of one
    /// ring share.
    func touches(_ o: PolygonEdge) -> Bool {
        if polygon == o.polygon, ring == o.ring {
            let gap = abs(index - o.index)
            if gap == 1 || gap == ringEdges - 1 {
                // Neighbours: they may only share their common vertex, so they must not overlap
                // collinearly (a spike that doubles back).
                let (sx, sy) = gap == 1 ? (index < o.index ? (bx, by) : (ax, ay)) : (index == 0 ? (ax, ay) : (bx, by))
                let (p, q) = (self.far(from: sx, sy), o.far(from: sx, sy))
                let cross = (p.0 - sx) * (q.1 - sy) - (p.1 - sy) * (q.0 - sx)
                let dot = (p.0 - sx) * (q.0 - sx) + (p.1 - sy) * (q.1 - sy)
                return cross == 0 && dot > 0
            }
        }
        let d1 = Self.orient(o.ax, o.ay, o.bx, o.by, ax, ay), d2 = Self.orient(o.ax, o.ay, o.bx, o.by, bx, by)
        let d3 = Self.orient(ax, ay, bx, by, o.ax, o.ay), d4 = Self.orient(ax, ay, bx, by, o.bx, o.by)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        func on(_ px: Double, _ py: Double, _ e: PolygonEdge) -> Bool {
            min(e.ax, e.bx) <= px && px <= max(e.ax, e.bx) && min(e.ay, e.by) <= py && py <= max(e.ay, e.by)
        }
        return (d1 == 0 && on(ax, ay, o)) || (d2 == 0 && on(bx, by, o)) || (d3 == 0 && on(o.ax, o.ay, self)) || (d4 == 0 && on(o.bx, o.by, self))
    }

    private func far(from x: Double, _ y: Double) -> (Double, Double) { (ax == x && ay == y) ? (bx, by) : (ax, ay) }

    private static func orient(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, _ cx: Double, _ cy: Double) -> Double {
        (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
    }

    /// The first pair of edges that touch, by a sweep over the edges sorted by their west end.
    /// - Complexity: O(n log n + pairs whose east–west extents overlap).
    static func firstCrossing(_ edges: [PolygonEdge]) -> (PolygonEdge, PolygonEdge)? {
        let sorted = edges.sorted { min($0.ax, $0.bx) < min($1.ax, $1.bx) }
        for i in sorted.indices {
            let e = sorted[i]
            let eastEnd = max(e.ax, e.bx)
            let (low, high) = (min(e.ay, e.by), max(e.ay, e.by))
            var j = i + 1
            while j < sorted.count, min(sorted[j].ax, sorted[j].bx) <= eastEnd {
                let o = sorted[j]
                if max(o.ay, o.by) >= low, min(o.ay, o.by) <= high, e.touches(o) { return (e, o) }
                j += 1
            }
        }
        return nil
    }
}
