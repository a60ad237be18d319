import Platform

/// How a stroked line looks (the SVG / PostScript stroke properties).
public struct StrokeStyle: Sendable, Hashable {
    /// How two segments meet at a corner.
    public enum Join: Sendable, Hashable { case miter, round, bevel }
    /// How an open line ends.
    public enum Cap: Sendable, Hashable { case butt, round, square }

    /// Line width, pixels. Below 1 the line is drawn 1 pixel wide with its opacity scaled by
    /// the width (a hairline), which keeps thin lines visible without aliasing.
    public var width: Double
    public var join: Join
    public var cap: Cap
    /// A miter longer than `miterLimit × width` becomes a bevel (SVG's default is 4).
    public var miterLimit: Double
    /// Alternating on / off lengths in pixels, starting with "on"; empty for a solid line.
    public var dashes: [Double]
    /// How far into the dash pattern the line starts, pixels.
    public var dashPhase: Double

    public init(width: Double, join: Join = .round, cap: Cap = .round, miterLimit: Double = 4, dashes: [Double] = [], dashPhase: Double = 0) {
        self.width = width
        self.join = join
        self.cap = cap
        self.miterLimit = miterLimit
        self.dashes = dashes
        self.dashPhase = dashPhase
    }
}

/// Turns lines into the outlines that cover them, to be filled with the non-zero rule.
///
/// Each open line becomes one closed outline: the left offset forward, the end cap, the left
/// offset of the reversed line, the start cap (AGG's `vcgen_stroke` shape). Outer corners get
/// the join; inner corners go through the vertex, so the small loop they make winds the same
/// way as the body and non-zero filling keeps it covered. A closed line becomes two rings
/// wound oppositely.
enum Stroker {
    /// Outline contours of `contours` stroked with `style` (dashes applied first).
    /// - Parameters:
    ///   - tolerance: the largest distance, pixels, between a round join or cap and its polygon.
    ///   - clip: the part of the plane that will be drawn, if known: lines are cut (after
    ///     dashing, so the pattern keeps its phase) to this rectangle grown by more than a join
    ///     or cap reaches, so a long road crossing a tile is outlined only across the tile.
    static func outline(of contours: [Path.Contour], style: StrokeStyle, tolerance: Double = 0.2, clip: Rectangle? = nil) -> [Path.Contour] {
        let r = style.width / 2
        guard r > 0, r.isFinite else { return [] }
        var lines: [Path.Contour] = []
        for c in contours {
            let cleaned = deduplicated(c.points)
            if style.dashes.isEmpty {
                lines.append(Path.Contour(points: cleaned, isClosed: c.isClosed))
            } else {
                lines += dashed(cleaned, closed: c.isClosed, dashes: style.dashes, phase: style.dashPhase)
            }
        }
        if let clip {
            // A miter reaches miterLimit × r from its vertex, a square cap r√2, a round one r.
            let m = r * max(style.miterLimit, 2) + 1
            let grown = Rectangle(minX: clip.minX - m, minY: clip.minY - m, maxX: clip.maxX + m, maxY: clip.maxY + m)
            lines = lines.flatMap { clipped($0.points, closed: $0.isClosed, to: grown) }
        }
        var out: [Path.Contour] = []
        let step = r > tolerance ? 2 * acos(1 - tolerance / r) : .pi / 2
        for line in lines {
            let p = line.points
            if p.count == 1 {
                // A zero-length line shows only its caps: a dot or a square.
                switch style.cap {
                case .butt: break
                case .round:
                    var dot: [Point] = []
                    arc(center: p[0], from: Point(x: 1, y: 0), sweep: 2 * .pi, radius: r, step: step, into: &dot)
                    out.append(Path.Contour(points: dot, isClosed: true))
                case .square: out.append(Path.Contour(points: [p[0] + Point(x: -r, y: -r), p[0] + Point(x: r, y: -r), p[0] + Point(x: r, y: r), p[0] + Point(x: -r, y: r)], isClosed: true))
                }
                continue
            }
            if line.isClosed && p.count > 2 {
                var ring: [Point] = []
                side(p, closed: true, r: r, style: style, step: step, into: &ring)
                out.append(Path.Contour(points: ring, isClosed: true))
                ring = []
                side(p.reversed(), closed: true, r: r, style: style, step: step, into: &ring)
                out.append(Path.Contour(points: ring, isClosed: true))
            } else {
                var ring: [Point] = []
                ring.reserveCapacity(4 * p.count + 16)
                side(p, closed: false, r: r, style: style, step: step, into: &ring)
                cap(at: p[p.count - 1], direction: unit(p[p.count - 1] - p[p.count - 2]), r: r, cap: style.cap, step: step, into: &ring)
                let back = Array(p.reversed())
                side(back, closed: false, r: r, style: style, step: step, into: &ring)
                cap(at: back[back.count - 1], direction: unit(back[back.count - 1] - back[back.count - 2]), r: r, cap: style.cap, step: step, into: &ring)
                out.append(Path.Contour(points: ring, isClosed: true))
            }
        }
        return out
    }

