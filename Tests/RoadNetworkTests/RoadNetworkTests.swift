import GeoCore
import GeoTestSupport
@testable import RoadNetwork
import Testing

// MARK: Profiles

@Test func maxspeed_parsesUnitsAndZones() {
    #expect(Profile.parseMaxspeed("50") == .kilometersPerHour(50))
    #expect(abs((Profile.parseMaxspeed("30 mph")?.kilometersPerHour ?? 0) - 48.27) < 0.01)   // km/h
    #expect(abs((Profile.parseMaxspeed("20mph")?.kilometersPerHour ?? 0) - 32.18) < 0.01)
    #expect(abs((Profile.parseMaxspeed("10 knots")?.kilometersPerHour ?? 0) - 18.52) < 0.01)
    #expect(Profile.parseMaxspeed("RU:urban") == .kilometersPerHour(60))
    #expect(Profile.parseMaxspeed("XX:urban") == .kilometersPerHour(50))     // falls back to the zone default
    #expect(Profile.parseMaxspeed("FR:motorway") == .kilometersPerHour(130))
    #expect(Profile.parseMaxspeed("none") == .kilometersPerHour(140))
    #expect(Profile.parseMaxspeed("fast") == nil)
    #expect(Profile.parseMaxspeed("900") == nil)          // absurd
}

@Test func carProfile_onewayVariants() throws {
    let car = Profile.car
    let yes = try #require(car.attributes(ofWay: ["highway": "residential", "oneway": "yes"]))
    #expect(yes.forward != nil && yes.backward == nil)
    let reverse = try #require(car.attributes(ofWay: ["highway": "residential", "oneway": "-1"]))
    #expect(reverse.forward == nil && reverse.backward != nil)
    let roundabout = try #require(car.attributes(ofWay: ["highway": "primary", "junction": "roundabout"]))
    #expect(roundabout.backward == nil && roundabout.isRoundabout)
    let motorway = try #require(car.attributes(ofWay: ["highway": "motorway"]))
    #expect(motorway.backward == nil)
    let twoWayMotorway = try #require(car.attributes(ofWay: ["highway": "motorway", "oneway": "no"]))
    #expect(twoWayMotorway.backward != nil)
    // Foot ignores plain oneway but honours oneway:foot.
    let foot = try #require(Profile.foot.attributes(ofWay: ["highway": "residential", "oneway": "yes"]))
    #expect(foot.backward != nil)
    let footOneway = try #require(Profile.foot.attributes(ofWay: ["highway": "footway", "oneway:foot": "yes"]))
    #expect(footOneway.backward == nil)
}

