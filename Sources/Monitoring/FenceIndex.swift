import Platform
import GeoCore

/// Latitude/longitude grids over the regions' bounds, so a fix only looks at the regions near it.
///
/// The finest grid's cells are ``cellDegrees`` on a side (about 280 m north–south: with 100,000
/// regions of 50–500 m, `Benchmarks/monitor.sh`, 0.01° cells ran 115,000 fixes/s and these
/// 152,000); each coarser level's cells are ``levelRatio`` times wider (0.04°, 0.64°, 10.24°). A
/// region is listed in every cell its bounds touch at the finest level where that is at most
/// ``maximumCells`` cells — a district of 30 km at 0.04°, a country at 0.64° — so a fix looks at
/// the cells near it at each level, not at every large region (before, a region over about 15 km
/// across was in a list every query returned: 10,000 postcode areas were 10,000 candidates a fix).
/// Only a region across the antimeridian stays in that list. A query returns each region whose
/// cells meet the query box once: in the first cell (lowest row, then column) of its level that
/// both cover — so a query changes nothing, and copies of an engine share one index (the
/// tracking server holds one engine per device).
/// - Complexity: insert O(cells covered); query O(cells in the box at each populated level +
///   regions found).
struct FenceIndex: Sendable {
    static let cellDegrees = 0.0025
    static let levelRatio = 16
    static let levelCount = 4
    static let maximumCells = 4_096

    /// One grid: its cells' side, degrees, and the slots listed in each cell.
    private struct Level: Sendable {
        var degrees: Double
        var cells: [Int64: [Int32]] = [:]

        /// The row or column of a latitude or longitude. Bounds past the poles or the antimeridian
        /// (a circle of 10¹⁵ m reaches 9·10⁹° north) are taken at ±180°, the grid's edge, so the
        /// cell fits an `Int32` (±72,000 at 0.0025°) whatever the region's size.
        func cell(_ degrees: Double) -> Int32 {
            Int32((min(max(degrees, -180), 180) / self.degrees).rounded(.down))
        }

        /// The rows and columns the bounds cover.
        func span(south: Double, west: Double, north: Double, east: Double) -> (r0: Int32, r1: Int32, c0: Int32, c1: Int32) {
            (cell(south), cell(north), cell(west), cell(east))
        }
    }

    private var levels: [Level] = (0..<Self.levelCount).map { k in
        Level(degrees: Self.cellDegrees * pow(Double(Self.levelRatio), Double(k)))
    }
    private var large: [Int32] = []
    /// Per slot, its level and the row and column of its first cell there (its bounds' south-west corner).
    private var level: [Int8] = [], firstRow: [Int32] = [], firstColumn: [Int32] = []

    private static func key(_ row: Int32, _ column: Int32) -> Int64 { Int64(row) << 32 | Int64(UInt32(bitPattern: column)) }

    private static func count(_ span: (r0: Int32, r1: Int32, c0: Int32, c1: Int32)) -> Int {
        (Int(span.r1) - Int(span.r0) + 1) * (Int(span.c1) - Int(span.c0) + 1)
    }

    /// Lists `slot` over the bounds (degrees; `west > east` across the antimeridian).
    mutating func insert(_ slot: Int, south: Double, west: Double, north: Double, east: Double) {
        if slot >= firstRow.count {
            let more = slot + 1 - firstRow.count
            level.append(contentsOf: repeatElement(-1, count: more))
            firstRow.append(contentsOf: repeatElement(0, count: more))
            firstColumn.append(contentsOf: repeatElement(0, count: more))
        }
        guard west <= east, let k = levels.indices.first(where: { k in
            Self.count(levels[k].span(south: south, west: west, north: north, east: east)) <= Self.maximumCells
        }) else {
            level[slot] = -1
            large.append(Int32(slot))
            return
        }
        let (r0, r1, c0, c1) = levels[k].span(south: south, west: west, north: north, east: east)
        (level[slot], firstRow[slot], firstColumn[slot]) = (Int8(k), r0, c0)
        for r in r0...r1 { for c in c0...c1 { levels[k].cells[Self.key(r, c), default: []].append(Int32(slot)) } }
    }

