public import GeoCore

/// A point on a directed edge near a query position.
public struct EdgeSnap: Hashable, Sendable {
    /// The directed edge.
    public var edge: RoadGraph.EdgeID
    /// The closest point of the edge's shape to the query position.
    public var coordinate: Coordinate
    /// How far along the edge that point is, by length, from its source (0) to its target (1).
    public var fraction: Double
    /// From the query position to `coordinate`.
    public var distance: Distance

    public init(edge: RoadGraph.EdgeID, coordinate: Coordinate, fraction: Double, distance: Distance) {
        self.edge = edge
        self.coordinate = coordinate
        self.fraction = fraction
        self.distance = distance
    }
}

/// A uniform grid over the graph's shape pieces (consecutive shape-point pairs) answering
/// "edges within r metres of a point, nearest first" — the map matcher's candidate query
/// and the router's snapping query.
///
/// Cells are square in metres at the graph's central latitude and stored sparsely: sorted
/// cell keys with CSR item lists, so memory follows the road length, not the bounding box.
/// Long pieces are entered into the cells along them only. Distances are planar in the
/// `LocalFrame` at the query point, exact to well under a centimetre at matching radii.
///
/// The index lives in the graph's module and reads the shape columns directly: its items are
/// global shape-point positions, a storage notion the facade deliberately does not expose.
public struct SpatialIndex: Sendable {
    /// The graph the index was built over.
    public let graph: RoadGraph
    /// The grid cell edge, metres at `referenceLatitude`.
    public let cellSize: Double
    let referenceLatitude: Double
    let cellLatitude: Double   // degrees per cell, north–south
    let cellLongitude: Double  // degrees per cell, east–west
    let cellKeys: GraphColumn<UInt64>
    let cellStarts: GraphColumn<UInt32>
    let cellItems: GraphColumn<UInt32>    // piece = index of its first shape point
    let pieceSegments: ContiguousArray<UInt32>
    let segmentEdges: ContiguousArray<UInt32> // 2 per segment: along, against (UInt32.max if absent)
    let pieceOffsets: GraphColumn<Double> // metres from the segment's first point, per shape point

    /// The cell edge `init(graph:)` uses and graph files store the grid for, metres.
    public static let defaultCellSize = 64.0

    /// Builds the index, or takes the grid a graph file stored for this cell size (format 4:
    /// the cell lists are the costly part, a sort of every shape piece by cell — 19 % of
    /// `geo match` on a 15 MB graph — so `geo extract` builds them once, as OSRM's extract
    /// writes its R-tree).
    /// - Parameters:
    ///   - graph: the graph to index.
    ///   - cellSize: grid cell edge; about the typical query radius works best.
    /// - Complexity: O(P) with the graph's stored grid, else O(P log P) for P shape pieces.
    public init(graph: RoadGraph, cellSize: Distance = .meters(SpatialIndex.defaultCellSize)) {
        let size = max(cellSize.meters, 1)
        if let grid = graph.grid, grid.cellSize == size {
            self.init(graph: graph, grid: grid)
        } else {
            self.init(graph: graph, grid: Grid(graph: graph, cellSize: size))
        }
    }

    private init(graph: RoadGraph, grid: Grid) {
        self.graph = graph
        cellSize = grid.cellSize
        referenceLatitude = grid.referenceLatitude
        (cellLatitude, cellLongitude) = grid.cellDegrees
        cellKeys = grid.cellKeys
        cellStarts = grid.cellStarts
        cellItems = grid.cellItems
        pieceOffsets = grid.pieceOffsets
        var pieceSegments = ContiguousArray<UInt32>(repeating: UInt32.max, count: graph.shapeLatitudes.count)
        for s in 0..<graph.segmentCount {
            for i in Int(graph.shapeOffsets[s])..<(Int(graph.shapeOffsets[s + 1]) - 1) { pieceSegments[i] = UInt32(s) }
        }
        self.pieceSegments = pieceSegments
        var segmentEdges = ContiguousArray<UInt32>(repeating: UInt32.max, count: graph.segmentCount * 2)
        for e in 0..<graph.edgeCount {
            let reversed = graph.edgeFlags[e] & RoadGraph.EdgeFlags.reversed.rawValue != 0
            segmentEdges[Int(graph.edgeSegments[e]) * 2 + (reversed ? 1 : 0)] = UInt32(e)
        }
        self.segmentEdges = segmentEdges
        _checkInvariants()
    }

