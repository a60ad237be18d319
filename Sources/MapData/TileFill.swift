/// Where a polygon covers whole tiles, found without cutting them: the fill tiles of
/// tilemaker and Planetiler. A tile is filled by a polygon when the tile's box grown by the
/// tile buffer lies inside the polygon (even-odd over all its rings) and no ring edge meets
/// that box: cut, such a tile holds exactly its buffered square.
///
/// `quads(of:zoom:blockShift:extent:buffer:reach:)` walks the tile quadtree down to the blocks
/// `MapTiler` cuts, following only the quads an edge meets: a quad no edge meets is wholly
/// inside (covered: every tile in it is a fill tile) or wholly outside (nothing to cut), told
/// by carrying the inside-ness of the parent's centre to the child's centre across the edges
/// between them. The work is O(edges × depth + quads along the edges), not O(tiles): a polygon
/// as large as the world costs what its outline costs.
///
/// Units are tile units of the zoom (world units × 2^z × extent), as `TileBlockCut` cuts in.
enum TileFill {
    /// An aligned square of tiles: the tile (x, y) of zoom `level`, i.e. the 4^(z − level)
    /// tiles of zoom z under it, one run of PMTiles tile ids (spec §4 "Tile IDs").
    struct Quad: Hashable {
        var level: Int
        var x: Int
        var y: Int

        /// The quad above this one.
        var parent: Quad { Quad(level: level - 1, x: x >> 1, y: y >> 1) }

        /// The four quads under this one.
        var children: [Quad] {
            [(0, 0), (1, 0), (0, 1), (1, 1)].map { Quad(level: level + 1, x: 2 * x + $0.0, y: 2 * y + $0.1) }
        }

        /// The quad's key as a block key of its level (`x << 32 | y`).
        var key: UInt64 { UInt64(x) << 32 | UInt64(y) }

        /// The PMTiles tile id of the first tile of zoom `z` ≥ `level` under the quad: the
        /// quad's position on its level's Hilbert curve times the tiles under it.
        func firstTileID(atZoom z: Int) -> UInt64 {
            let own = PMTiles.tileID(zoom: level, x: x, y: y) - Self.firstID(ofZoom: level)
            return Self.firstID(ofZoom: z) + own << (2 * UInt64(z - level))
        }

        /// The id of tile 0/0 of zoom `z`: the tiles of all lower zooms.
        static func firstID(ofZoom z: Int) -> UInt64 { ((UInt64(1) << (2 * UInt64(z))) - 1) / 3 }
    }

    /// A ring edge.
    struct Edge {
        var a: MapPoint
        var b: MapPoint
    }

    /// A closed box.
    struct Box {
        var minX, minY, maxX, maxY: Double
        var center: MapPoint { MapPoint(x: (minX + maxX) / 2, y: (minY + maxY) / 2) }
    }

    /// The edges of closed rings.
    static func edges(of rings: [[MapPoint]]) -> [Edge] {
        var out: [Edge] = []
        for ring in rings where ring.count >= 2 {
            for i in 1..<ring.count where ring[i - 1] != ring[i] { out.append(Edge(a: ring[i - 1], b: ring[i])) }
        }
        return out
    }

    /// The buffered box of `quad` at zoom `z`.
    static func box(_ quad: Quad, zoom z: Int, extent: Double, buffer: Double) -> Box {
        let side = extent * Double(1 << (z - quad.level))
        return Box(minX: Double(quad.x) * side - buffer, minY: Double(quad.y) * side - buffer,
                   maxX: Double(quad.x + 1) * side + buffer, maxY: Double(quad.y + 1) * side + buffer)
    }

