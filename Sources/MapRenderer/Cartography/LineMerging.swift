internal import MapData

/// Joins lines that meet end to end into longer lines, so a label can be placed along a street
/// that OpenStreetMap cuts into short ways (at every bridge, junction or change of lanes), as
/// MapLibre GL joins a tile's same-text line features before placing their labels (`mergeLines`,
/// for `symbol-placement: line`). Unlike MapLibre's, a join does not need the pieces to run the
/// same way: OSM ways of one street run either way. At an end where several pieces meet (a dual carriageway's fork), the straightest
/// continuation is taken; none that turns by more than 60°.
enum LineMerging {
    /// The lines of `lines` joined where one's end is exactly another's end (the same OSM node,
    /// or the same tile coordinate), each piece used once; pieces that join nothing come back
    /// as they are. Order: by the first piece of each joined line, which keeps its direction.
    /// - Complexity: O(total points + pieces · pieces meeting at one end).
    static func merged(_ lines: [[MapPoint]]) -> [[MapPoint]] {
        guard lines.count > 1 else { return lines }
        var atEnd: [MapPoint: [Int]] = [:]
        for (i, line) in lines.enumerated() where line.count > 1 {
            atEnd[line[0], default: []].append(i)
            atEnd[line[line.count - 1], default: []].append(i)
        }
        var used = [Bool](repeating: false, count: lines.count)
        var out: [[MapPoint]] = []
        for i in lines.indices where !used[i] {
            used[i] = true
            var chain = lines[i]
            guard chain.count > 1 else { out.append(chain); continue }
            // Onwards from its end, then back from its start; the first piece's way kept.
            extend(&chain, lines, atEnd, &used)
            chain.reverse()
            extend(&chain, lines, atEnd, &used)
            chain.reverse()
            out.append(chain)
        }
        return out
    }

    /// Appends to `chain`, while its last point is an end of an unused piece, the piece that
    /// turns least there (cosine of the turn above 0.5), oriented to start at that point.
    private static func extend(_ chain: inout [MapPoint], _ lines: [[MapPoint]], _ atEnd: [MapPoint: [Int]], _ used: inout [Bool]) {
        while let end = chain.last, let candidates = atEnd[end] {
            let before = chain[chain.count - 2]
            let incoming = direction(from: before, to: end)
            var best: (index: Int, reversed: Bool, cosine: Double)?
            for j in candidates where !used[j] {
                let reversed = lines[j][0] != end
                let next = reversed ? lines[j][lines[j].count - 2] : lines[j][1]
                let outgoing = direction(from: end, to: next)
                let cosine = incoming.x * outgoing.x + incoming.y * outgoing.y
                if cosine > 0.5, cosine > best?.cosine ?? -2 { best = (j, reversed, cosine) }
            }
            guard let best else { return }
            used[best.index] = true
            let piece = best.reversed ? Array(lines[best.index].reversed()) : lines[best.index]
            chain.append(contentsOf: piece.dropFirst())
        }
    }

    /// The unit vector from `a` to `b`; zero when they coincide.
    private static func direction(from a: MapPoint, to b: MapPoint) -> (x: Double, y: Double) {
        let dx = b.x - a.x, dy = b.y - a.y, length = (dx * dx + dy * dy).squareRoot()
        return length > 0 ? (dx / length, dy / length) : (0, 0)
    }
}
