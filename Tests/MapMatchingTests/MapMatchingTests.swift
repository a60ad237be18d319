import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing

// Scenes drawn as ASCII road maps (GeoTestSupport.AsciiRoadMap); drives are simulated along
// them at 1 Hz with seeded Gaussian noise, so each expectation is about the model's behaviour.

/// Fixes every `interval` seconds along `path` at `speed` m/s, with seeded Gaussian noise of
/// `noise` metres per axis, starting at `start` seconds.
func drive(_ path: [Coordinate], speed: Double, interval: Double = 1, noise: Double = 0, seed: UInt64 = 7,
           start: Double = 1_700_000_000, stopAt: Double? = nil, stopSeconds: Double = 0) -> [TracePoint] {
    var lengths = [0.0]
    for i in 1..<path.count { lengths.append(lengths[i - 1] + LocalFrame.distance(path[i - 1], path[i])) }
    let total = lengths[lengths.count - 1]
    var rng = SplitMix64(seed: seed)
    var out: [TracePoint] = []
    var t = 0.0
    while true {
        var along = t * speed
        if let stopAt {
            if along > stopAt { along = max(stopAt, (t - stopSeconds) * speed) }
        }
        if along > total { break }
        var k = 1
        while k < lengths.count - 1, lengths[k] < along { k += 1 }
        let span = lengths[k] - lengths[k - 1]
        let f = span > 0 ? (along - lengths[k - 1]) / span : 0
        let a = path[k - 1], b = path[k]
        let exact = Coordinate(uncheckedLatitude: a.latitude + f * (b.latitude - a.latitude),
                               longitude: a.longitude + f * (b.longitude - a.longitude))
        let frame = LocalFrame(origin: exact)
        let c = noise > 0 ? frame.coordinate(east: noise * rng.gaussian(), north: noise * rng.gaussian()) : exact
        out.append(TracePoint(coordinate: c, time: Date(timeIntervalSince1970: start + t)))
        t += interval
    }
    return out
}

private func points(_ map: AsciiRoadMap, _ names: String) -> [Coordinate] { names.map { map.coordinate($0)! } }
private func ids(_ map: AsciiRoadMap, _ names: String) -> [Int64] { names.map { map.nodeID($0) } }

/// Ways of the matched points, in order, without repeats.
private func wayRuns(_ result: MatchResult, _ graph: RoadGraph) -> [Int64] {
    var out: [Int64] = []
    for p in result.points { if let m = p.match, out.last != graph.wayID(of: m.edge) { out.append(graph.wayID(of: m.edge)) } }
    return out
}

@Test func parallelRoads_theDriveStaysOnItsOwnRoad() throws {
    var map = AsciiRoadMap("""
        a         b

        c         d
        """, gridSize: 20)
    map.way("ab", ["highway": "primary"])
    let cd = map.way("cd", ["highway": "primary"])
    map.way("ac", ["highway": "residential"])
    let graph = map.graph(profile: .car).graph
    let matcher = try MapMatcher(graph: graph)
    // 12 m north of cd (28 m south of ab), 4 m noise: every fix belongs to cd.
    let frame = LocalFrame(origin: map.coordinate("c")!)
    let path = [map.coordinate("c")!, map.coordinate("d")!].map { c -> Coordinate in
        let p = frame.point(for: c)
        return frame.coordinate(east: p.east, north: p.north + 12)
    }
    let result = matcher.match(drive(path, speed: 10, noise: 4))
    #expect(result.subMatchings.count == 1)
    #expect(wayRuns(result, graph) == [cd])
    #expect(result.subMatchings.first?.nodeIDs == ids(map, "cd"))
    #expect(result.points.allSatisfy { $0.match != nil })
}