    /// Appends the offset of `p` by `r` along the left normal, with joins at its corners.
    private static func side(_ p: [Point], closed: Bool, r: Double, style: StrokeStyle, step: Double, into out: inout [Point]) {
        let n = p.count
        out.reserveCapacity(out.count + n * 2)
        func direction(_ i: Int) -> Point { unit(p[(i + 1) % n] - p[i]) }
        let cosStep = cos(step)
        if closed {
            for i in 0..<n { join(at: p[i], d0: direction((i + n - 1) % n), d1: direction(i), r: r, style: style, step: step, cosStep: cosStep, into: &out) }
        } else {
            out.append(p[0] + normal(direction(0)) * r)
            for i in 1..<(n - 1) { join(at: p[i], d0: direction(i - 1), d1: direction(i), r: r, style: style, step: step, cosStep: cosStep, into: &out) }
            out.append(p[n - 1] + normal(direction(n - 2)) * r)
        }
    }

    private static func join(at v: Point, d0: Point, d1: Point, r: Double, style: StrokeStyle, step: Double, cosStep: Double, into out: inout [Point]) {
        let n0 = normal(d0), n1 = normal(d1)
        let a = v + n0 * r, b = v + n1 * r
        let turn = d1.x * n0.x + d1.y * n0.y
        if abs(turn) < 1e-9 && d0.x * d1.x + d0.y * d1.y > 0 {
            out.append(a)
            return
        }
        if turn > 0 {
            // Inner corner: through the vertex.
            out.append(a); out.append(v); out.append(b)
            return
        }
        switch style.join {
        case .bevel:
            out.append(a); out.append(b)
        case .miter:
            let bisector = n0 + n1
            let len = bisector.length
            // Miter length / width = 1 / sin(θ/2) = 2 / |n0 + n1| (θ the angle between segments).
            if len > 1e-9, 2 / len <= style.miterLimit {
                out.append(a); out.append(v + bisector * (2 * r / (len * len))); out.append(b)
            } else {
                out.append(a); out.append(b)
            }
        case .round:
            // A turn smaller than one arc step needs no arc: its chord is within tolerance.
            if n0.x * n1.x + n0.y * n1.y >= cosStep {
                out.append(a); out.append(b)
                return
            }
            // An outer corner turns clockwise (turn = n0 × n1 < 0): from n0 to n1 the short
            // way; a reversal (turn 0) goes round through d0, as a cap does.
            let sweep = turn < 0 ? atan2(turn, n0.x * n1.x + n0.y * n1.y) : -.pi
            arc(center: v, from: n0, sweep: sweep, radius: r, step: step, into: &out)
        }
    }

    /// Appends the cap at an end `e` reached going in `direction`, from the left offset to the
    /// right (the offsets themselves are the sides' ends).
    private static func cap(at e: Point, direction d: Point, r: Double, cap: StrokeStyle.Cap, step: Double, into out: inout [Point]) {
        let n = normal(d)
        switch cap {
        case .butt: return
        case .square: out.append(e + n * r + d * r); out.append(e - n * r + d * r)
        case .round:
            // From +n through d to −n: half a turn clockwise.
            arc(center: e, from: n, sweep: -.pi, radius: r, step: step, includingEnds: false, into: &out)
        }
    }

    /// Appends points on a circular arc from the unit direction `u` (from `center`) turning
    /// `sweep` radians (positive from +x toward +y), equal steps no longer than `step`. Each
    /// point is the previous one's direction turned by one step (a rotation matrix: two trig
    /// calls per arc, not two per point).
    private static func arc(center: Point, from u: Point, sweep: Double, radius r: Double, step: Double, includingEnds: Bool = true, into out: inout [Point]) {
        let count = max(1, Int((abs(sweep) / step).rounded(.up)))
        let turn = sweep / Double(count)
        let c = cos(turn), s = sin(turn)
        var v = u
        for i in 0...count {
            if includingEnds || (i > 0 && i < count) { out.append(Point(x: center.x + r * v.x, y: center.y + r * v.y)) }
            v = Point(x: v.x * c - v.y * s, y: v.x * s + v.y * c)
        }
    }

    /// The outline of the non-zero fill of closed `contours` grown by `r` pixels with round
    /// corners (a halo under a glyph): of each contour only its offset on the side away from
    /// the fill, where a stroke would draw both sides. The fill is on the same side of every
    /// contour (outer rings and holes wind oppositely), found from the sign of the total area.
    /// Half the edges of the stroke, and the same area outside the fill.
    static func grown(_ contours: [Path.Contour], by r: Double, tolerance: Double = 0.2) -> [Path.Contour] {
        guard r > 0, r.isFinite else { return contours }
        let rings = contours.map { deduplicated($0.points) }.filter { $0.count > 2 }
        // Shoelace sum; y down: positive when the fill lies left of the direction of travel.
        var area = 0.0
        for p in rings { for i in p.indices { let q = p[(i + 1) % p.count]; area += p[i].x * q.y - q.x * p[i].y } }
        let style = StrokeStyle(width: 2 * r, join: .round)
        let step = r > tolerance ? 2 * acos(1 - tolerance / r) : .pi / 2
        return rings.map { p in
            var ring: [Point] = []
            side(area > 0 ? p.reversed() : p, closed: true, r: r, style: style, step: step, into: &ring)
            return Path.Contour(points: ring, isClosed: true)
        }
    }