    /// Twice the signed area of triangle o, a, b (> 0: b is left of o→a, counter-clockwise).
    @inline(__always) static func cross(_ o: MapPoint, _ a: MapPoint, _ b: MapPoint) -> Double {
        (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
    }

    /// Whether the edge meets the closed box (touching counts).
    static func meets(_ e: Edge, _ box: Box) -> Bool {
        guard max(e.a.x, e.b.x) >= box.minX, min(e.a.x, e.b.x) <= box.maxX,
              max(e.a.y, e.b.y) >= box.minY, min(e.a.y, e.b.y) <= box.maxY else { return false }
        // Its box overlaps: it misses only when all four corners are strictly on one side of its line.
        let corners = [MapPoint(x: box.minX, y: box.minY), MapPoint(x: box.maxX, y: box.minY),
                       MapPoint(x: box.maxX, y: box.maxY), MapPoint(x: box.minX, y: box.maxY)]
        let sides = corners.map { cross(e.a, e.b, $0) }
        return !(sides.allSatisfy { $0 > 0 } || sides.allSatisfy { $0 < 0 })
    }

    /// Even-odd inside test (crossings of the ray towards +x; a point on a horizontal edge's
    /// line counts by the half-open rule, so each crossing is counted once).
    static func inside(_ p: MapPoint, _ edges: [Edge]) -> Bool {
        var odd = false
        for e in edges where (e.a.y > p.y) != (e.b.y > p.y) {
            let x = e.a.x + (p.y - e.a.y) / (e.b.y - e.a.y) * (e.b.x - e.a.x)
            if x > p.x { odd.toggle() }
        }
        return odd
    }

    /// Whether the rings' area holds all of `box`: no edge meets it and its centre is inside.
    static func covers(_ edges: [Edge], _ box: Box) -> Bool {
        !edges.contains { meets($0, box) } && inside(box.center, edges)
    }

    /// The parity of the crossings of segment p→q with the edges, or nil when one touches it
    /// at an end or along it (then the caller tests the point itself).
    private static func crossingParity(_ p: MapPoint, _ q: MapPoint, _ edges: [Edge]) -> Bool? {
        var odd = false
        for e in edges {
            let d1 = cross(p, q, e.a), d2 = cross(p, q, e.b), d3 = cross(e.a, e.b, p), d4 = cross(e.a, e.b, q)
            if d1 == 0 || d2 == 0 || d3 == 0 || d4 == 0 {
                // Collinear or touching: only a real contact makes it ambiguous.
                let apart = max(e.a.x, e.b.x) < min(p.x, q.x) || min(e.a.x, e.b.x) > max(p.x, q.x)
                    || max(e.a.y, e.b.y) < min(p.y, q.y) || min(e.a.y, e.b.y) > max(p.y, q.y)
                if apart { continue }
                return nil
            }
            if (d1 > 0) != (d2 > 0), (d3 > 0) != (d4 > 0) { odd.toggle() }
        }
        return odd
    }

    /// The quads of levels `z − blockShift` and above (whole blocks of `TilingOptions.blockSide`)
    /// that the rings cover, and the blocks (quads of level `z − blockShift`) an edge meets, both
    /// within `reach` (block columns and rows), each in no particular order. A block in neither
    /// list has none of the rings' area in its tiles.
    /// - Complexity: O(edges × (levels + edge quads)); no tile is visited.
    static func quads(of edges: [Edge], zoom z: Int, blockShift: Int, extent: Double, buffer: Double,
                      reach: (x: ClosedRange<Int>, y: ClosedRange<Int>)) -> (covered: [Quad], touched: [Quad]) {
        let blockLevel = z - blockShift, all = edges
        var covered: [Quad] = [], touched: [Quad] = []
        func visit(_ quad: Quad, _ edges: [Edge], inside: Bool) {
            let shift = blockLevel - quad.level
            guard quad.x << shift <= reach.x.upperBound, (quad.x + 1) << shift > reach.x.lowerBound,
                  quad.y << shift <= reach.y.upperBound, (quad.y + 1) << shift > reach.y.lowerBound else { return }
            if edges.isEmpty {
                if inside { covered.append(quad) }
                return
            }
            if quad.level == blockLevel {
                touched.append(quad)
                return
            }
            let centre = box(quad, zoom: z, extent: extent, buffer: buffer).center
            for child in quad.children {
                let b = box(child, zoom: z, extent: extent, buffer: buffer)
                let inner = edges.filter { meets($0, b) }
                let childInside: Bool
                if let odd = crossingParity(centre, b.center, edges) { childInside = inside != odd } else {
                    childInside = Self.inside(b.center, all) // the ray leaves the quad: every edge counts
                }
                visit(child, inner, inside: childInside)
            }
        }
        let root = Quad(level: 0, x: 0, y: 0)
        visit(root, edges, inside: inside(box(root, zoom: z, extent: extent, buffer: buffer).center, edges))
        return (covered, touched)
    }

    /// How blocks and covered quads of one zoom make the blocks to cut: a block some feature
    /// reaches that lies in a covered quad also gets that quad's features (`extra`); the rest
    /// of a covered quad becomes runs, the largest quads that hold no such block, each with the
    /// features covering it (`runs`; ids ascending).
    /// - Parameters:
    ///   - blocks: the keys (`x << 32 | y`) of the blocks of level `blockLevel` to cut.
    ///   - fills: covered quads with the id of the feature covering each.
    /// - Complexity: O(blocks × blockLevel + quads × blockLevel) when there are fills; O(1) else.
    static func arrange(blocks: some Sequence<UInt64>, fills: [(Quad, Int32)], blockLevel: Int)
        -> (extra: [UInt64: [Int32]], runs: [(Quad, [Int32])]) {
        guard !fills.isEmpty else { return ([:], []) }
        var byQuad: [Quad: [Int32]] = [:]
        for (quad, id) in fills { byQuad[quad, default: []].append(id) }
        /// The ids of the quads holding `quad` (itself included).
        func covering(_ quad: Quad) -> [Int32] {
            var ids: [Int32] = [], q = quad
            while true {
                ids += byQuad[q] ?? []
                if q.level == 0 { return ids }
                q = q.parent
            }
        }
        var extra: [UInt64: [Int32]] = [:]
        var busy = Set<Quad>() // quads above a block to cut or a nested covered quad: not one run
        var blockSet = Set<UInt64>()
        func markAbove(_ quad: Quad) {
            var q = quad
            while q.level > 0 {
                q = q.parent
                if !busy.insert(q).inserted { return }
            }
        }
        for key in blocks {
            blockSet.insert(key)
            let quad = Quad(level: blockLevel, x: Int(key >> 32), y: Int(key & 0xFFFF_FFFF))
            let ids = covering(quad)
            guard !ids.isEmpty else { continue }
            extra[key] = ids
            markAbove(quad)
        }
        for quad in byQuad.keys { markAbove(quad) }
        var runs: [(Quad, [Int32])] = []
        func visit(_ quad: Quad, _ inherited: [Int32]) {
            let ids = inherited + (byQuad[quad] ?? [])
            if quad.level == blockLevel {
                if !blockSet.contains(quad.key) { runs.append((quad, ids.sorted())) }
            } else if !busy.contains(quad) {
                runs.append((quad, ids.sorted()))
            } else {
                for child in quad.children { visit(child, ids) }
            }
        }
        // The outermost covered quads (none of their ancestors is covered).
        for quad in byQuad.keys where quad.level == 0 || covering(quad.parent).isEmpty { visit(quad, []) }
        return (extra, runs)
    }
}
