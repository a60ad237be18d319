import MapRenderer

/// One vertex of a line's triangle mesh as MapLibre GL's line bucket builds it: the line point
/// (device pixels), its extrusion (a unit-ish vector quantized to 1/63 as the GL attribute
/// stores it), whether it belongs to a round cap or join, which side it is on, its cap
/// direction (−1, 0, 1) and how far along the line it lies (device pixels).
struct LineVertex {
    var x: Double, y: Double
    var ex: Double, ey: Double
    var round: Bool
    var up: Bool
    var direction: Double
    var distance: Double
}

/// A line's mesh: vertices, and triangles as index triples into them.
struct LineMesh {
    var vertices: [LineVertex] = []
    var triangles: [Int32] = []
    private var e1 = -1, e2 = -1
    private var distance = 0.0
    /// Whether the point being added is left out (``add(_:polygon:join:cap:miterLimit:roundLimit:sharpCornerOffset:within:)``).
    private var skipping = false
    /// Device pixels per unit of the source tile (8192 units a side), as MapLibre measures
    /// distance along a line: in whole steps of 2 units, restarting past 16384 units.
    var tileUnit = 0.0

    /// Empties the mesh, keeping its arrays' storage for the lines of another batch.
    mutating func removeAll() {
        vertices.removeAll(keepingCapacity: true)
        triangles.removeAll(keepingCapacity: true)
        e1 = -1; e2 = -1
        distance = 0
    }

    /// Joins and caps as the style names them (spec: `line-join`, `line-cap`).
    enum Join { case miter, bevel, round }
    enum Cap { case butt, round, square }

    /// `cos(75° / 2)`: joins sharper than 75° get extra vertices before and after them.
    private static let cosHalfSharpCorner = 0.7933533402912352
    /// Degrees of turn per triangle of a "fake round" join.
    private static let degreesPerTriangle = 20.0