    /// An axis-aligned rectangle of the image plane, pixels.
    struct Rectangle {
        var minX, minY, maxX, maxY: Double
        func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
    }

    /// The pieces of a line inside `box`: the line itself when wholly inside, else open pieces
    /// cut where it crosses the box (a closed line is walked from a vertex outside, so no
    /// piece ends at a vertex inside). Each segment is cut by `LineClipping`.
    static func clipped(_ points: [Point], closed: Bool, to box: Rectangle) -> [Path.Contour] {
        guard let outside = points.firstIndex(where: { !box.contains($0) }) else { return [Path.Contour(points: points, isClosed: closed)] }
        var path = points
        if closed {
            path = Array(points[outside...] + points[..<outside])
            path.append(path[0])
        }
        var pieces: [Path.Contour] = []
        var current: [Point] = []
        func finish() {
            if current.count > 1 { pieces.append(Path.Contour(points: current, isClosed: false)) }
            current = []
        }
        for i in path.indices.dropLast() {
            let a = path[i], b = path[i + 1]
            guard let (t0, t1) = LineClipping.visibleSpan(ax: a.x, ay: a.y, bx: b.x, by: b.y, minX: box.minX, minY: box.minY,
                                                         maxX: box.maxX, maxY: box.maxY) else { finish(); continue }
            if t0 > 0 || current.isEmpty {
                finish()
                current = [t0 > 0 ? a.interpolated(to: b, t0) : a]
            }
            if t1 < 1 {
                current.append(a.interpolated(to: b, t1))
                finish()
            } else {
                current.append(b)
            }
        }
        finish()
        return pieces
    }

    private static func unit(_ v: Point) -> Point {
        let l = v.length
        return l > 0 ? v * (1 / l) : Point(x: 1, y: 0)
    }

    private static func normal(_ d: Point) -> Point { Point(x: -d.y, y: d.x) }

    /// `points` without consecutive repeats (they have no direction); a closed line also
    /// without a last point equal to its first.
    private static func deduplicated(_ points: [Point]) -> [Point] {
        var out: [Point] = []
        out.reserveCapacity(points.count)
        for p in points where p.x.isFinite && p.y.isFinite {
            if let last = out.last, (p - last).length < 1e-6 { continue }
            out.append(p)
        }
        if out.count > 2, (out[0] - out[out.count - 1]).length < 1e-6 { out.removeLast() }
        return out
    }

    /// The "on" pieces of a line under a dash pattern.
    static func dashed(_ points: [Point], closed: Bool, dashes: [Double], phase: Double) -> [Path.Contour] {
        let pattern = dashes.map { max(0, $0.isFinite ? $0 : 0) }
        let period = pattern.reduce(0, +)
        var length = 0.0
        for i in points.indices.dropFirst() { length += (points[i] - points[i - 1]).length }
        // A pattern so fine that the line would split into more than 100 000 dashes is drawn
        // solid: at that density it looks solid anyway, and the work stays bounded.
        guard period > 0, points.count > 1, length / period * Double(pattern.count) < 100_000 else {
            return [Path.Contour(points: points, isClosed: closed)]
        }
        var path = points
        if closed { path.append(points[0]) }
        // Where in the pattern the line starts.
        var index = 0
        var left = pattern[0]
        var skip = phase.truncatingRemainder(dividingBy: period)
        if skip < 0 { skip += period }
        while skip > 0 {
            if skip >= left { skip -= left; index = (index + 1) % pattern.count; left = pattern[index] } else { left -= skip; skip = 0 }
        }
        var pieces: [Path.Contour] = []
        var current: [Point] = index % 2 == 0 ? [path[0]] : []
        for i in 0..<(path.count - 1) {
            var a = path[i]
            let b = path[i + 1]
            var segment = (b - a).length
            while segment > 0 {
                if left > segment {
                    left -= segment
                    if index % 2 == 0 { current.append(b) }
                    segment = 0
                } else {
                    let m = a.interpolated(to: b, left / segment)
                    if index % 2 == 0 {
                        current.append(m)
                        pieces.append(Path.Contour(points: current, isClosed: false))
                        current = []
                    } else {
                        current = [m]
                    }
                    segment -= left
                    a = m
                    index = (index + 1) % pattern.count
                    left = pattern[index]
                    // A zero-length gap or dash: the loop continues at once.
                }
            }
        }
        if index % 2 == 0, current.count > 1 { pieces.append(Path.Contour(points: current, isClosed: false)) }
        return pieces.filter { $0.points.count > 1 }
    }
}