@Test func carProfile_speedsAccessAndAvoidance() throws {
    let car = Profile.car
    let primary = try #require(car.attributes(ofWay: ["highway": "primary"]))
    #expect(abs((primary.forward?.speed.kilometersPerHour ?? 0) - 65) < 1e-9)              // km/h
    let limited = try #require(car.attributes(ofWay: ["highway": "primary", "maxspeed": "50"]))
    #expect(abs((limited.forward?.speed.kilometersPerHour ?? 0) - 40) < 1e-9)              // 0.8 × 50 km/h
    let mph = try #require(car.attributes(ofWay: ["highway": "primary", "maxspeed": "30 mph"]))
    #expect(abs((mph.forward?.speed.kilometersPerHour ?? 0) - 30 * 1.609 * 0.8) < 1e-9)
    let cobbles = try #require(car.attributes(ofWay: ["highway": "primary", "surface": "cobblestone"]))
    #expect(abs((cobbles.forward?.speed.kilometersPerHour ?? 0) - 30) < 1e-9)
    #expect(car.attributes(ofWay: ["highway": "footway"]) == nil)
    #expect(car.attributes(ofWay: ["highway": "steps"]) == nil)
    #expect(car.attributes(ofWay: ["highway": "residential", "access": "no"]) == nil)
    #expect(car.attributes(ofWay: ["highway": "residential", "motor_vehicle": "no", "access": "yes"]) == nil)
    #expect(car.attributes(ofWay: ["highway": "residential", "access": "no", "motorcar": "yes"]) != nil)
    #expect(car.attributes(ofWay: ["highway": "residential", "area": "yes"]) == nil)
    // Walkers cross pedestrian squares (OSRM's foot profile does not avoid areas).
    #expect(Profile.foot.attributes(ofWay: ["highway": "pedestrian", "area": "yes"]) != nil)
    #expect(Profile.foot.attributes(ofWay: ["highway": "primary", "motorroad": "yes"]) == nil)
    let privateRoad = try #require(car.attributes(ofWay: ["highway": "service", "access": "private"]))
    #expect(privateRoad.forward?.isRestricted == true)
    let ferry = try #require(car.attributes(ofWay: ["route": "ferry"]))
    #expect(ferry.forward?.mode == .ferry && abs((ferry.forward?.speed.kilometersPerHour ?? 0) - 5) < 1e-9)
    let alley = try #require(car.attributes(ofWay: ["highway": "service", "service": "alley"]))
    #expect(abs((alley.forward?.rateFactor ?? 0) - 0.5) < 1e-9)
    #expect(Profile.foot.attributes(ofWay: ["highway": "motorway"]) == nil)
    #expect(Profile.foot.attributes(ofWay: ["highway": "steps"]) != nil)
    let pushed = try #require(Profile.bicycle.attributes(ofWay: ["highway": "footway"]))
    #expect(pushed.forward?.mode == .pushingBike)
    // Against a oneway a bicycle is pushed at 4 km/h; not round a roundabout, not by car.
    let against = try #require(Profile.bicycle.attributes(ofWay: ["highway": "residential", "oneway": "yes"]))
    #expect(against.forward?.mode == .cycling && against.backward?.mode == .pushingBike)
    #expect(abs((against.backward?.speed.kilometersPerHour ?? 0) - 4) < 1e-9)   // km/h
    #expect(Profile.bicycle.attributes(ofWay: ["highway": "residential", "junction": "roundabout"])?.backward == nil)
    #expect(Profile.car.attributes(ofWay: ["highway": "residential", "oneway": "yes"])?.backward == nil)
}

@Test func profiles_barriers() {
    #expect(Profile.car.attributes(ofNode: ["barrier": "bollard"]).isBarrier)
    #expect(!Profile.car.attributes(ofNode: ["barrier": "cattle_grid"]).isBarrier)
    #expect(!Profile.car.attributes(ofNode: ["barrier": "gate"]).isBarrier)
    #expect(Profile.car.attributes(ofNode: ["barrier": "gate"]).penalty == .seconds(60))
    #expect(!Profile.foot.attributes(ofNode: ["barrier": "bollard"]).isBarrier)
    #expect(Profile.foot.attributes(ofNode: ["barrier": "wall"]).isBarrier)
    #expect(Profile.car.attributes(ofNode: ["highway": "traffic_signals"]).penalty == .seconds(2))
}

@Test func profiles_keepOSRMNumbersInTypedUnits() {
    #expect(Profile.car.highwaySpeeds["motorway"] == .kilometersPerHour(90))
    #expect(Profile.car.surfaceSpeeds["cobblestone"] == .kilometersPerHour(30))
    #expect(Profile.foot.defaultSpeed == .kilometersPerHour(5))
    #expect(Profile.bicycle.maxSpeed == .kilometersPerHour(21) && Profile.bicycle.pushingAgainstOnewaySpeed == .kilometersPerHour(4))
    #expect(Profile.car.barrierPenalties["gate"] == .seconds(60) && Profile.car.giveWayPenalty == .seconds(1))
    let car = Profile.car.turnCosts
    #expect(car.turnPenalty == .seconds(7.5) && car.oncomingTurnPenalty == .seconds(2) && car.uTurnPenalty == .seconds(20))
    #expect(Profile.foot.turnCosts.uTurnPenalty == .seconds(2))
    // car.lua process_turn, evaluated by hand: a U-turn is 20 s plus the sharpest-turn sigmoid
    // (7.4548 s); a 90° left turn at a T is 7.5 s's sigmoid plus 2 s × the oncoming sharpness.
    let uTurn = car.duration(angle: 180, roadCount: 1, isUTurn: true, involvesRoundabout: false)
    #expect(abs(uTurn / .seconds(1) - 27.4548) < 1e-4)   // seconds
    let left = car.duration(angle: -90, roadCount: 3, isUTurn: false, involvesRoundabout: false)
    #expect(abs(left / .seconds(1) - 7.3201) < 1e-4)     // seconds
    #expect(car.duration(angle: 90, roadCount: 2, isUTurn: false, involvesRoundabout: false) == .zero)   // no junction
    var model = car
    model.uTurnPenalty = .seconds(30)
    #expect(model.uTurnPenalty == .seconds(30) && model != car)
}

