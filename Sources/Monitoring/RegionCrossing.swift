import GeoCore

/// Where a straight path between two fixes runs through a region: the fractions of the path
/// (0 at the first fix, 1 at the second) where it enters and leaves, and how deep inside it
/// gets, metres. For ``FenceEngine``'s inferred crossings.
struct RegionCrossing {
    var enter: Double
    var exit: Double
    var depth: Double

    /// The deepest passage of the path from `a` to `b` through the region; nil when it stays
    /// outside (or for a beacon condition). Straight in the region's flat frame.
    static func deepest(_ condition: MonitorCondition, from a: Coordinate, to b: Coordinate) -> RegionCrossing? {
        switch condition {
        case .circle(let c):
            let frame = LocalFrame(origin: c.center)
            let p = frame.point(for: a), q = frame.point(for: b)
            let dx = q.east - p.east, dy = q.north - p.north
            let length2 = dx * dx + dy * dy
            guard length2 > 0 else { return nil }
            let t = min(max(-(p.east * dx + p.north * dy) / length2, 0), 1)
            let cx = p.east + t * dx, cy = p.north + t * dy
            let closest2 = cx * cx + cy * cy
            let r = c.radius.meters
            guard closest2 < r * r else { return nil }
            let half = ((r * r - closest2) / length2).squareRoot()
            return RegionCrossing(enter: max(t - half, 0), exit: min(t + half, 1), depth: r - closest2.squareRoot())
        case .polygon(let region):
            let p = region.frame.point(for: a), q = region.frame.point(for: b)
            let dx = q.east - p.east, dy = q.north - p.north
            var cuts: [Double] = [0, 1]
            for e in region.edges {
                let ex = e.bx - e.ax, ey = e.by - e.ay
                let denominator = dx * ey - dy * ex
                guard denominator != 0 else { continue }
                let t = ((e.ax - p.east) * ey - (e.ay - p.north) * ex) / denominator
                let u = ((e.ax - p.east) * dy - (e.ay - p.north) * dx) / denominator
                if t > 0, t < 1, u >= 0, u <= 1 { cuts.append(t) }
            }
            cuts.sort()
            var best: RegionCrossing?
            for (t0, t1) in zip(cuts, cuts.dropFirst()) where t1 > t0 {
                var depth = -Double.infinity
                for k in 1...7 {
                    let t = t0 + (t1 - t0) * Double(k) / 8
                    depth = max(depth, region.signedDistance(east: p.east + t * dx, north: p.north + t * dy))
                }
                if depth > 0, depth > best?.depth ?? 0 { best = RegionCrossing(enter: t0, exit: t1, depth: depth) }
            }
            return best
        case .beacon:
            return nil
        }
    }
}
