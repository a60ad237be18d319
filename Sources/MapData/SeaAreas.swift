/// Sea polygons from `natural=coastline` ways, the coastline-free water areas of the schema's
/// `water` layer (class `ocean`). This is what osmcoastline
/// (https://osmcode.org/osmcoastline/) does for the whole planet, done here for one extract.
///
/// The rules (OSM wiki "Tag:natural=coastline"): a coastline way has the land on its left and
/// the water on its right. So:
/// 1. Coastline ways are joined end to start by their node ids into chains (never reversed:
///    a way drawn the wrong way round breaks the chain).
/// 2. A closed chain inside the box is an island when it runs counter-clockwise on the map
///    (land inside) and a sea of its own when it runs clockwise (water inside).
/// 3. Open chains are clipped to the extract's box. Each piece enters the box at one edge and
///    leaves it at another; an end inside the box counts as on the edge when it is within 1 % of
///    the box's shorter side of it (extracts cut ways near their bounds) and is moved onto it.
/// 4. Sea rings are closed by walking the box's edge clockwise (water on the right) from where a
///    piece leaves to where the next piece enters, taking the corners passed.
/// 5. Islands become holes of the sea ring that holds them. With no open chain at all, islands
///    mean the box's edge is at sea: the sea is the whole box less the islands.
///
/// A coastline that cannot be closed so (a gap between ways, a chain ending well inside the
/// box, ways in opposite directions) gives no sea at all, rather than flooding the land: the
/// problem is counted in `MapExtractionStatistics.brokenCoastlines`.
enum SeaAreas {
    /// The box the sea is closed along: a rectangle in world units.
    typealias Box = WorldRect

    /// The result: sea polygons (empty when there is no coastline or it is broken) and the
    /// number of problems that kept the sea from being drawn.
    struct Result {
        var polygons: [MapPolygon]
        var broken: Int
    }

    /// Builds the sea of `box` from coastline chains given as runs of world points (a run is
    /// closed when its first point is its last).
    /// - Complexity: O(p log p) in the points of the chains, plus O(i × s) to place i islands in
    ///   sea rings of s points.
    static func polygons(chains: [[MapPoint]], box: Box) -> Result {
        guard !chains.isEmpty, box.width > 0, box.height > 0 else { return Result(polygons: [], broken: 0) }
        let tolerance = 0.01 * min(box.width, box.height)
        var pieces: [[MapPoint]] = []
        var islands: [[MapPoint]] = [], seaRings: [[MapPoint]] = []
        var broken = 0
        for chain in chains where chain.count >= 2 {
            let closed = chain.count >= 4 && chain.first == chain.last
            if closed, chain.allSatisfy({ inside($0, box) }) {
                if MapFeatureExtractor.signedArea(chain) > 0 { seaRings.append(chain) } else { islands.append(chain) }
                continue
            }
            // A closed chain that crosses the edge is cut where it leaves the box: start it
            // outside so its first and last pieces are not two halves of one.
            var line = chain
            if closed, let outside = chain.firstIndex(where: { !inside($0, box) }) {
                line = Array(chain[outside..<(chain.count - 1)] + chain[..<outside]) + [chain[outside]]
            }
            var strip: [[MapPoint]] = [], parts: [[MapPoint]] = []
            TileClipping.clipLine(line, .x, box.minX, box.maxX, into: &strip)
            for part in strip { TileClipping.clipLine(part, .y, box.minY, box.maxY, into: &parts) }
            for var part in parts {
                guard let first = onEdge(part[0], box, tolerance), let last = onEdge(part[part.count - 1], box, tolerance) else {
                    broken += 1
                    continue
                }
                if first != part[0] { part.insert(first, at: 0) }
                if last != part[part.count - 1] { part.append(last) }
                pieces.append(part)
            }
        }
        guard broken == 0 else { return Result(polygons: [], broken: broken) }
        var sea: [MapPolygon]
        if pieces.isEmpty {
            sea = seaRings.map { MapPolygon(exterior: $0) }
            let corners = [MapPoint(x: box.minX, y: box.minY), MapPoint(x: box.maxX, y: box.minY),
                           MapPoint(x: box.maxX, y: box.maxY), MapPoint(x: box.minX, y: box.maxY)]
            let outermost = islands.contains { island in !seaRings.contains { MapFeatureExtractor.contains($0, island[0]) } }
            if outermost { sea.append(MapPolygon(exterior: corners + [corners[0]])) }
        } else {
            guard let rings = closedAlongEdge(pieces, box) else { return Result(polygons: [], broken: 1) }
            sea = (rings + seaRings).map { MapPolygon(exterior: $0) }
        }
        // Each island into the smallest sea ring holding it; one in none lies in land (a lake's
        // island drawn as coastline) and adds nothing to the sea.
        let areas = sea.map { abs(MapFeatureExtractor.signedArea($0.exterior)) }
        for island in islands {
            let holder = sea.indices.filter { MapFeatureExtractor.contains(sea[$0].exterior, island[0]) }.min { areas[$0] < areas[$1] }
            if let holder { sea[holder].holes.append(island) }
        }
        return Result(polygons: sea, broken: 0)
    }