// MARK: Builder

@Test func builder_compressesDegreeTwoNodesIntoShape() throws {
    var map = AsciiRoadMap("""
        a b c d
              e
        """, gridSize: 100)
    map.way("abcd", ["highway": "residential"])
    map.way("de", ["highway": "residential", "oneway": "yes"])
    let (graph, report) = map.graph(profile: .car)
    #expect(report.waysRoutable == 2)
    #expect(graph.nodeCount == 3)          // a, d, e: b and c are shape points
    #expect(graph.segmentCount == 2)
    #expect(graph.edgeCount == 3)          // a↔d both ways, d→e only
    let ad = try #require(graph.edges.first { graph.wayID(of: $0) == 1 })
    #expect(graph.geometry(of: ad).count == 4)
    #expect(abs(graph.length(of: ad).meters - 600) < 0.01)   // 6 columns × 100 m
    let de = try #require(graph.edges.first { graph.wayID(of: $0) == 2 })
    #expect(graph.twin(of: de) == nil)
    #expect(abs(graph.length(of: de).meters - 100) < 0.01)
    let expectedSeconds: Double = 100 / (25 / 3.6)
    let seconds = graph.duration(of: de).seconds
    #expect(abs(seconds - expectedSeconds) < 0.01)
}

@Test func builder_trimsWaysAtMissingNodes() {
    var map = AsciiRoadMap("""
        a b   d e
        """)
    map.way("abcde")          // c is not drawn: the way is cut into a–b and d–e
    map.way("xy")             // no known node at all
    let (graph, report) = map.graph(profile: .car)
    #expect(report.missingNodeReferences == 3)
    #expect(report.waysTrimmed == 2)
    #expect(report.waysDropped == 1)
    #expect(graph.segmentCount == 2)
}

@Test func builder_countsAbsurdTagsAndIgnoredRestrictions() {
    var map = AsciiRoadMap("a b c")
    let ab = map.way("ab", ["highway": "primary", "maxspeed": "warp 9"])
    let bc = map.way("bc")
    map.restriction(from: ab, via: "b", to: bc, "no_straight_on")
    map.restriction(from: ab, via: "b", to: 99, "no_left_turn")   // unknown to-way
    map.restriction(from: ab, via: "b", to: bc, "maybe_turn")      // not no_/only_
    let (graph, report) = map.graph(profile: .car)
    #expect(report.ignoredTags == 1)
    #expect(report.restrictionsSeen == 3)
    #expect(report.restrictionsApplied == 1)
    #expect(report.restrictionsIgnored == 2)
    #expect(graph.restrictionCount == 1)
}

// MARK: File format

@Test func graphFile_roundTripKeepsEveryColumn() throws {
    let graph = crossroads().graph
    let bytes = graph.serialized()
    let back = try RoadGraph(serialized: bytes)
    #expect(back.serialized() == bytes)
    #expect(back.nodeCount == graph.nodeCount && back.edgeCount == graph.edgeCount)
    #expect(back.names == graph.names)
    #expect(back.restrictions == graph.restrictions)
    #expect(back.turnCosts == graph.turnCosts && back.profileName == "car")
    #expect(back.names.contains("Côte"))
}