    /// Adds one line (a polygon ring when `polygon`, its last point repeating its first), in
    /// device pixels, following MapLibre GL's `LineBucket.addLine`: miter joins longer than
    /// `miterLimit` widths become bevels, round joins shorter than `roundLimit` become miters,
    /// joins sharper than 75° are moved `sharpCornerOffset` pixels back along each side.
    /// A line whose last point is its first is closed as a ring is — joined where it starts,
    /// without caps, its distance starting at its last segment's length — as GL JS drew the
    /// render suite's reference images (2017, `closed = firstVertex.equals(lastVertex)`;
    /// MapLibre now closes polygon rings only).
    ///
    /// With `bounds` (device pixels), a point both of whose segments lie wholly beyond them
    /// (their ends' bounding box does not meet them) adds no vertices, and the triangles that
    /// would join it to its neighbours' are left out: each lies within its segment's ends'
    /// bounding box grown by how far an extrusion reaches, so with `bounds` the region the
    /// shading is clipped to grown by that reach, they would draw nothing. Distances along
    /// the line are kept as without: the triangles drawn are the same.
    mutating func add(_ points: [Point], polygon: Bool, join: Join, cap: Cap, miterLimit: Double, roundLimit: Double, sharpCornerOffset: Double,
                      within bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = nil) {
        defer { skipping = false }
        // Whether the segment from p to q lies wholly beyond `bounds` (a missing segment does).
        func beyond(_ p: Point?, _ q: Point?) -> Bool {
            guard let p, let q, let bounds else { return bounds != nil }
            return max(p.x, q.x) < bounds.minX || min(p.x, q.x) > bounds.maxX || max(p.y, q.y) < bounds.minY || min(p.y, q.y) > bounds.maxY
        }
        distance = 0
        var len = points.count
        while len >= 2 && points[len - 1] == points[len - 2] { len -= 1 }
        var first = 0
        while first < len - 1 && points[first] == points[first + 1] { first += 1 }
        let closed = polygon || (len >= 2 && points[first] == points[len - 1])
        guard len >= (closed ? 3 : 2) else { return }
        let miterLimit = join == .bevel ? 1.05 : miterLimit
        e1 = -1; e2 = -1
        var current: Point? = nil, previous: Point? = nil
        var prevNormal: Point? = nil, nextNormal: Point? = nil
        if closed {
            current = points[len - 2]
            nextNormal = Self.perp((points[first] - points[len - 2]).unit)
        }
        for i in first..<len {
            let next: Point? = i == len - 1 ? (closed ? points[first + 1] : nil) : points[i + 1]
            if let next, points[i] == next { continue }
            if let nextNormal { prevNormal = nextNormal }
            if let current { previous = current }
            var cur = points[i]
            current = cur
            skipping = beyond(previous, cur) && beyond(cur, next)
            nextNormal = next.map { Self.perp(($0 - cur).unit) } ?? prevNormal
            let pn = prevNormal ?? nextNormal!, nn = nextNormal!
            prevNormal = pn
            let (joinNormal, cosHalfAngle, miterLength) = Self.join(pn, nn)
            let cosAngle = pn.x * nn.x + pn.y * nn.y
            let approxAngle = 2 * (max(0, 2 - 2 * cosHalfAngle)).squareRoot()
            let sharp = cosHalfAngle < Self.cosHalfSharpCorner && previous != nil && next != nil
            let turnsLeft = pn.x * nn.y - pn.y * nn.x > 0
            if sharp && i > first, let prev = previous {
                let l = (cur - prev).length
                if l > 2 * sharpCornerOffset {
                    let moved = cur - (cur - prev) * (sharpCornerOffset / l)
                    distance += (moved - prev).length
                    addCurrent(moved, pn, 0, 0)
                    previous = moved
                }
            }
            enum Kind { case miter, bevel, flipBevel, fakeRound, round, butt, square }
            var kind: Kind
            if previous != nil && next != nil {
                switch join {
                case .miter: kind = .miter
                case .bevel: kind = .bevel
                case .round: kind = miterLength < roundLimit ? .miter : miterLength <= 2 ? .fakeRound : .round
                }
            } else if closed {
                kind = .butt
            } else {
                switch cap {
                case .butt: kind = .butt
                case .round: kind = .round
                case .square: kind = .square
                }
            }
            if kind == .miter && miterLength > miterLimit { kind = .bevel }
            if kind == .bevel {
                if miterLength > 2 { kind = .flipBevel }
                if miterLength < miterLimit { kind = .miter }
            }
            if let prev = previous { distance += (cur - prev).length }
            switch kind {
            case .miter:
                addCurrent(cur, joinNormal * miterLength, 0, 0)
            case .flipBevel:
                var n: Point
                if miterLength > 100 {
                    n = nn * -1
                } else {
                    let bevelLength = miterLength * (pn + nn).length / (pn - nn).length
                    n = Self.perp(joinNormal) * (bevelLength * (turnsLeft ? -1 : 1))
                }
                addCurrent(cur, n, 0, 0)
                n = n * -1
                addCurrent(cur, n, 0, 0)
            case .bevel, .fakeRound:
                let offset = -(max(0, miterLength * miterLength - 1)).squareRoot()
                let offsetA = turnsLeft ? offset : 0, offsetB = turnsLeft ? 0 : offset
                if previous != nil { addCurrent(cur, pn, offsetA, offsetB) }
                if kind == .fakeRound {
                    let n = Int((approxAngle * 180 / .pi / Self.degreesPerTriangle).rounded())
                    if n > 1 {
                        for m in 1..<n {
                            var t = Double(m) / Double(n)
                            if t != 0.5 {
                                let t2 = t - 0.5
                                let a = 1.0904 + cosAngle * (-3.2452 + cosAngle * (3.55645 - cosAngle * 1.43519))
                                let b = 0.848013 + cosAngle * (-1.06021 + cosAngle * 0.215638)
                                t = t + t * t2 * (t - 1) * (a * t2 * t2 + b)
                            }
                            let extrude = ((nn - pn) * t + pn).unit * (turnsLeft ? -1 : 1)
                            addHalf(cur, extrude.x, extrude.y, round: false, up: turnsLeft, direction: 0)
                        }
                    }
                }
                if next != nil { addCurrent(cur, nn, -offsetA, -offsetB) }
            case .butt:
                addCurrent(cur, joinNormal, 0, 0)
            case .square:
                let o: Double = previous != nil ? 1 : -1
                addCurrent(cur, joinNormal, o, o)
            case .round:
                if previous != nil {
                    addCurrent(cur, pn, 0, 0)
                    addCurrent(cur, pn, 1, 1, round: true)
                }
                if next != nil {
                    addCurrent(cur, nn, -1, -1, round: true)
                    addCurrent(cur, nn, 0, 0)
                }
            }
            if sharp && i < len - 1, let next {
                let l = (next - cur).length
                if l > 2 * sharpCornerOffset {
                    let moved = cur + (next - cur) * (sharpCornerOffset / l)
                    distance += (moved - cur).length
                    addCurrent(moved, nn, 0, 0)
                    cur = moved
                    current = moved
                }
            }
        }
    }