    /// What is costly to build of an index and stored in graph files: the cell size and
    /// reference latitude, the sparse grid (sorted cell keys, CSR rows of pieces) and the
    /// metres along each segment at each shape point.
    package struct Grid: Sendable {
        package let cellSize: Double
        package let referenceLatitude: Double
        package let cellKeys: GraphColumn<UInt64>
        package let cellStarts: GraphColumn<UInt32>
        package let cellItems: GraphColumn<UInt32>
        package let pieceOffsets: GraphColumn<Double>

        /// Degrees per cell, north–south and east–west.
        var cellDegrees: (Double, Double) {
            let metric = LocalFrame(origin: Coordinate(uncheckedLatitude: referenceLatitude, longitude: 0))
            return (cellSize / metric.metersPerDegreeLatitude, cellSize / metric.metersPerDegreeLongitude)
        }

        /// A grid as a graph file stores it; `RoadGraph`'s initializer checks it (`validate`).
        package init(cellSize: Double, referenceLatitude: Double, cellKeys: GraphColumn<UInt64>, cellStarts: GraphColumn<UInt32>,
                     cellItems: GraphColumn<UInt32>, pieceOffsets: GraphColumn<Double>) {
            self.cellSize = cellSize
            self.referenceLatitude = referenceLatitude
            self.cellKeys = cellKeys
            self.cellStarts = cellStarts
            self.cellItems = cellItems
            self.pieceOffsets = pieceOffsets
        }

        /// Checks the grid against the graph's (already checked) shape offsets, so that no
        /// query can index out of range or compute with a non-finite cell, whatever a file's
        /// CRC says.
        /// - Throws: `RoadNetworkError.corrupt` naming the first broken value.
        /// - Complexity: O(cells + items + shape points).
        func validate(shapeOffsets: GraphColumn<UInt32>) throws(RoadNetworkError) {
            func check(_ ok: Bool, _ what: @autoclosure () -> String) throws(RoadNetworkError) {
                if !ok { throw RoadNetworkError(.corrupt, "spatial grid: " + what()) }
            }
            try check(cellSize.isFinite && cellSize >= 1 && cellSize <= 1e6, "cell size \(cellSize) m")
            try check(referenceLatitude.isFinite && abs(referenceLatitude) <= 90, "reference latitude \(referenceLatitude)")
            try check(cellStarts.count == cellKeys.count + 1 && cellStarts.first == 0 && cellStarts.last.map(Int.init) == cellItems.count,
                      "cell rows do not span the items")
            for c in cellKeys.indices {
                try check(c == 0 || cellKeys[c - 1] < cellKeys[c], "cell keys are not increasing at \(c)")
                try check(cellStarts[c] < cellStarts[c + 1], "cell \(c) is empty")
            }
            let points = Int(shapeOffsets.last ?? 0)
            try check(pieceOffsets.count == points, "\(pieceOffsets.count) offsets for \(points) shape points")
            var isPiece = [Bool](repeating: false, count: points)
            for s in 0..<(shapeOffsets.count - 1) {
                let lo = Int(shapeOffsets[s]), hi = Int(shapeOffsets[s + 1])
                try check(pieceOffsets[lo] == 0, "segment \(s) does not start at 0 m")
                for i in lo..<(hi - 1) {
                    isPiece[i] = true
                    try check(pieceOffsets[i + 1].isFinite && pieceOffsets[i] <= pieceOffsets[i + 1], "offsets decrease at point \(i + 1)")
                }
            }
            for item in cellItems { try check(Int(item) < points && isPiece[Int(item)], "item \(item) is not the first point of a piece") }
        }

        /// Builds the grid: each piece (consecutive shape points) is entered into the cells
        /// along it, then the entries are sorted by cell.
        /// - Complexity: O(P log P) for P shape pieces.
        init(graph: RoadGraph, cellSize: Double) {
            self.cellSize = cellSize
            if let box = graph.boundingBox { referenceLatitude = (box.south + box.north) / 2 } else { referenceLatitude = 0 }
            let metric = LocalFrame(origin: Coordinate(uncheckedLatitude: referenceLatitude, longitude: 0))
            let cellLatitude = cellSize / metric.metersPerDegreeLatitude
            let cellLongitude = cellSize / metric.metersPerDegreeLongitude
            var entries: [(key: UInt64, piece: UInt32)] = []
            entries.reserveCapacity(graph.shapeLatitudes.count * 2)
            for s in 0..<graph.segmentCount {
                let lo = Int(graph.shapeOffsets[s]), hi = Int(graph.shapeOffsets[s + 1])
                for i in lo..<(hi - 1) {
                    let y0 = degrees(graph.shapeLatitudes[i]) / cellLatitude, x0 = degrees(graph.shapeLongitudes[i]) / cellLongitude
                    let y1 = degrees(graph.shapeLatitudes[i + 1]) / cellLatitude, x1 = degrees(graph.shapeLongitudes[i + 1]) / cellLongitude
                    // Walk the piece in steps shorter than a cell and add each step's box of cells.
                    let steps = max(1, Int((max(abs(x1 - x0), abs(y1 - y0))).rounded(.up)))
                    var last: UInt64 = UInt64.max
                    for k in 0..<steps {
                        let ta = Double(k) / Double(steps), tb = Double(k + 1) / Double(steps)
                        let ya = y0 + (y1 - y0) * ta, yb = y0 + (y1 - y0) * tb
                        let xa = x0 + (x1 - x0) * ta, xb = x0 + (x1 - x0) * tb
                        for cy in Int(min(ya, yb).rounded(.down))...Int(max(ya, yb).rounded(.down)) {
                            for cx in Int(min(xa, xb).rounded(.down))...Int(max(xa, xb).rounded(.down)) {
                                let key = SpatialIndex.key(cx, cy)
                                if key != last { entries.append((key, UInt32(i))); last = key }
                            }
                        }
                    }
                }
            }
            // Pieces were entered in increasing order, so a stable sort by key is the order by
            // (key, piece).
            entries = SpatialIndex.stablySortedByKey(entries)
            var keys = ContiguousArray<UInt64>(), starts = ContiguousArray<UInt32>(), items = ContiguousArray<UInt32>()
            items.reserveCapacity(entries.count)
            for e in entries {
                if keys.last != e.key {
                    keys.append(e.key)
                    starts.append(UInt32(items.count))
                } else if items.last == e.piece {
                    continue
                }
                items.append(e.piece)
            }
            starts.append(UInt32(items.count))
            cellKeys = GraphColumn(keys)
            cellStarts = GraphColumn(starts)
            cellItems = GraphColumn(items)

            var offsets = ContiguousArray<Double>(repeating: 0, count: graph.shapeLatitudes.count)
            for s in 0..<graph.segmentCount {
                let lo = Int(graph.shapeOffsets[s]), hi = Int(graph.shapeOffsets[s + 1])
                for i in (lo + 1)..<hi {
                    offsets[i] = offsets[i - 1] + segmentLength(lat1: graph.shapeLatitudes[i - 1], lon1: graph.shapeLongitudes[i - 1],
                                                                lat2: graph.shapeLatitudes[i], lon2: graph.shapeLongitudes[i])
                }
            }
            pieceOffsets = GraphColumn(offsets)
        }
    }

    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless cell keys are strictly increasing,
    /// cell rows span the items, every item is a piece of its segment, each segment's edge
    /// slots hold its edges by direction, and offsets grow along each segment (see
    /// `RoadGraph._checkInvariants()` for the flag).
    /// - Complexity: O(cells + items + shape points + edges).
    @inline(never)
    package func _checkInvariants() {
        precondition(cellStarts.count == cellKeys.count + 1 && cellStarts.first == 0 && cellStarts.last.map(Int.init) == cellItems.count,
                     "SpatialIndex: cell rows do not span the items")
        for c in cellKeys.indices {
            precondition(c == 0 || cellKeys[c - 1] < cellKeys[c], "SpatialIndex: cell keys are not increasing at \(c)")
            precondition(cellStarts[c] < cellStarts[c + 1], "SpatialIndex: cell \(c) is empty")
        }
        for item in cellItems {
            precondition(Int(item) < pieceSegments.count && pieceSegments[Int(item)] != UInt32.max,
                         "SpatialIndex: item \(item) is not the first point of a piece")
        }
        for segment in graph.segments {
            let lo = Int(graph.shapeOffsets[segment.index]), hi = Int(graph.shapeOffsets[segment.index + 1])
            for i in lo..<(hi - 1) {
                precondition(pieceSegments[i] == segment.rawValue, "SpatialIndex: piece \(i) names the wrong segment")
                precondition(pieceOffsets[i] <= pieceOffsets[i + 1], "SpatialIndex: offsets decrease at point \(i + 1)")
            }
            precondition(pieceOffsets[lo] == 0 && pieceSegments[hi - 1] == UInt32.max, "SpatialIndex: segment \(segment) is not delimited")
        }
        for edge in graph.edges {
            let side = graph.flags(of: edge).contains(.reversed) ? 1 : 0
            precondition(segmentEdges[graph.segment(of: edge).index * 2 + side] == edge.rawValue,
                         "SpatialIndex: edge \(edge) is missing from its segment's slot")
        }
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the index's invariants.
    @inline(__always)
    package func _checkInvariants() {}
    #endif

    /// `entries` sorted by key, entries with equal keys kept in their order: a least
    /// significant digit radix sort, a byte a pass, skipping the bytes every key shares (a
    /// city's cell keys differ in about four). The comparison sort it replaced was half the
    /// index build, a tenth of `geo match` on a 90,000-node graph.
    /// - Complexity: O(p · (n + 256)) for p varying bytes.
    static func stablySortedByKey(_ entries: [(key: UInt64, piece: UInt32)]) -> [(key: UInt64, piece: UInt32)] {
        guard let first = entries.first else { return entries }
        var varying: UInt64 = 0
        for e in entries { varying |= e.key ^ first.key }
        var from = entries, to = entries
        for shift in stride(from: UInt64(0), to: 64, by: 8) where (varying >> shift) & 0xFF != 0 {
            from.withUnsafeBufferPointer { a in
                to.withUnsafeMutableBufferPointer { b in
                    var start = [Int](repeating: 0, count: 257)
                    for e in a { start[Int((e.key >> shift) & 0xFF) + 1] += 1 }
                    for d in 1..<257 { start[d] += start[d - 1] }
                    for e in a {
                        let d = Int((e.key >> shift) & 0xFF)
                        b[start[d]] = e
                        start[d] += 1
                    }
                }
            }
            swap(&from, &to)
        }
        return from
    }

    @inline(__always)
    static func key(_ cx: Int, _ cy: Int) -> UInt64 {
        UInt64(UInt32(truncatingIfNeeded: cy)) << 32 | UInt64(UInt32(truncatingIfNeeded: cx))
    }

    /// The closest point of each segment near the query, in metres relative to it.
    private struct Candidate {
        var segment: UInt32
        var piece: Int
        var t: Double
        var distance: Double
    }

    /// Every directed edge with a point within `radius` of `point`, nearest first (ties by
    /// edge id); each edge appears once, at its closest point.
    /// - Complexity: O(c log C + k log k) for c cells in the query circle's box, C occupied
    ///   cells and k pieces found.
    public func edges(near point: Coordinate, within radius: Distance) -> [EdgeSnap] {
        let r = max(radius.meters, 0)
        let metric = LocalFrame(origin: point)
        // Degrees spanned by r, widened 5 % for the metric's change across the box.
        let dLat = r * 1.05 / metric.metersPerDegreeLatitude
        let dLon = r * 1.05 / LocalFrame(origin: Coordinate(uncheckedLatitude: min(89.9, abs(point.latitude) + dLat), longitude: 0)).metersPerDegreeLongitude
        let cy0 = Int(((point.latitude - dLat) / cellLatitude).rounded(.down))
        let cy1 = Int(((point.latitude + dLat) / cellLatitude).rounded(.down))
        let cx0 = Int(((point.longitude - dLon) / cellLongitude).rounded(.down))
        let cx1 = Int(((point.longitude + dLon) / cellLongitude).rounded(.down))
        guard (cy1 - cy0 + 1) * (cx1 - cx0 + 1) <= 4_000_000 else { return bruteForceEdges(near: point, within: radius) }

        var found: [Candidate] = []
        // A car's 200 m query in a city finds 30–60 pieces: room for them at once, not grown
        // six times (the growth was 1.6 % of `geo match`).
        found.reserveCapacity(64)
        func visitCells(from lower: UInt64, through upper: UInt64) {
            var c = firstCell(atLeast: lower)
            while c < cellKeys.count, cellKeys[c] <= upper {
                for k in Int(cellStarts[c])..<Int(cellStarts[c + 1]) {
                    let piece = Int(cellItems[k])
                    let (t, d) = project(point, metric: metric, piece: piece)
                    guard d <= r else { continue }
                    found.append(Candidate(segment: pieceSegments[piece], piece: piece, t: t, distance: d))
                }
                c += 1
            }
        }
        for cy in cy0...cy1 {
            // A row's cells have consecutive keys (`key`): one search for the first occupied
            // cell, then a walk (in two runs where the row crosses cell column 0, as the key's
            // low word wraps there). A search per cell was a twentieth of the candidate search.
            let (first, last) = (SpatialIndex.key(cx0, cy), SpatialIndex.key(cx1, cy))
            if first <= last {
                visitCells(from: first, through: last)
            } else {
                visitCells(from: first, through: first | 0xFFFF_FFFF)
                visitCells(from: last & ~0xFFFF_FFFF, through: last)
            }
        }
        return snaps(from: &found)
    }

    /// The nearest directed edges: every edge at the smallest distance found (both directions
    /// of a two-way road), searching outwards up to `maxDistance`; empty when none is that close.
    public func nearestEdges(to point: Coordinate, maxDistance: Distance = .kilometers(5)) -> [EdgeSnap] {
        nearestEdges(to: point, maxDistance: maxDistance, where: { _ in true })
    }

    /// The nearest directed edges that satisfy `isIncluded` (for example: edges in the
    /// graph's large strongly connected components), searching outwards up to `maxDistance`.
    public func nearestEdges(to point: Coordinate, maxDistance: Distance, where isIncluded: (RoadGraph.EdgeID) -> Bool) -> [EdgeSnap] {
        var r = cellSize
        while true {
            let found = edges(near: point, within: .meters(r)).filter { isIncluded($0.edge) }
            if let first = found.first {
                return found.filter { $0.distance.meters <= first.distance.meters + 1e-6 }
            }
            if r >= maxDistance.meters { return [] }
            r = min(r * 4, maxDistance.meters)
        }
    }

    /// The first occupied cell whose key is `key` or greater (`cellKeys.count` when none is).
    private func firstCell(atLeast key: UInt64) -> Int {
        var lo = 0, hi = cellKeys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cellKeys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// Projects `point` onto the piece starting at shape point `piece`: the parameter t in
    /// [0, 1] and the distance in metres, planar in `metric`.
    @inline(__always)
    private func project(_ point: Coordinate, metric: LocalFrame, piece: Int) -> (Double, Double) {
        let g = graph
        var ax = degrees(g.shapeLongitudes[piece]) - point.longitude
        var bx = degrees(g.shapeLongitudes[piece + 1]) - point.longitude
        if ax > 180 { ax -= 360 } else if ax < -180 { ax += 360 }
        if bx > 180 { bx -= 360 } else if bx < -180 { bx += 360 }
        ax *= metric.metersPerDegreeLongitude
        bx *= metric.metersPerDegreeLongitude
        let ay = (degrees(g.shapeLatitudes[piece]) - point.latitude) * metric.metersPerDegreeLatitude
        let by = (degrees(g.shapeLatitudes[piece + 1]) - point.latitude) * metric.metersPerDegreeLatitude
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        var t = len2 > 0 ? -(ax * dx + ay * dy) / len2 : 0
        t = min(1, max(0, t))
        let px = ax + t * dx, py = ay + t * dy
        return (t, (px * px + py * py).squareRoot())
    }

    /// Keeps each segment's closest piece (ties: the first piece along it) and turns it into
    /// one snap per allowed direction, nearest first (ties by edge id). `found` is left
    /// sorted by piece.
    ///
    /// A segment's pieces are consecutive shape points, so an order by piece is an order by
    /// segment: one sort of the found pieces by piece, a scan for each segment's nearest, a
    /// sort of those by distance, and an insertion pass putting equal distances (both
    /// directions of a segment, roads meeting at a node) in edge order — instead of a sort by
    /// (segment, distance, piece) and another of every snap by (distance, edge), which were
    /// half of the query (`geo match` on dev drive 01: 12.4 of 25.4 M instructions).
    private func snaps(from found: inout [Candidate]) -> [EdgeSnap] {
        guard !found.isEmpty else { return [] }
        let g = graph
        found.sort { $0.piece < $1.piece }
        var nearest: [Candidate] = []
        nearest.reserveCapacity(found.count)
        for c in found {
            if let last = nearest.last, last.segment == c.segment {
                if c.distance < last.distance { nearest[nearest.count - 1] = c }
            } else {
                nearest.append(c)
            }
        }
        nearest.sort { $0.distance < $1.distance }
        var result: [EdgeSnap] = []
        result.reserveCapacity(nearest.count * 2)
        for c in nearest {
            let s = Int(c.segment)
            // Length along the segment to the projected point, in the builder's metric.
            let along = pieceOffsets[c.piece] + c.t * (pieceOffsets[c.piece + 1] - pieceOffsets[c.piece])
            let total = g.segmentLengths[s]
            let fraction = total > 0 ? min(1, max(0, along / total)) : 0
            let lat = degrees(g.shapeLatitudes[c.piece]) + c.t * (degrees(g.shapeLatitudes[c.piece + 1]) - degrees(g.shapeLatitudes[c.piece]))
            let lon = degrees(g.shapeLongitudes[c.piece]) + c.t * (degrees(g.shapeLongitudes[c.piece + 1]) - degrees(g.shapeLongitudes[c.piece]))
            let coordinate = Coordinate(uncheckedLatitude: lat, longitude: lon)
            for side in 0..<2 {
                let e = segmentEdges[s * 2 + side]
                guard e != UInt32.max else { continue }
                result.append(EdgeSnap(edge: RoadGraph.EdgeID(e), coordinate: coordinate,
                                       fraction: side == 0 ? fraction : 1 - fraction,
                                       distance: Distance(meters: c.distance)))
            }
        }
        for i in result.indices.dropFirst() {
            let snap = result[i]
            var j = i
            while j > 0, (snap.distance.meters, snap.edge.rawValue) < (result[j - 1].distance.meters, result[j - 1].edge.rawValue) {
                result[j] = result[j - 1]
                j -= 1
            }
            result[j] = snap
        }
        return result
    }

    /// The same answer as `edges(near:within:)` by checking every piece: the reference the
    /// grid is tested against, and the fallback for radii spanning millions of cells.
    /// - Complexity: O(P) for P shape pieces.
    func bruteForceEdges(near point: Coordinate, within radius: Distance) -> [EdgeSnap] {
        let metric = LocalFrame(origin: point)
        var found: [Candidate] = []
        for piece in pieceSegments.indices where pieceSegments[piece] != UInt32.max {
            let (t, d) = project(point, metric: metric, piece: piece)
            guard d <= radius.meters else { continue }
            found.append(Candidate(segment: pieceSegments[piece], piece: piece, t: t, distance: d))
        }
        return snaps(from: &found)
    }
}