@Test func graphFile_rejectsBadMagicVersionChecksumAndTruncation() throws {
    let bytes = crossroads().graph.serialized()
    var magic = bytes
    magic[0] = UInt8(ascii: "X")
    #expect(throws: RoadNetworkError.self) { try RoadGraph(serialized: magic) }
    do { _ = try RoadGraph(serialized: magic) } catch { #expect(error.code == .badMagic && error.offset == 0) }

    var version = bytes
    version[4] = 9
    do { _ = try RoadGraph(serialized: version); Issue.record("version 9 accepted") } catch { #expect(error.code == .unsupportedVersion) }

    var flipped = bytes
    flipped[bytes.count / 2] ^= 0x40
    do { _ = try RoadGraph(serialized: flipped); Issue.record("corrupted payload accepted") } catch { #expect(error.code == .checksumMismatch) }

    for cut in [0, 3, 10, 24, bytes.count / 3, bytes.count - 1] {
        do { _ = try RoadGraph(serialized: Array(bytes.prefix(cut))); Issue.record("truncation at \(cut) accepted") } catch {
            #expect(error.code == .truncated, "cut at \(cut): \(error)")
        }
    }
}

/// `g` assembled again from its columns through the file reader's checks, with some replaced.
private func reassembled(_ g: RoadGraph, turnCosts: TurnCostModel? = nil, nodeLatitudes: ContiguousArray<Int32>? = nil,
                         edgeWeights: ContiguousArray<Float>? = nil, shapeOffsets: ContiguousArray<UInt32>? = nil,
                         grid: SpatialIndex.Grid? = nil) throws(RoadNetworkError) -> RoadGraph {
    try RoadGraph(
        profileName: g.profileName, turnCosts: turnCosts ?? g.turnCosts,
        nodeLatitudes: nodeLatitudes.map(GraphColumn.init) ?? g.nodeLatitudes, nodeLongitudes: g.nodeLongitudes, nodeOSMIDs: g.nodeOSMIDs,
        nodeFlags: g.nodeFlags, nodePenalties: g.nodePenalties, nodeRoadCounts: g.nodeRoadCounts,
        firstEdge: g.firstEdge, firstIncoming: g.firstIncoming, incomingEdges: g.incomingEdges,
        edgeSources: g.edgeSources, edgeTargets: g.edgeTargets, edgeSegments: g.edgeSegments,
        edgeDurations: g.edgeDurations, edgeWeights: edgeWeights.map(GraphColumn.init) ?? g.edgeWeights, edgeSpeeds: g.edgeSpeeds,
        edgeFlags: g.edgeFlags, edgeModes: g.edgeModes, edgeTwins: g.edgeTwins,
        edgeStartBearings: g.edgeStartBearings, edgeEndBearings: g.edgeEndBearings,
        shapeOffsets: shapeOffsets.map(GraphColumn.init) ?? g.shapeOffsets, shapeLatitudes: g.shapeLatitudes, shapeLongitudes: g.shapeLongitudes,
        shapeOSMIDs: g.shapeOSMIDs, segmentLengths: g.segmentLengths, segmentWayIDs: g.segmentWayIDs, segmentNames: g.segmentNames,
        segmentClasses: g.segmentClasses, names: g.names, restrictions: g.restrictions, grid: grid ?? g.grid)
}

/// Columns a file with a valid CRC may still get wrong: each a `.corrupt` error naming the
/// element, never a trap (issue 36: a shape offset of 0xFFFFFFFF overflowed `offset + 2`).
@Test func graphFile_columnsOutOfRange_areCorruptErrorsNotTraps() throws {
    let g = crossroads().graph
    #expect(try reassembled(g).serialized() == g.serialized())
    func message(_ build: () throws(RoadNetworkError) -> RoadGraph) -> String? {
        do { _ = try build(); return nil } catch { return error.code == .corrupt ? error.message : "\(error.code)" }
    }
    var offsets = ContiguousArray(g.shapeOffsets)
    offsets[1] = UInt32.max
    #expect(message { () throws(RoadNetworkError) in try reassembled(g, shapeOffsets: offsets) } == "segment 1 has fewer than two points")
    var latitudes = ContiguousArray(g.nodeLatitudes)
    latitudes[0] = 900_000_001 // 90.0000001°
    #expect(message { () throws(RoadNetworkError) in try reassembled(g, nodeLatitudes: latitudes) } == "node 0 lies outside ±90° latitude or ±180° longitude")
    for bad: Float in [.nan, -1, .infinity] {
        var weights = ContiguousArray(g.edgeWeights)
        weights[0] = bad
        #expect(message { () throws(RoadNetworkError) in try reassembled(g, edgeWeights: weights) }
                == "edge 0 has a duration, weight or speed that is negative or not a number", "weight \(bad)")
    }
    let nanTurns = TurnCostModel(turnPenalty: .seconds(7.5), turnBias: .nan, oncomingTurnPenalty: .seconds(2), uTurnPenalty: .seconds(20))
    #expect(message { () throws(RoadNetworkError) in try reassembled(g, turnCosts: nanTurns) } == "the turn costs are negative, not numbers or over a day")
}

/// A stored spatial grid a file with a valid CRC may still get wrong: a `.corrupt` error, never
/// a trap or a query out of range.
@Test func graphFile_brokenSpatialGrid_isACorruptError() throws {
    let g = try RoadGraph(serialized: crossroads().graph.serialized())
    let grid = try #require(g.grid)
    func message(_ change: (inout (size: Double, latitude: Double, items: ContiguousArray<UInt32>, offsets: ContiguousArray<Double>)) -> Void) -> String? {
        var parts = (size: grid.cellSize, latitude: grid.referenceLatitude, items: ContiguousArray(grid.cellItems), offsets: ContiguousArray(grid.pieceOffsets))
        change(&parts)
        let broken = SpatialIndex.Grid(cellSize: parts.size, referenceLatitude: parts.latitude, cellKeys: grid.cellKeys,
                                       cellStarts: grid.cellStarts, cellItems: GraphColumn(parts.items), pieceOffsets: GraphColumn(parts.offsets))
        do { _ = try reassembled(g, grid: broken); return nil } catch { return error.code == .corrupt ? error.message : "\(error.code)" }
    }
    #expect(message { _ in } == nil)
    #expect(message { $0.size = 0 } == "spatial grid: cell size 0.0 m")
    #expect(message { $0.latitude = .nan } == "spatial grid: reference latitude nan")
    #expect(message { $0.items[0] = UInt32(g.shapeLatitudes.count) } == "spatial grid: item \(g.shapeLatitudes.count) is not the first point of a piece")
    #expect(message { $0.items[0] = g.shapeOffsets[1] - 1 } == "spatial grid: item \(g.shapeOffsets[1] - 1) is not the first point of a piece")
    #expect(message { $0.offsets[1] = .nan } == "spatial grid: offsets decrease at point 1")
    #expect(message { $0.offsets.removeLast() } == "spatial grid: \(g.shapeLatitudes.count - 1) offsets for \(g.shapeLatitudes.count) shape points")
}

// MARK: Spatial index

/// A seeded linear congruential generator (Knuth MMIX constants), for repeatable sweeps.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}

/// A 20 × 20 grid of jittered nodes ~1 km across, its south-west corner at `origin` (1e-7 degrees).
private func randomGridGraph(seed: UInt64, origin: (latitude: Int32, longitude: Int32) = (436_000_000, 74_000_000)) -> RoadGraph {
    var rng = SeededGenerator(state: seed)
    var builder = RoadGraphBuilder(profile: .car)
    let n = 20
    for i in 0..<n {
        for j in 0..<n {
            let jitterLat = Int32.random(in: -3000...3000, using: &rng), jitterLon = Int32.random(in: -3000...3000, using: &rng)
            builder.addNode(id: Int64(i * n + j), latitudeE7: origin.latitude + Int32(i) * 9000 + jitterLat,
                            longitudeE7: origin.longitude + Int32(j) * 12000 + jitterLon)
        }
    }
    var wayID: Int64 = 1
    for i in 0..<n {
        for j in 0..<(n - 1) where Bool.random(using: &rng) || i % 3 == 0 {
            builder.addWay(id: wayID, nodeIDs: [Int64(i * n + j), Int64(i * n + j + 1)],
                           tags: ["highway": "residential", "oneway": Bool.random(using: &rng) ? "yes" : "no"])
            wayID += 1
        }
    }
    for j in 0..<n {
        builder.addWay(id: wayID, nodeIDs: (0..<n).map { Int64($0 * n + j) }, tags: ["highway": "primary"])
        wayID += 1
    }
    return builder.build().graph
}

/// Also across the equator and the prime meridian, where cell rows and columns change sign
/// (a row's cell keys wrap there: `SpatialIndex.edges(near:within:)` walks them in two runs).
@Test(.onOwnThread) func spatialIndex_matchesBruteForceOnSeededSweep() throws {
    for seed in UInt64(1)...3 {
        for origin: (latitude: Int32, longitude: Int32) in [(436_000_000, 74_000_000), (-100_000, -110_000)] {
            let graph = randomGridGraph(seed: seed, origin: origin)
            let index = SpatialIndex(graph: graph, cellSize: .meters(40))
            var rng = SeededGenerator(state: seed * 7919)
            for _ in 0..<300 {
                let p = Coordinate(uncheckedLatitude: Double(origin.latitude) / 1e7 - 0.0005 + Double.random(in: 0...0.019, using: &rng),
                                   longitude: Double(origin.longitude) / 1e7 - 0.0005 + Double.random(in: 0...0.024, using: &rng))
                let r = Distance(meters: Double.random(in: 1...250, using: &rng))
                let fast = index.edges(near: p, within: r)
                let slow = index.bruteForceEdges(near: p, within: r)
                #expect(fast.map(\.edge) == slow.map(\.edge), "seed \(seed) at \(p) r \(r)")
                for (a, b) in zip(fast, slow) {
                    #expect(abs(a.distance.meters - b.distance.meters) < 1e-6)   // metres
                    #expect(abs(a.fraction - b.fraction) < 1e-9)
                }
                for (a, b) in zip(fast, fast.dropFirst()) { #expect(a.distance <= b.distance) }
            }
        }
    }
}

/// A graph read from a file takes the grid `geo extract` stored (format 4) instead of building
/// one, and answers every query exactly as an index built from the graph in memory; a graph
/// in memory has none, and another cell size is built as before.
@Test(.onOwnThread) func spatialIndex_storedGridAnswersAsTheBuiltIndex() throws {
    let built = randomGridGraph(seed: 5)
    #expect(built.grid == nil)
    let read = try RoadGraph(serialized: built.serialized())
    let stored = try #require(read.grid)
    let fresh = SpatialIndex(graph: built), loaded = SpatialIndex(graph: read)
    #expect(stored.cellSize == SpatialIndex.defaultCellSize)
    #expect(loaded.cellKeys == fresh.cellKeys && loaded.cellStarts == fresh.cellStarts && loaded.cellItems == fresh.cellItems)
    #expect(loaded.pieceOffsets == fresh.pieceOffsets && loaded.pieceSegments == fresh.pieceSegments && loaded.segmentEdges == fresh.segmentEdges)
    #expect(loaded.cellLatitude == fresh.cellLatitude && loaded.cellLongitude == fresh.cellLongitude)
    var rng = SeededGenerator(state: 42)
    for _ in 0..<200 {
        let p = Coordinate(uncheckedLatitude: 43.5995 + Double.random(in: 0...0.019, using: &rng),
                           longitude: 7.3995 + Double.random(in: 0...0.024, using: &rng))
        let r = Distance(meters: Double.random(in: 1...250, using: &rng))
        #expect(loaded.edges(near: p, within: r) == fresh.edges(near: p, within: r), "at \(p) r \(r)")
    }
    let other = SpatialIndex(graph: read, cellSize: .meters(40))
    #expect(other.cellSize == 40 && other.cellKeys == SpatialIndex(graph: built, cellSize: .meters(40)).cellKeys)
}

@Test func spatialIndex_snapsPartWayWithFraction() throws {
    var map = AsciiRoadMap("""
        a   1   b
        """, gridSize: 25)
    map.way("ab", ["highway": "residential", "oneway": "yes"])
    let (graph, _) = map.graph(profile: .car)
    let index = SpatialIndex(graph: graph)
    let p = try #require(map.coordinate("1"))
    let snaps = index.nearestEdges(to: p)
    #expect(snaps.count == 1)                                  // oneway: one direction only
    let snap = try #require(snaps.first)
    #expect(abs(snap.fraction - 0.5) < 1e-6)
    #expect(snap.distance.meters < 0.01)                       // metres
    #expect(index.edges(near: p, within: .meters(1)).count == 1)
    let far = Coordinate(uncheckedLatitude: p.latitude + 0.01, longitude: p.longitude)   // ~1.1 km north
    #expect(index.edges(near: far, within: .meters(500)).isEmpty)
    #expect(index.nearestEdges(to: far, maxDistance: .meters(500)).isEmpty)
    #expect(abs((index.nearestEdges(to: far).first?.distance.meters ?? 0) - 1106) < 5)
}

// MARK: Start points

@Test func startPoints_followOSRMsProfiles() throws {
    // OSRM WayHandlers.startpoint: a direction in the profile's start modes (car driving,
    // foot walking, bicycle cycling or pushing), and for cars no service road with access=private.
    func isStart(_ profile: Profile, _ tags: [String: String]) throws -> Bool {
        try #require(profile.attributes(ofWay: tags), "\(profile.name) \(tags)").isStartPoint
    }
    #expect(try !isStart(.car, ["route": "ferry"]))
    #expect(try !isStart(.car, ["route": "shuttle_train"]))
    #expect(try isStart(.car, ["highway": "residential"]))
    #expect(try isStart(.car, ["highway": "residential", "oneway": "yes"]))
    #expect(try !isStart(.car, ["highway": "service", "access": "private"]))
    #expect(try isStart(.car, ["highway": "service", "access": "destination"]))
    #expect(try isStart(.car, ["highway": "residential", "access": "private"]))
    #expect(try !isStart(.foot, ["route": "ferry"]))
    #expect(try isStart(.foot, ["highway": "footway"]))
    #expect(try !isStart(.bicycle, ["route": "ferry"]))
    #expect(try isStart(.bicycle, ["highway": "footway"]))   // pushed
}

@Test func graphFile_keepsStartPointsAndRefusesVersion1() throws {
    var map = AsciiRoadMap("""
        a   b   c
        """, gridSize: 10)
    map.way("ab", ["highway": "residential"])
    map.way("bc", ["route": "ferry"])
    let graph = map.graph(profile: .car).graph
    let ferry = graph.edges.filter { graph.mode(of: $0) == .ferry }
    #expect(ferry.count == 2 && ferry.allSatisfy { graph.flags(of: $0).contains(.notStartPoint) })
    #expect(graph.edges.filter { graph.flags(of: $0).contains(.notStartPoint) }.count == 2)
    let bytes = graph.serialized()
    let back = try RoadGraph(serialized: bytes)
    #expect(back.edges.map { back.flags(of: $0) } == graph.edges.map { graph.flags(of: $0) })
    // A version-1 file has no start-point flags: it is refused, not read with ferries as starts.
    var old = bytes
    old[4] = 1
    do { _ = try RoadGraph(serialized: old); Issue.record("version 1 accepted") } catch {
        #expect(error.code == .unsupportedVersion && error.offset == 4)
        #expect("\(error)".contains("extract the graph again"))
    }
}