    /// `v.rounded()` (halves away from zero) without libm's `round` where |v| < 2⁵²: the whole
    /// part by truncation, then the fraction compared with ½ (a zero keeps `v`'s sign).
    @inline(__always) static func rounded(_ v: Double) -> Double {
        guard abs(v) < Self.exactWhole else { return v.rounded() }
        let whole = Double(Int(v)), fraction = v - whole
        let r = fraction >= 0.5 ? whole + 1 : fraction <= -0.5 ? whole - 1 : whole
        return r == 0 ? Double(signOf: v, magnitudeOf: 0) : r
    }

    /// `v.rounded(.down)` without libm's `floor` where |v| < 2⁵² (a zero keeps `v`'s sign).
    @inline(__always) static func floored(_ v: Double) -> Double {
        guard abs(v) < Self.exactWhole else { return v.rounded(.down) }
        let r = Double(LineShading.floor(v))
        return r == 0 ? Double(signOf: v, magnitudeOf: 0) : r
    }

    /// 2⁵²: every double at least this large is a whole number.
    private static let exactWhole = 4_503_599_627_370_496.0

    /// `perp` of MapLibre's point class: the vector turned a quarter (x, y) → (−y, x).
    static func perp(_ p: Point) -> Point { Point(x: -p.y, y: p.x) }

    /// A join where the line's unit normal turns from `pn` to `nn`: the unit normal halfway
    /// between them (zero where the line turns back), the cosine of half the turn, and the
    /// miter's length in half widths (infinite where the line turns back).
    static func join(_ pn: Point, _ nn: Point) -> (normal: Point, cosHalfAngle: Double, miterLength: Double) {
        var normal = pn + nn
        if normal.x != 0 || normal.y != 0 { normal = normal.unit }
        let cosHalfAngle = normal.x * nn.x + normal.y * nn.y
        return (normal, cosHalfAngle, cosHalfAngle != 0 ? 1 / cosHalfAngle : .infinity)
    }

    /// An extrusion component as the GL attribute keeps it, in steps of 1/63.
    @inline(__always) static func quantized(_ v: Double) -> Double { rounded(63 * v) / 63 }

    private mutating func addCurrent(_ p: Point, _ normal: Point, _ endLeft: Double, _ endRight: Double, round: Bool = false) {
        addHalf(p, normal.x + normal.y * endLeft, normal.y - normal.x * endLeft, round: round, up: false, direction: endLeft)
        addHalf(p, -normal.x + normal.y * endRight, -normal.y - normal.x * endRight, round: round, up: true, direction: -endRight)
        if tileUnit > 0 && distance > 16384 * tileUnit {
            distance = 0
            addCurrent(p, normal, endLeft, endRight, round: round)
        }
    }

    private mutating func addHalf(_ p: Point, _ ex: Double, _ ey: Double, round: Bool, up: Bool, direction: Double) {
        // Left out, the next point's vertices start the strip anew.
        if skipping { e1 = -1; e2 = -1; return }
        // The GL attribute keeps the extrusion in 1/63 steps.
        let qx = Self.quantized(ex), qy = Self.quantized(ey)
        vertices.append(LineVertex(x: p.x, y: p.y, ex: qx, ey: qy, round: round, up: up,
                                   direction: direction == 0 ? 0 : direction < 0 ? -1 : 1,
                                   distance: tileUnit > 0 ? Self.floored(distance / tileUnit / 2) * 2 * tileUnit : distance))
        let e = vertices.count - 1
        // Appended one by one: an array literal here would be allocated per triangle.
        if e1 >= 0 && e2 >= 0 { triangles.append(Int32(e1)); triangles.append(Int32(e2)); triangles.append(Int32(e)) }
        if up { e2 = e } else { e1 = e }
    }
}

extension Point {
    /// The vector scaled to length 1 (zero stays zero).
    var unit: Point {
        let l = length
        return l > 0 ? Point(x: x / l, y: y / l) : self
    }
}