@Test func uTurn_carAtADeadEnd_pedestrianAnywhere() throws {
    var map = AsciiRoadMap("""
        x a    b    c
        """, gridSize: 20)
    map.way("xa", ["highway": "residential"])
    map.way("abc", ["highway": "residential"])
    // Car: to the dead end c and back; the path is a, b, c, b, a (b is a shape point).
    let car = try MapMatcher(graph: map.graph(profile: .car).graph)
    let near = LocalFrame(origin: map.coordinate("a")!).coordinate(east: 10, north: 0)
    let there = [near] + points(map, "bc")
    let r = car.match(drive(there + there.reversed().dropFirst(), speed: 8, noise: 2))
    #expect(r.subMatchings.count == 1)
    #expect(r.subMatchings.first?.nodeIDs == ids(map, "abcba"))
    // Walking from x: turn back between b and c (mid-edge), allowed on foot; c is never
    // reached, so the path is x, a, b and back.
    let foot = try MapMatcher(graph: map.graph(profile: .foot).graph, mode: .pedestrian)
    let turn = LocalFrame(origin: map.coordinate("b")!).coordinate(east: 50, north: 0)
    let x = map.coordinate("x")!
    let walk = foot.match(drive([x] + points(map, "ab") + [turn] + points(map, "bax"), speed: 1.4, noise: 2))
    #expect(walk.subMatchings.count == 1)
    #expect(walk.subMatchings.first?.nodeIDs == ids(map, "xabax"))
}

@Test func oneWayDrivenTheWrongWay_isMatchedToTheTwoWayRoadBeside() throws {
    var map = AsciiRoadMap("""
        a         b

        c         d
        """, gridSize: 15)
    map.way("ab", ["highway": "primary", "oneway": "yes"])
    let cd = map.way("cd", ["highway": "primary"])
    map.way("ac", ["highway": "residential"])
    map.way("bd", ["highway": "residential"])
    let graph = map.graph(profile: .car).graph
    let matcher = try MapMatcher(graph: graph)
    // Westward exactly along the one-way ab (which only runs east), 30 m north of cd.
    let result = matcher.match(drive(points(map, "ba"), speed: 10, noise: 2))
    #expect(wayRuns(result, graph) == [cd])
    #expect(result.subMatchings.first?.nodeIDs == ids(map, "dc"))
}

@Test func roundabout_isDrivenInItsDirection() throws {
    var map = AsciiRoadMap("""
                n


                b
        w   a       c   e
                d


                s
        """, gridSize: 8)
    map.way("wa", ["highway": "primary"])
    map.way("ce", ["highway": "primary"])
    map.way("bn", ["highway": "primary"])
    map.way("ds", ["highway": "primary"])
    // Counter-clockwise as seen from above (right-hand traffic): west, south, east, north.
    map.way("adcba", ["highway": "primary", "junction": "roundabout"])
    let matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
    // In from the west, three quarters round, out to the north.
    let result = matcher.match(drive(points(map, "wadcbn"), speed: 6, noise: 1.5))
    #expect(result.subMatchings.count == 1)
    #expect(result.subMatchings.first?.nodeIDs == ids(map, "wadcbn"))
}

@Test func gap_longerThanMaximumGap_startsANewSubMatching() throws {
    var map = AsciiRoadMap("""
        a         b
        """, gridSize: 200)
    map.way("ab", ["highway": "primary"])
    let matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
    var fixes = drive(points(map, "ab"), speed: 10, noise: 3)
    fixes.removeSubrange(30..<170)  // 140 s without fixes > 120 s
    let result = matcher.match(fixes)
    #expect(result.subMatchings.count == 2)
    #expect(result.points.count == fixes.count)
    #expect(result.points[29].match?.subMatching == 0 && result.points[30].match?.subMatching == 1)
    #expect(result.subMatchings.allSatisfy { $0.nodeIDs == ids(map, "ab") })
}

@Test func stopWithJitter_staysOnTheRoadWithoutLoops() throws {
    var map = AsciiRoadMap("""
        a    b    c
        """, gridSize: 40)
    map.way("abc", ["highway": "primary"])
    map.way("bd", ["highway": "residential"])
    let matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
    // 90 s standing 20 m past b with 4 m jitter.
    let fixes = drive(points(map, "ac"), speed: 10, noise: 4, stopAt: 220, stopSeconds: 90)
    let result = matcher.match(fixes)
    #expect(result.subMatchings.count == 1)
    #expect(result.subMatchings.first?.nodeIDs == ids(map, "abc"))
    #expect(result.points.allSatisfy { $0.match != nil })
    // Distance driven: about the road's 400 m, not inflated by jitter loops (±1 %).
    let distance = try #require(result.subMatchings.first?.distance)
    #expect(abs(distance - 400) < 20)
}

