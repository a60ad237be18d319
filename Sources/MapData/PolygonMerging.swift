/// Generalisation of small polygons below the highest zoom: the small buildings, land-use and
/// land-cover areas of one class in one tile are merged into one feature whose outline is the
/// union of theirs, gaps under a pixel closed, as a map at that scale draws a block of houses.
///
/// The union is taken on a grid of half-pixel cells over the tile and its buffer (the raster
/// generalisation of cartography, e.g. Li, "Digital Map Generalization", 2007, ch. 5): polygons
/// are filled in (even–odd, cell centres), the grid is closed morphologically (dilated, then
/// eroded, by one cell with a 3 × 3 square, so parts less than a pixel apart join), and the
/// filled cells' outlines are traced into rings and simplified by Douglas–Peucker at half a pixel.
/// Merged areas under 4 px² are dropped, as single polygons are.
enum PolygonMerging {
    /// Merges `polygons` (rings in tile units of the zoom, closed) over the box from `origin`
    /// of side `extent`, grown by `buffer` on each side.
    /// - Parameter pixel: tile units per pixel of a 256-pixel tile.
    /// - Returns: polygons (exterior first, then holes), closed rings in tile units, and how
    ///   many merged areas were dropped for being under 4 px².
    /// - Complexity: O(cells) over the polygons' box within the buffered tile, in half-pixel
    ///   cells, plus the polygons' edges per row.
    static func merged(_ polygons: [[[MapPoint]]], origin: MapPoint, extent: Double, buffer: Double, pixel: Double) -> (polygons: [[[MapPoint]]], dropped: Int) {
        let cell = pixel / 2
        // The grid: the polygons' box with two cells round it, within the buffered tile.
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for rings in polygons { for p in rings[0] { minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        guard minX <= maxX else { return ([], 0) }
        let cells = Int(((extent + 2 * buffer) / cell).rounded(.up))
        let left = max(0, Int(((minX - origin.x + buffer) / cell).rounded(.down)) - 2), top = max(0, Int(((minY - origin.y + buffer) / cell).rounded(.down)) - 2)
        let right = min(cells, Int(((maxX - origin.x + buffer) / cell).rounded(.up)) + 2), bottom = min(cells, Int(((maxY - origin.y + buffer) / cell).rounded(.up)) + 2)
        guard left < right, top < bottom else { return ([], 0) }
        let nx = right - left, ny = bottom - top
        let x0 = origin.x - buffer + Double(left) * cell, y0 = origin.y - buffer + Double(top) * cell
        var grid = [Bool](repeating: false, count: nx * ny)
        for rings in polygons { fill(rings, into: &grid, nx: nx, ny: ny, x0: x0, y0: y0, cell: cell) }
        grid = closed(grid, nx: nx, ny: ny)
        var out: [[[MapPoint]]] = []
        var holes: [[MapPoint]] = []
        var dropped = 0
        let minimumArea = 4 * pixel * pixel
        for ring in outlines(grid, nx: nx, ny: ny) {
            let points = ring.map { MapPoint(x: x0 + Double($0 % (nx + 1)) * cell, y: y0 + Double($0 / (nx + 1)) * cell) }
            let simple = TileClipping.simplified(points, tolerance: cell)
            guard simple.count >= 4 else { continue }
            let area = TileClipping.twiceArea(simple) / 2
            guard abs(area) >= minimumArea else {
                if area > 0 { dropped += 1 }
                continue
            }
            // Outlines run clockwise on screen (filled cells on the right) round areas, the other way round holes.
            if area > 0 { out.append([simple]) } else { holes.append(simple) }
        }
        let areas = out.map { TileClipping.twiceArea($0[0]) }
        for hole in holes {
            let holder = out.indices.filter { MapFeatureExtractor.contains(out[$0][0], hole[0]) }.min { areas[$0] < areas[$1] }
            if let holder { out[holder].append(hole) }
        }
        return (out, dropped)
    }

    /// Sets the cells whose centres lie inside the polygon (even–odd over all its rings).
    private static func fill(_ rings: [[MapPoint]], into grid: inout [Bool], nx: Int, ny: Int, x0: Double, y0: Double, cell: Double) {
        var minY = Double.infinity, maxY = -Double.infinity
        for ring in rings { for p in ring { minY = min(minY, p.y); maxY = max(maxY, p.y) } }
        guard minY <= maxY else { return }
        let firstRow = max(0, Int(((minY - y0) / cell - 0.5).rounded(.up))), lastRow = min(ny - 1, Int(((maxY - y0) / cell - 0.5).rounded(.down)))
        guard firstRow <= lastRow else { return }
        var crossings: [Double] = []
        for row in firstRow...lastRow {
            let y = y0 + (Double(row) + 0.5) * cell
            crossings.removeAll(keepingCapacity: true)
            for ring in rings where ring.count >= 2 {
                for i in 1..<ring.count {
                    let a = ring[i - 1], b = ring[i]
                    if (a.y > y) != (b.y > y) { crossings.append(a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y)) }
                }
            }
            crossings.sort()
            var k = 0
            while k + 1 < crossings.count {
                let from = max(0, Int(((crossings[k] - x0) / cell - 0.5).rounded(.up)))
                let to = min(nx - 1, Int(((crossings[k + 1] - x0) / cell - 0.5).rounded(.down)))
                if from <= to { for column in from...to { grid[row * nx + column] = true } }
                k += 2
            }
        }
    }

    /// Morphological closing with a 3 × 3 square: dilation, then erosion, each as a row pass
    /// and a column pass (the square is separable). Outside the grid counts as empty for the
    /// dilation and as filled for the erosion, so areas running off the grid keep their edge.
    private static func closed(_ grid: [Bool], nx: Int, ny: Int) -> [Bool] {
        func pass(_ g: [Bool], dilate: Bool, alongRows: Bool) -> [Bool] {
            var out = g
            let (lines, length) = alongRows ? (ny, nx) : (nx, ny)
            for line in 0..<lines {
                for i in 0..<length {
                    func at(_ j: Int) -> Bool {
                        guard j >= 0, j < length else { return !dilate }
                        return alongRows ? g[line * nx + j] : g[j * nx + line]
                    }
                    let v = dilate ? (at(i - 1) || at(i) || at(i + 1)) : (at(i - 1) && at(i) && at(i + 1))
                    if alongRows { out[line * nx + i] = v } else { out[i * nx + line] = v }
                }
            }
            return out
        }
        let dilated = pass(pass(grid, dilate: true, alongRows: true), dilate: true, alongRows: false)
        return pass(pass(dilated, dilate: false, alongRows: true), dilate: false, alongRows: false)
    }

    /// The outlines of the filled cells as closed rings of grid vertices (vertex id =
    /// row × (nx + 1) + column), each with the filled cells on its right; at a vertex where two
    /// areas touch corner to corner, the ring turns right, so each keeps a ring of its own.
    private static func outlines(_ grid: [Bool], nx: Int, ny: Int) -> [[Int]] {
        let w = nx + 1
        func filled(_ row: Int, _ column: Int) -> Bool { row >= 0 && row < ny && column >= 0 && column < nx && grid[row * nx + column] }
        // Directed edges by start vertex; at most two leave a vertex.
        var edges: [Int: [Int]] = [:]
        for row in 0..<ny {
            for column in 0..<nx where grid[row * nx + column] {
                let nw = row * w + column, ne = nw + 1, sw = nw + w, se = sw + 1
                if !filled(row - 1, column) { edges[nw, default: []].append(ne) }
                if !filled(row, column + 1) { edges[ne, default: []].append(se) }
                if !filled(row + 1, column) { edges[se, default: []].append(sw) }
                if !filled(row, column - 1) { edges[sw, default: []].append(nw) }
            }
        }
        var rings: [[Int]] = []
        for start in edges.keys.sorted() {
            while let first = edges[start]?.first {
                var ring = [start]
                var from = start, to = first
                edges[start]!.removeFirst()
                while to != start {
                    let direction = (dx: to % w - from % w, dy: to / w - from / w)
                    let choices = edges[to] ?? []
                    guard !choices.isEmpty else { break }
                    // The right turn first (on screen, y down: cross product > 0).
                    let pick = choices.indices.max { a, b in
                        func turn(_ e: Int) -> Int { direction.dx * (e / w - to / w) - direction.dy * (e % w - to % w) }
                        return turn(choices[a]) < turn(choices[b])
                    }!
                    let next = choices[pick]
                    edges[to]!.remove(at: pick)
                    // Only corners are kept.
                    if next % w - to % w != direction.dx || next / w - to / w != direction.dy { ring.append(to) }
                    from = to
                    to = next
                }
                ring.append(start)
                rings.append(ring)
            }
        }
        return rings
    }
}
