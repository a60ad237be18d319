/// Douglas–Peucker line simplification (Douglas & Peucker 1973) on planar points, the one
/// implementation behind track simplification (TrackFiltering, metres in a local frame) and
/// per-zoom tile generalisation (MapData, tile units).
public enum DouglasPeucker {
    /// Which of `points` to keep so that no dropped point lies farther than `tolerance` (in the
    /// points' units) from the kept line; the first and last points are always kept, so a closed
    /// ring stays closed. `x` and `y` read a point's plane coordinates.
    /// - Complexity: O(n log n) typical, O(n²) worst case; iterative (no recursion depth limit).
    @inlinable
    public static func kept<Point>(_ points: [Point], tolerance: Double,
                                   x: (Point) -> Double, y: (Point) -> Double) -> [Bool] {
        guard points.count > 2 else { return [Bool](repeating: true, count: points.count) }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        let squared = tolerance * tolerance
        var stack: [(Int, Int)] = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            let ax = x(points[first]), ay = y(points[first])
            let dx = x(points[last]) - ax, dy = y(points[last]) - ay
            let length = dx * dx + dy * dy
            var worst = -1.0, index = first
            for i in (first + 1)..<last {
                let px = x(points[i]) - ax, py = y(points[i]) - ay
                // The squared distance to the segment (to its first point when it has no length).
                let t = length > 0 ? max(0, min(1, (px * dx + py * dy) / length)) : 0
                let qx = t * dx - px, qy = t * dy - py
                let d = qx * qx + qy * qy
                if d > worst { worst = d; index = i }
            }
            if worst > squared {
                keep[index] = true
                stack.append((first, index))
                stack.append((index, last))
            }
        }
        return keep
    }
}