    /// Coastline ways (node ids) joined end to start into chains; a chain that comes back to
    /// its first node is closed (first id = last id).
    /// - Complexity: O(n) in the node references, with a start-node index.
    static func chains(_ ways: [[Int64]]) -> [[Int64]] {
        let ways = ways.filter { $0.count >= 2 }
        var byStart: [Int64: Int] = [:]
        for (i, way) in ways.enumerated() where way.first != way.last && byStart[way[0]] == nil { byStart[way[0]] = i }
        var continues = [Bool](repeating: false, count: ways.count)
        for way in ways where way.first != way.last { if let j = byStart[way[way.count - 1]] { continues[j] = true } }
        var used = [Bool](repeating: false, count: ways.count)
        var chains: [[Int64]] = []
        func follow(from start: Int) {
            var chain = ways[start]
            used[start] = true
            while chain.first != chain.last, let j = byStart[chain[chain.count - 1]], !used[j] {
                used[j] = true
                chain += ways[j].dropFirst()
            }
            chains.append(chain)
        }
        // Chains with a first way nothing leads into, then the cycles that are left.
        for i in ways.indices where !continues[i] && !used[i] { follow(from: i) }
        for i in ways.indices where !used[i] { follow(from: i) }
        return chains
    }

    static func inside(_ p: MapPoint, _ box: Box) -> Bool {
        p.x >= box.minX && p.x <= box.maxX && p.y >= box.minY && p.y <= box.maxY
    }

    /// The point of the box's edge nearest to `p` (a point in the box), or nil when that is
    /// farther than `tolerance`.
    static func onEdge(_ p: MapPoint, _ box: Box, _ tolerance: Double) -> MapPoint? {
        let distances = [p.y - box.minY, box.maxX - p.x, box.maxY - p.y, p.x - box.minX]
        let nearest = distances.indices.min { distances[$0] < distances[$1] }!
        guard distances[nearest] <= tolerance else { return nil }
        switch nearest {
        case 0: return MapPoint(x: p.x, y: box.minY)
        case 1: return MapPoint(x: box.maxX, y: p.y)
        case 2: return MapPoint(x: p.x, y: box.maxY)
        default: return MapPoint(x: box.minX, y: p.y)
        }
    }

    /// Where a point of the box's edge lies along it, walking clockwise on the map from the
    /// north-west corner: north edge 0…1, east 1…2, south 2…3, west 3…4.
    static func position(_ p: MapPoint, _ box: Box) -> Double {
        let distances = [p.y - box.minY, box.maxX - p.x, box.maxY - p.y, p.x - box.minX]
        switch distances.indices.min(by: { abs(distances[$0]) < abs(distances[$1]) })! {
        case 0: return (p.x - box.minX) / box.width
        case 1: return 1 + (p.y - box.minY) / box.height
        case 2: return 2 + (box.maxX - p.x) / box.width
        default: return 3 + (box.maxY - p.y) / box.height
        }
    }

    /// The corner at edge position 1, 2, 3 or 4 (= 0).
    static func corner(_ k: Int, _ box: Box) -> MapPoint {
        switch k % 4 {
        case 0: MapPoint(x: box.minX, y: box.minY)
        case 1: MapPoint(x: box.maxX, y: box.minY)
        case 2: MapPoint(x: box.maxX, y: box.maxY)
        default: MapPoint(x: box.minX, y: box.maxY)
        }
    }

    /// Closes pieces that run from edge to edge into rings: from the end of each piece, clockwise
    /// along the edge to the start of the next piece met.
    /// - Returns: nil when starts and ends do not alternate along the edge (two pieces leave the
    ///   box with no piece entering between them: a coastline drawn the wrong way round).
    static func closedAlongEdge(_ pieces: [[MapPoint]], _ box: Box) -> [[MapPoint]]? {
        // (position, piece, isEnd); at equal positions an end sorts before a start, so a piece
        // leaving where the next enters joins it without a loop round the box.
        let events = pieces.indices.flatMap { i in
            [(position(pieces[i][0], box), i, false), (position(pieces[i][pieces[i].count - 1], box), i, true)]
        }.sorted { ($0.0, $0.2 ? 0 : 1) < ($1.0, $1.2 ? 0 : 1) }
        var next = [Int](repeating: -1, count: pieces.count)
        for (k, event) in events.enumerated() where event.2 {
            let following = events[(k + 1) % events.count]
            guard !following.2 else { return nil }
            next[event.1] = following.1
        }
        var used = [Bool](repeating: false, count: pieces.count)
        var rings: [[MapPoint]] = []
        for start in pieces.indices where !used[start] {
            var ring: [MapPoint] = []
            var i = start
            repeat {
                used[i] = true
                ring += pieces[i]
                let j = next[i]
                let leave = position(pieces[i][pieces[i].count - 1], box), enter = position(pieces[j][0], box)
                let until = enter >= leave ? enter : enter + 4
                var k = Int(leave.rounded(.down)) + 1
                while Double(k) < until { ring.append(corner(k, box)); k += 1 }
                i = j
            } while i != start
            ring.append(ring[0])
            rings.append(ring)
        }
        return rings
    }
}