    /// Unlists `slot` (given the bounds it was inserted with).
    mutating func remove(_ slot: Int, south: Double, west: Double, north: Double, east: Double) {
        let s = Int32(slot)
        guard slot < level.count else { return }
        guard level[slot] >= 0 else {
            if let i = large.firstIndex(of: s) { large.remove(at: i) }
            return
        }
        let k = Int(level[slot])
        let (r0, r1, c0, c1) = levels[k].span(south: south, west: west, north: north, east: east)
        for r in r0...r1 {
            for c in c0...c1 {
                let key = Self.key(r, c)
                levels[k].cells[key]?.removeAll { $0 == s }
                // An emptied cell goes, so regions added and removed for days leave no trace.
                if levels[k].cells[key]?.isEmpty == true { levels[k].cells[key] = nil }
            }
        }
    }

    /// Calls `body` once for every slot listed in a cell the box meets at the slot's level
    /// (degrees; the box is clamped to the poles and taken without wrapping across the
    /// antimeridian), and for every region across the antimeridian.
    func forEach(south: Double, west: Double, north: Double, east: Double, _ body: (Int) -> Void) {
        for s in large { body(Int(s)) }
        for grid in levels where !grid.cells.isEmpty {
            let (r0, r1, c0, c1) = grid.span(south: max(south, -90), west: west, north: min(north, 90), east: east)
            guard Self.count((r0, r1, c0, c1)) <= 4 * Self.maximumCells else {
                // A box this large (fixes hundreds of kilometres apart): every listed slot, in its first cell.
                for (key, list) in grid.cells {
                    let (r, c) = (Int32(truncatingIfNeeded: key >> 32), Int32(truncatingIfNeeded: key))
                    for s in list where firstRow[Int(s)] == r && firstColumn[Int(s)] == c { body(Int(s)) }
                }
                continue
            }
            for r in r0...r1 {
                for c in c0...c1 {
                    guard let list = grid.cells[Self.key(r, c)] else { continue }
                    // The first cell both cover: the later of the two first rows and columns.
                    for s in list where max(firstRow[Int(s)], r0) == r && max(firstColumn[Int(s)], c0) == c { body(Int(s)) }
                }
            }
        }
    }

    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless every listed slot has a first cell that
    /// lists it at its level, no cell is empty or lists a slot twice, and no slot is both large and in a cell
    /// (swift-collections' `_checkInvariants()` pattern; `GEO_INTERNAL_CHECKS=1` compiles it in).
    /// Not run after every change, as the LRU cache's is: O(listed entries) per insert would
    /// make loading 100,000 regions quadratic. Tests call it after their changes.
    /// - Complexity: O(listed entries).
    @inline(never)
    func _checkInvariants() {
        let largeSet = Set(large)
        precondition(largeSet.count == large.count, "FenceIndex: a slot is listed twice as large")
        for s in large { precondition(level[Int(s)] == -1, "FenceIndex: large slot \(s) has a level") }
        for (k, grid) in levels.enumerated() {
            for (key, list) in grid.cells {
                precondition(!list.isEmpty, "FenceIndex: level \(k) cell \(key) is empty")
                precondition(Set(list).count == list.count, "FenceIndex: level \(k) cell \(key) lists a slot twice")
                for s in list {
                    precondition(Int(s) < firstRow.count && level[Int(s)] == k, "FenceIndex: slot \(s) in level \(k) cell \(key) is not of that level")
                    precondition(grid.cells[Self.key(firstRow[Int(s)], firstColumn[Int(s)])]?.contains(s) == true,
                                 "FenceIndex: slot \(s)'s first cell does not list it")
                    precondition(!largeSet.contains(s), "FenceIndex: slot \(s) is both large and in level \(k) cell \(key)")
                }
            }
        }
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the index's invariants.
    @inline(__always)
    func _checkInvariants() {}
    #endif
}