@Test func carParkDetour_offRoadProbabilityRises() throws {
    var map = AsciiRoadMap("""
        a          b
        """, gridSize: 40)
    map.way("ab", ["highway": "primary"])
    let matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
    let frame = LocalFrame(origin: map.coordinate("a")!)
    // East along the road, 90 m south into a car park (no roads), a lap there, back, on east.
    let path = [(0.0, 0.0), (150, 0), (150, -90), (200, -90), (200, 0), (440, 0)].map { frame.coordinate(east: $0.0, north: $0.1) }
    let fixes = drive(path, speed: 5, noise: 2)
    var live = OnlineMatcher(matcher: matcher)
    let published = fixes.map { live.match($0) }
    let deep = fixes.indices.filter { abs(frame.point(for: fixes[$0].coordinate).north) > 70 }
    let onRoad = fixes.indices.filter { abs(frame.point(for: fixes[$0].coordinate).north) < 5 }
    #expect(!deep.isEmpty && !onRoad.isEmpty)
    #expect(deep.allSatisfy { published[$0].offRoadProbability > 0.99 && published[$0].position == nil })
    #expect(onRoad.filter { published[$0].offRoadProbability < 0.01 }.count >= onRoad.count * 9 / 10)
    let result = matcher.match(fixes)
    #expect(deep.allSatisfy { result.points[$0].match == nil })
}

@Test func pedestrianInASquare_isOffRoad() throws {
    var map = AsciiRoadMap("""
        a          b
        """, gridSize: 40)
    map.way("ab", ["highway": "footway"])
    let matcher = try MapMatcher(graph: map.graph(profile: .foot).graph, mode: .pedestrian)
    let frame = LocalFrame(origin: map.coordinate("a")!)
    // Across a square 35–45 m from the only path, then back onto it.
    let path = [(0.0, 0.0), (100, 0), (100, -40), (200, -40), (200, 0), (300, 0)].map { frame.coordinate(east: $0.0, north: $0.1) }
    let fixes = drive(path, speed: 1.4, interval: 2, noise: 2)
    var live = OnlineMatcher(matcher: matcher)
    let published = fixes.map { live.match($0) }
    let square = fixes.indices.filter { (130...170).contains(frame.point(for: fixes[$0].coordinate).east) && frame.point(for: fixes[$0].coordinate).north < -35 }
    #expect(!square.isEmpty)
    #expect(square.allSatisfy { published[$0].offRoadProbability > 0.5 })
    #expect(published.prefix(20).allSatisfy { $0.offRoadProbability < 0.5 && $0.position != nil })
}

// MARK: Bad input

private func straightRoad() throws -> (AsciiRoadMap, MapMatcher) {
    var map = AsciiRoadMap("""
        a         b
        """, gridSize: 50)
    map.way("ab", ["highway": "primary"])
    return (map, try MapMatcher(graph: map.graph(profile: .car).graph))
}

@Test func emptyAndOnePointTracks() throws {
    let (map, matcher) = try straightRoad()
    let empty = matcher.match([])
    #expect(empty.points.isEmpty && empty.subMatchings.isEmpty)
    let one = matcher.match([TracePoint(coordinate: map.coordinate("a")!)])
    #expect(one.points.count == 1 && one.points[0].match != nil)
    #expect(one.subMatchings.count == 1 && Set(one.subMatchings[0].nodeIDs) == Set(ids(map, "ab")))
    #expect(one.subMatchings[0].distance == 0)
}

@Test func noTimestamps_matchByDistanceAlone() throws {
    let (map, matcher) = try straightRoad()
    let fixes = drive(points(map, "ab"), speed: 10, noise: 3).map { TracePoint(coordinate: $0.coordinate) }
    let result = matcher.match(fixes)
    #expect(result.subMatchings.count == 1 && result.subMatchings[0].nodeIDs == ids(map, "ab"))
    #expect(result.points.allSatisfy { $0.match != nil })
}

@Test func timesGoingBackwards_startANewSubMatching() throws {
    let (map, matcher) = try straightRoad()
    var fixes = drive(points(map, "ab"), speed: 10, noise: 3)
    fixes[20].time = fixes[10].time
    let result = matcher.match(fixes)
    #expect(result.subMatchings.count == 2)
    #expect(result.points[19].match?.subMatching == 0 && result.points[20].match?.subMatching == 1)
    #expect(result.points.allSatisfy { $0.match != nil })
}

