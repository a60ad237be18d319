import Platform
import GeoCore

/// A uniform latitude/longitude grid over the regions' bounds, so a fix only looks at the
/// regions near it.
///
/// Cells are ``cellDegrees`` on a side (about 280 m north–south: with 100,000 regions of 50–500 m,
/// `Benchmarks/monitor.sh`, 0.01° cells ran 115,000 fixes/s and these 152,000). A region is
/// listed in every cell its bounds touch; one that would touch more than ``maximumCells`` cells
/// (a region over about 15 km across, or one across the antimeridian) is kept in a short list
/// every query returns instead. A query returns each region whose cells meet the query box once:
/// in the first cell (lowest row, then column) that both cover — so a query changes nothing, and
/// copies of an engine share one index (the tracking server holds one engine per device).
/// - Complexity: insert O(cells covered); query O(cells in the box + regions found).
struct FenceIndex: Sendable {
    static let cellDegrees = 0.0025
    static let maximumCells = 4_096

    private var cells: [Int64: [Int32]] = [:]
    private var large: [Int32] = []
    /// Per slot, the row and column of its first cell (its bounds' south-west corner).
    private var firstRow: [Int32] = [], firstColumn: [Int32] = []

    /// The row or column of a latitude or longitude. Bounds past the poles or the antimeridian
    /// (a circle of 10¹⁵ m reaches 9·10⁹° north) are taken at ±180°, the grid's edge, so the
    /// cell fits an `Int32` (±72,000 at 0.0025°) whatever the region's size.
    private static func cell(_ degrees: Double) -> Int32 {
        Int32((min(max(degrees, -180), 180) / cellDegrees).rounded(.down))
    }
    private static func key(_ row: Int32, _ column: Int32) -> Int64 { Int64(row) << 32 | Int64(UInt32(bitPattern: column)) }

    /// Lists `slot` over the bounds (degrees; `west > east` across the antimeridian).
    mutating func insert(_ slot: Int, south: Double, west: Double, north: Double, east: Double) {
        if slot >= firstRow.count {
            firstRow.append(contentsOf: repeatElement(0, count: slot + 1 - firstRow.count))
            firstColumn.append(contentsOf: repeatElement(0, count: slot + 1 - firstColumn.count))
        }
        let (r0, r1, c0, c1) = (Self.cell(south), Self.cell(north), Self.cell(west), Self.cell(east))
        guard west <= east, (Int(r1) - Int(r0) + 1) * (Int(c1) - Int(c0) + 1) <= Self.maximumCells else {
            large.append(Int32(slot))
            return
        }
        (firstRow[slot], firstColumn[slot]) = (r0, c0)
        for r in r0...r1 { for c in c0...c1 { cells[Self.key(r, c), default: []].append(Int32(slot)) } }
    }

    /// Unlists `slot` (given the bounds it was inserted with).
    mutating func remove(_ slot: Int, south: Double, west: Double, north: Double, east: Double) {
        let s = Int32(slot)
        if let i = large.firstIndex(of: s) {
            large.remove(at: i)
        } else {
            let (r0, r1, c0, c1) = (Self.cell(south), Self.cell(north), Self.cell(west), Self.cell(east))
            for r in r0...r1 {
                for c in c0...c1 {
                    let k = Self.key(r, c)
                    cells[k]?.removeAll { $0 == s }
                    // An emptied cell goes, so regions added and removed for days leave no trace.
                    if cells[k]?.isEmpty == true { cells[k] = nil }
                }
            }
        }
    }

    /// Calls `body` once for every slot listed in a cell the box meets (degrees; the box is
    /// clamped to the poles and taken without wrapping across the antimeridian).
    func forEach(south: Double, west: Double, north: Double, east: Double, _ body: (Int) -> Void) {
        for s in large { body(Int(s)) }
        let (r0, r1) = (Self.cell(max(south, -90)), Self.cell(min(north, 90)))
        let (c0, c1) = (Self.cell(west), Self.cell(east))
        guard (Int(r1) - Int(r0) + 1) * (Int(c1) - Int(c0) + 1) <= 4 * Self.maximumCells else {
            // A box this large (fixes hundreds of kilometres apart): every listed slot, in its first cell.
            for (key, list) in cells {
                let (r, c) = (Int32(truncatingIfNeeded: key >> 32), Int32(truncatingIfNeeded: key))
                for s in list where firstRow[Int(s)] == r && firstColumn[Int(s)] == c { body(Int(s)) }
            }
            return
        }
        for r in r0...r1 {
            for c in c0...c1 {
                guard let list = cells[Self.key(r, c)] else { continue }
                // The first cell both cover: the later of the two first rows and columns.
                for s in list where max(firstRow[Int(s)], r0) == r && max(firstColumn[Int(s)], c0) == c { body(Int(s)) }
            }
        }
    }

    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless every listed slot has a first cell that
    /// lists it, no cell is empty or lists a slot twice, and no slot is both large and in a cell
    /// (swift-collections' `_checkInvariants()` pattern; `GEO_INTERNAL_CHECKS=1` compiles it in).
    /// Not run after every change, as the LRU cache's is: O(listed entries) per insert would
    /// make loading 100,000 regions quadratic. Tests call it after their changes.
    /// - Complexity: O(listed entries).
    @inline(never)
    func _checkInvariants() {
        let largeSet = Set(large)
        precondition(largeSet.count == large.count, "FenceIndex: a slot is listed twice as large")
        for (key, list) in cells {
            precondition(!list.isEmpty, "FenceIndex: cell \(key) is empty")
            precondition(Set(list).count == list.count, "FenceIndex: cell \(key) lists a slot twice")
            for s in list {
                precondition(Int(s) < firstRow.count, "FenceIndex: slot \(s) in cell \(key) has no first cell")
                precondition(cells[Self.key(firstRow[Int(s)], firstColumn[Int(s)])]?.contains(s) == true,
                             "FenceIndex: slot \(s)'s first cell does not list it")
                precondition(!largeSet.contains(s), "FenceIndex: slot \(s) is both large and in cell \(key)")
            }
        }
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the index's invariants.
    @inline(__always)
    func _checkInvariants() {}
    #endif
}
