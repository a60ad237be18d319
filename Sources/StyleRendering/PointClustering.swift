import GeoCore
import MapStyle

/// The points of a GeoJSON source with `cluster: true`, grouped as MapLibre GL groups them
/// (style spec v8, sources › geojson: `clusterRadius` in CSS pixels of a 512-pixel tile,
/// default 50; `clusterMaxZoom`, default the source's `maxzoom` − 1; `clusterMinPoints`,
/// default 2) with supercluster's greedy hierarchy: from the deepest zoom up to the view's,
/// each point or cluster in order takes every one not yet taken within the radius at that zoom
/// into one cluster at their count-weighted mean, tested on the 32-bit float positions its
/// k-d tree keeps. A cluster has the properties `cluster` (true), `point_count` and
/// `point_count_abbreviated`; a point left alone keeps its own. Other geometries pass unchanged.
enum PointClustering {
    struct Options: Equatable {
        var radius = 50.0
        var maxZoom = 17
        var minPoints = 2
    }

    /// The source's clustering, nil when it does not cluster.
    static func options(_ source: StyleSource) -> Options? {
        guard case .object(let o) = source.json, case .bool(true)? = o["cluster"] else { return nil }
        var options = Options()
        if case .number(let r)? = o["clusterRadius"], r >= 0 { options.radius = r }
        let maxZoom: Double = if case .number(let m)? = o["maxzoom"] { m } else { 18 }
        options.maxZoom = Int((maxZoom - 1).clamped(0, 24))
        if case .number(let m)? = o["clusterMaxZoom"] { options.maxZoom = Int(m.clamped(0, 24)) }
        if case .number(let n)? = o["clusterMinPoints"], n >= 2 { options.minPoints = Int(n.clamped(2, 1e9)) }
        return options
    }

    private struct Item {
        var x: Double, y: Double
        var count: Int
        /// The input feature a lone point is, nil for a cluster.
        var feature: Int?
    }

    /// The features as the source shows them at integer zoom `zoom`.
    static func cluster(_ features: [RenderFeature], zoom: Int, options: Options) -> [RenderFeature] {
        var items: [Item] = [], out: [RenderFeature] = []
        for (i, f) in features.enumerated() {
            if f.kind == .point, f.points.count == 1 { items.append(Item(x: f.points[0].x, y: f.points[0].y, count: 1, feature: i)) } else { out.append(f) }
        }
        var level = options.maxZoom
        while level >= zoom, items.count > 1 {
            items = clusterOnce(items, radius: options.radius / (512 * Double(1 << min(level, 30))), minPoints: options.minPoints)
            level -= 1
        }
        for item in items {
            if let i = item.feature { out.append(features[i]); continue }
            var ef = ExpressionFeature()
            ef.geometryType = "Point"
            let n = Double(item.count)
            ef.properties = ["cluster": .boolean(true), "point_count": .number(n),
                             "point_count_abbreviated": n >= 10_000 ? .string("\(Int((n / 1000).rounded()))k")
                                 : n >= 1000 ? .string("\((n / 100).rounded() / 10)k") : .number(n)]
            out.append(RenderFeature(kind: .point, points: [WorldPoint(x: item.x, y: item.y)], expressionFeature: ef))
        }
        return out
    }

    /// One zoom's pass over the previous zoom's items; `radius` in world units.
    private static func clusterOnce(_ items: [Item], radius r: Double, minPoints: Int) -> [Item] {
        // The tree's positions, and a grid of cells `r` wide over them.
        let fx = items.map { Double(Float($0.x)) }, fy = items.map { Double(Float($0.y)) }
        var cells: [Cell: [Int]] = [:]
        let cell = max(r, 1e-12)
        for i in items.indices { cells[Cell(x: Int((fx[i] / cell).rounded(.down)), y: Int((fy[i] / cell).rounded(.down))), default: []].append(i) }
        var taken = [Bool](repeating: false, count: items.count)
        var out: [Item] = []
        for i in items.indices where !taken[i] {
            taken[i] = true
            let p = items[i]
            let cx = Int((p.x / cell).rounded(.down)), cy = Int((p.y / cell).rounded(.down))
            var neighbours: [Int] = []
            for gy in (cy - 1)...(cy + 1) {
                for gx in (cx - 1)...(cx + 1) {
                    for j in cells[Cell(x: gx, y: gy)] ?? [] where !taken[j] {
                        let dx = fx[j] - p.x, dy = fy[j] - p.y
                        if dx * dx + dy * dy <= r * r { neighbours.append(j) }
                    }
                }
            }
            let count = p.count + neighbours.reduce(0) { $0 + items[$1].count }
            for j in neighbours { taken[j] = true }
            guard !neighbours.isEmpty, count >= minPoints else {
                out.append(p)
                out += neighbours.map { items[$0] }
                continue
            }
            var wx = p.x * Double(p.count), wy = p.y * Double(p.count)
            for j in neighbours.sorted() {
                wx += items[j].x * Double(items[j].count)
                wy += items[j].y * Double(items[j].count)
            }
            out.append(Item(x: wx / Double(count), y: wy / Double(count), count: count, feature: nil))
        }
        return out
    }

    private struct Cell: Hashable { var x: Int, y: Int }
}
