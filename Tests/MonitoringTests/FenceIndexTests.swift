import Foundation
import GeoBase
@testable import Monitoring
import Testing

/// `FenceIndex` against a brute-force model: after random inserts and removals (small boxes,
/// boxes over `maximumCells`, boxes across the antimeridian), a query returns every slot whose
/// box meets the query box, each once, and the index keeps its invariants (empty cells go).
struct FenceIndexTests {
    struct Box { var south, west, north, east: Double }

    /// Whether two boxes meet (degrees; `west > east` crosses the antimeridian, which the index
    /// keeps in its large list and returns for every query).
    static func meets(_ a: Box, _ q: Box) -> Bool {
        if a.west > a.east { return true }
        return a.south <= q.north && q.south <= a.north && a.west <= q.east && q.west <= a.east
    }

    @Test func randomChanges_queriesFindEveryMeetingSlotOnce() {
        for seed in 0..<20 {
            var rng = SplitMix64(seed: UInt64(seed))
            var index = FenceIndex()
            var live: [Int: Box] = [:]
            for step in 0..<400 {
                let slot = Int(rng.next() % 40)
                if let box = live[slot], rng.next() % 3 == 0 {
                    index.remove(slot, south: box.south, west: box.west, north: box.north, east: box.east)
                    live[slot] = nil
                } else if live[slot] == nil {
                    let lat = rng.uniform(35.60, 35.70), lon = rng.uniform(139.70, 139.80)
                    let half = [0.0005, 0.004, 0.3][Int(rng.next() % 3)]   // ~50 m, ~400 m, over maximumCells
                    var box = Box(south: lat - half, west: lon - half, north: lat + half, east: lon + half)
                    if rng.next() % 25 == 0 { box.west = 179.9; box.east = -179.9 }
                    index.insert(slot, south: box.south, west: box.west, north: box.north, east: box.east)
                    live[slot] = box
                }
                index._checkInvariants()
                let lat = rng.uniform(35.60, 35.70), lon = rng.uniform(139.70, 139.80)
                let q = Box(south: lat - 0.001, west: lon - 0.001, north: lat + 0.001, east: lon + 0.001)
                var found: [Int] = []
                index.forEach(south: q.south, west: q.west, north: q.north, east: q.east) { found.append($0) }
                #expect(Set(found).count == found.count, "seed \(seed) step \(step): a slot returned twice")
                let expected = Set(live.filter { Self.meets($0.value, q) }.keys)
                // The grid may return near misses (cells are coarser than boxes), never miss one.
                #expect(expected.isSubset(of: Set(found)), "seed \(seed) step \(step): missing \(expected.subtracting(found))")
                #expect(Set(found).isSubset(of: Set(live.keys)), "seed \(seed) step \(step): a removed slot returned")
            }
        }
    }

    /// 10,000 random boxes (10 m to 30 km, a few across the antimeridian) against a linear scan
    /// over 1,000 queries:
    /// every query returns exactly the slots whose grid cells at their level meet the query's
    /// cells (and those across the antimeridian), each once — no miss, no slot from cells the query does not touch; a query
    /// over the whole area (past 4 × `maximumCells` cells) returns every slot once.
    @Test func tenThousandRandomBoxes_queriesEqualALinearScan() {
        var rng = SplitMix64(seed: 3535)
        var index = FenceIndex()
        var boxes: [Box] = []
        for slot in 0..<10_000 {
            let lat = rng.uniform(48, 48.5), lon = rng.uniform(2, 2.5)
            let half = [0.0001, 0.001, 0.004, 0.02, 0.15][Int(rng.next() % 5)]
            var box = Box(south: lat - half, west: lon - half, north: lat + half, east: lon + half)
            if rng.next() % 500 == 0 { box.west = 179.9; box.east = -179.9 }
            index.insert(slot, south: box.south, west: box.west, north: box.north, east: box.east)
            boxes.append(box)
        }
        index._checkInvariants()
        // A box's level: the finest grid where it covers at most `maximumCells` cells (nil
        // across the antimeridian: returned for every query).
        let sides = (0..<FenceIndex.levelCount).map { FenceIndex.cellDegrees * pow(Double(FenceIndex.levelRatio), Double($0)) }
        func cell(_ d: Double, _ side: Double) -> Int { Int((d / side).rounded(.down)) }
        func side(_ b: Box) -> Double? {
            b.west > b.east ? nil : sides.first { s in (cell(b.north, s) - cell(b.south, s) + 1) * (cell(b.east, s) - cell(b.west, s) + 1) <= FenceIndex.maximumCells }
        }
        #expect(boxes.contains { side($0) == sides[1] }, "no box of the second level: the test says little")
        var returned = 0
        for q in 0..<1_000 {
            let lat = rng.uniform(47.9, 48.6), lon = rng.uniform(1.9, 2.6), half = rng.uniform(0, 0.01)
            let query = Box(south: lat - half, west: lon - half, north: lat + half, east: lon + half)
            var found: [Int] = []
            index.forEach(south: query.south, west: query.west, north: query.north, east: query.east) { found.append($0) }
            let expected = (0..<boxes.count).filter { s in
                let b = boxes[s]
                guard let d = side(b) else { return true }
                return cell(b.south, d) <= cell(query.north, d) && cell(query.south, d) <= cell(b.north, d)
                    && cell(b.west, d) <= cell(query.east, d) && cell(query.west, d) <= cell(b.east, d)
            }
            #expect(found.count == Set(found).count, "query \(q): a slot returned twice")
            #expect(Set(found) == Set(expected), "query \(q): \(Set(found).symmetricDifference(expected).sorted().prefix(5))")
            returned += found.count
        }
        #expect(returned > 10_000, "only \(returned) slots over 1,000 queries: the boxes say little")
        var all: [Int] = []
        index.forEach(south: -80, west: -170, north: 80, east: 170) { all.append($0) }
        #expect(all.count == boxes.count && Set(all).count == boxes.count)
    }

    /// 2,000 districts of 20–40 km over a country (5° × 10°): a fix's query returns those near
    /// it, not all of them (before the coarser grids, every region over ~15 km across was
    /// returned for every query), and never misses one whose box holds the fix.
    @Test func largeRegions_onlyThoseNearAFix() {
        var rng = SplitMix64(seed: 35)
        var index = FenceIndex()
        var boxes: [Box] = []
        for slot in 0..<2_000 {
            let lat = rng.uniform(45, 50), lon = rng.uniform(5, 15), half = rng.uniform(0.1, 0.2)
            let box = Box(south: lat - half, west: lon - half, north: lat + half, east: lon + half)
            index.insert(slot, south: box.south, west: box.west, north: box.north, east: box.east)
            boxes.append(box)
        }
        index._checkInvariants()
        var most = 0
        for _ in 0..<200 {
            let lat = rng.uniform(45, 50), lon = rng.uniform(5, 15)
            var found: [Int] = []
            index.forEach(south: lat - 0.0005, west: lon - 0.0005, north: lat + 0.0005, east: lon + 0.0005) { found.append($0) }
            let holding = Set((0..<boxes.count).filter { boxes[$0].south <= lat && lat <= boxes[$0].north && boxes[$0].west <= lon && lon <= boxes[$0].east })
            #expect(holding.isSubset(of: Set(found)), "missing \(holding.subtracting(found))")
            most = max(most, found.count)
        }
        // A 0.04° cell and the boxes over it: a few dozen at most, not 2,000.
        #expect(most < 100, "a query returned \(most) of 2,000 regions")
    }
}