@Test func fixesFarFromEveryRoad_areUnmatched() throws {
    let (map, matcher) = try straightRoad()
    let frame = LocalFrame(origin: map.coordinate("a")!)
    let far = drive([frame.coordinate(east: 0, north: 100_000), frame.coordinate(east: 500, north: 100_000)], speed: 10)
    let result = matcher.match(far)
    #expect(result.points.count == far.count && result.points.allSatisfy { $0.match == nil })
    #expect(result.subMatchings.isEmpty)
    // Far fixes amid a good drive are skipped; the path goes on over them.
    var mixed = drive(points(map, "ab"), speed: 10, noise: 2)
    mixed[15].coordinate = frame.coordinate(east: 150, north: 100_000)
    mixed[16].coordinate = Coordinate(uncheckedLatitude: .nan, longitude: 1)
    let r = matcher.match(mixed)
    #expect(r.points[15].match == nil && r.points[16].match == nil)
    #expect(r.subMatchings.count == 1 && r.points.filter { $0.match != nil }.count == mixed.count - 2)
}

@Test func absurdAccuracies_areClampedNotTrusted() throws {
    let (map, matcher) = try straightRoad()
    var fixes = drive(points(map, "ab"), speed: 10, noise: 3)
    let absurd: [Double] = [-1, .nan, .infinity, 0, 1e12, -.infinity]
    for i in fixes.indices { fixes[i].horizontalAccuracy = .meters(absurd[i % absurd.count]) }
    let result = matcher.match(fixes)
    #expect(result.subMatchings.count == 1 && result.subMatchings[0].nodeIDs == ids(map, "ab"))
    #expect(result.points.allSatisfy { $0.match != nil })
    #expect(throws: MatchError.self) {
        var p = MatchingParameters.car
        p.beta = .meters(-1)
        _ = try MapMatcher(graph: map.graph(profile: .car).graph, parameters: p)
    }
}

@Test(.onOwnThread) func streaming_keepsBoundedStateOnALongDrive() throws {
    var map = AsciiRoadMap("""
        a          b

        d          c
        """, gridSize: 50)
    map.way("abcda", ["highway": "primary"])
    let graph = map.graph(profile: .car).graph
    let matcher = try MapMatcher(graph: graph)
    let lap = points(map, "abcda")
    let lapLength = graph.length(of: RoadGraph.EdgeID(0)).meters  // one loop segment, 1300 m
    let laps = Array(repeating: lap.dropLast(), count: 40).flatMap { $0 } + [lap[0]]
    let fixes = drive(laps, speed: 15, noise: 4)
    var session = matcher.session()
    var committed = 0, mostUndecided = 0
    for fix in fixes {
        session.append(fix)
        mostUndecided = max(mostUndecided, session.undecidedCount)
        committed += session.takeCommitted().points.count
    }
    session.finish()
    committed += session.takeCommitted().points.count
    #expect(committed == fixes.count)
    #expect(mostUndecided < 30)
    // The whole-track call agrees: one sub-matching, 40 laps (±0.5 %).
    let whole = matcher.match(fixes)
    #expect(whole.subMatchings.count == 1)
    #expect(abs(whole.subMatchings[0].distance - 40 * lapLength) < 0.005 * 40 * lapLength)
}

@Test func liveMapMatcher_servesPositioningsProtocol() async throws {
    let (map, matcher) = try straightRoad()
    let live = LiveMapMatcher(car: matcher)
    var matched = 0
    for fix in drive(points(map, "ab"), speed: 10, noise: 3) {
        let location = Location(coordinate: fix.coordinate, timestamp: fix.time!, horizontalAccuracy: .meters(5))
        if let m = await live.match(location, mode: .car) {
            matched += 1
            #expect(abs(m.location.coordinate.latitude - map.coordinate("a")!.latitude) < 1e-6)
            #expect((0...1).contains(m.confidence))
        }
        #expect(await live.match(location, mode: .pedestrian) == nil)
    }
    #expect(matched > 40)
}
