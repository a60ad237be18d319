public import GeoCore

/// Line simplification with a tolerance in metres, measured on a local plane around the
/// first point (`LocalFrame`).
public enum Simplification {
    /// The tolerances a user may give, metres: 0 up to the Earth's equatorial circumference.
    public static let tolerances = ValidRange(0...40_075_017, unit: "m")
    /// Which algorithm.
    public enum Method: String, Hashable, Sendable, CaseIterable {
        /// Keep the point farthest from the chord while it is farther than the tolerance
        /// (Douglas & Peucker, *Cartographica* 10(2), 1973).
        case douglasPeucker
        /// Drop the point whose triangle with its neighbours is smallest while that area is
        /// below tolerance² (Visvalingam & Whyatt, *Cartographic Journal* 30(1), 1993).
        case visvalingamWhyatt
    }

    /// The indices of the points kept, ascending; the first and last point are always kept.
    /// - Parameter tolerance: Douglas–Peucker: the largest distance (m) a dropped point may lie
    ///   from the simplified line. Visvalingam–Whyatt: points whose effective area is below
    ///   `tolerance²` (m²) are dropped.
    /// - Complexity: Douglas–Peucker O(n log n) typical, O(n²) worst; Visvalingam–Whyatt
    ///   O(n log n).
    public static func keptIndices(_ points: [Coordinate], tolerance: Distance, method: Method) -> [Int] {
        guard points.count > 2 else { return Array(points.indices) }
        let frame = LocalFrame(origin: points[0])
        let xy = points.map { p -> Vec2 in let q = frame.point(for: p); return Vec2(x: q.east, y: q.north) }
        switch method {
        case .douglasPeucker: return douglasPeucker(xy, tolerance: tolerance.meters)
        case .visvalingamWhyatt: return visvalingamWhyatt(xy, area: tolerance.meters * tolerance.meters)
        }
    }

    /// The simplified coordinates.
    public static func simplified(_ points: [Coordinate], tolerance: Distance, method: Method = .douglasPeucker) -> [Coordinate] {
        keptIndices(points, tolerance: tolerance, method: method).map { points[$0] }
    }

    /// The simplified track (whole fixes kept, with their times and accuracies).
    public static func simplified(_ track: [Location], tolerance: Distance, method: Method = .douglasPeucker) -> [Location] {
        keptIndices(track.map(\.coordinate), tolerance: tolerance, method: method).map { track[$0] }
    }

    private static func douglasPeucker(_ xy: [Vec2], tolerance: Double) -> [Int] {
        let keep = DouglasPeucker.kept(xy, tolerance: tolerance, x: { $0.x }, y: { $0.y })
        return keep.indices.filter { keep[$0] }
    }

    private static func triangleArea(_ a: Vec2, _ b: Vec2, _ c: Vec2) -> Double {
        abs((b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)) / 2
    }

    private static func visvalingamWhyatt(_ xy: [Vec2], area threshold: Double) -> [Int] {
        let n = xy.count
        var previous = Array(-1..<(n - 1)), next = Array(1...n)
        var area = [Double](repeating: .infinity, count: n)
        var heap = MinHeap()
        for i in 1..<(n - 1) {
            area[i] = triangleArea(xy[i - 1], xy[i], xy[i + 1])
            heap.push(area[i], i)
        }
        var removed = [Bool](repeating: false, count: n)
        var floor = 0.0
        while let (a, i) = heap.pop() {
            // Lazy deletion: skip entries made stale by a neighbour's removal.
            guard !removed[i], a == area[i] else { continue }
            guard a < threshold else { break }
            removed[i] = true
            // An area never falls below the last one removed, so removal order is monotone
            // (Visvalingam & Whyatt 1993, §4).
            floor = max(floor, a)
            let p = previous[i], q = next[i]
            next[p] = q
            previous[q] = p
            for j in [p, q] where j > 0 && j < n - 1 {
                area[j] = max(triangleArea(xy[previous[j]], xy[j], xy[next[j]]), floor)
                heap.push(area[j], j)
            }
        }
        return (0..<n).filter { !removed[$0] }
    }
}

/// A binary min-heap of (key, index) pairs (Williams 1964), enough for Visvalingam–Whyatt.
struct MinHeap {
    private var items: [(Double, Int)] = []

    mutating func push(_ key: Double, _ value: Int) {
        items.append((key, value))
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard items[i].0 < items[parent].0 else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> (Double, Int)? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < items.count, items[l].0 < items[m].0 { m = l }
            if r < items.count, items[r].0 < items[m].0 { m = r }
            if m == i { break }
            items.swapAt(i, m)
            i = m
        }
        return top
    }
}
