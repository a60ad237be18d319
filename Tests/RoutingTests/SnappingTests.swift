import GeoCore
import GeoTestSupport
import RoadNetwork
import Routing
import Testing

// Where a route starts and ends: OSRM's phantom-node rules. Every expected value below is
// OSRM's answer for the same map (osrm-bindings 26.10.0, car/foot/bicycle.lua, CH, with
// `osrm-extract --small-component-size` equal to the router's `smallComponentSize`), printed
// by scripts/osrm/snapping_oracle.sh. Distances in metres; OSRM's differ from ours by its
// haversine and decimetre rounding, hence the 0.3 m tolerance. Snapped positions are given
// in grid steps (column, row) of the drawing, within 0.05 steps (0.5 m).

/// The snapped start and end of a route in grid steps (column east, row south) of `map`.
private func gridPosition(_ c: Coordinate, in map: AsciiRoadMap) -> (column: Double, row: Double) {
    let p = LocalFrame(origin: map.origin).point(for: c)
    return (p.east / map.gridSize, -p.north / map.gridSize)
}

private func expectSnap(_ c: Coordinate, in map: AsciiRoadMap, at column: Double, _ row: Double,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    let p = gridPosition(c, in: map)
    #expect(abs(p.column - column) < 0.05 && abs(p.row - row) < 0.05,
            "snapped at (\(p.column), \(p.row)), OSRM at (\(column), \(row))", sourceLocation: sourceLocation)
}

private func route(_ map: AsciiRoadMap, _ router: Router, _ from: Character, _ to: Character) throws -> Route {
    try router.route(from: try #require(map.coordinate(from)), to: try #require(map.coordinate(to)))
}

@Test(arguments: [Profile.car, .foot, .bicycle])
func ferry_isNeverAStartOrEndPoint(profile: Profile) throws {
    // 1 is 10 m from the ferry c–d and 30 m from the road a–b: OSRM starts and ends on a–b.
    var map = AsciiRoadMap("""
        a       b


            1
        c       d
        """, gridSize: 10)
    map.way("ab", ["highway": "residential"])
    map.way("ac", ["highway": "residential"])
    map.way("bd", ["highway": "residential"])
    map.way("cd", ["route": "ferry"])
    let router = Router(graph: map.graph(profile: profile).graph, smallComponentSize: 2)
    let out = try route(map, router, "1", "b")
    #expect(abs(out.distance.meters - 40.1) < 0.3)
    expectSnap(out.start.coordinate, in: map, at: 4, 0)
    let back = try route(map, router, "b", "1")
    #expect(abs(back.distance.meters - 40.1) < 0.3)
    expectSnap(back.end.coordinate, in: map, at: 4, 0)
}

@Test func privateServiceRoad_isNoStartPointForCars() throws {
    var map = AsciiRoadMap("""
        a       b


            1
        c       d
        """, gridSize: 10)
    map.way("ab", ["highway": "residential"])
    map.way("ac", ["highway": "residential"])
    map.way("bd", ["highway": "residential"])
    map.way("cd", ["highway": "service", "access": "private"])
    let router = Router(graph: map.graph(profile: .car).graph, smallComponentSize: 2)
    let out = try route(map, router, "1", "b")
    #expect(abs(out.distance.meters - 40.1) < 0.3)
    expectSnap(out.start.coordinate, in: map, at: 4, 0)
    expectSnap(try route(map, router, "b", "1").end.coordinate, in: map, at: 4, 0)
}

@Test func tinyPieceNearerThanTheNetwork_movesToTheNetwork() throws {
    // 1 is 10 m from the island g–h and 20 m from a–b.
    var map = AsciiRoadMap("""
        a       b

            1
          g   h


        c       d
        """, gridSize: 10)
    for w in ["ab", "bd", "dc", "ca", "gh"] { map.way(w, ["highway": "residential"]) }
    let router = Router(graph: map.graph(profile: .car).graph, smallComponentSize: 5)
    let there = try route(map, router, "a", "1")
    #expect(abs(there.distance.meters - 40.0) < 0.3)
    expectSnap(there.end.coordinate, in: map, at: 4, 0)
    let back = try route(map, router, "1", "a")
    #expect(abs(back.distance.meters - 40.0) < 0.3)
    expectSnap(back.start.coordinate, in: map, at: 4, 0)
    // Both ends on the island: the route stays there.
    let island = try route(map, router, "g", "1")
    #expect(abs(island.distance.meters - 19.9) < 0.3)
    expectSnap(island.end.coordinate, in: map, at: 4, 3)
}

@Test func onewayTrappedPiece_movesToTheNetwork() throws {
    // b→y is one-way into a dead end: a route can reach it but never leave it, so it is a
    // component of its own; 1 lies on it, 20 m from b–d.
    var map = AsciiRoadMap("""
        a       b
                  1
                    y
        c       d
        """, gridSize: 10)
    for w in ["ab", "bd", "dc", "ca"] { map.way(w, ["highway": "residential"]) }
    map.way("by", ["highway": "residential", "oneway": "yes"])
    let router = Router(graph: map.graph(profile: .car).graph, smallComponentSize: 5)
    let there = try route(map, router, "a", "1")
    #expect(abs(there.distance.meters - 90.0) < 0.3)
    expectSnap(there.end.coordinate, in: map, at: 8, 1)
    let back = try route(map, router, "1", "a")
    #expect(abs(back.distance.meters - 130.0) < 0.3)
    expectSnap(back.start.coordinate, in: map, at: 8, 1)
}

@Test func restrictionTrappedSpur_movesToTheNetwork() throws {
    // Every turn out of the spur b–d at b is forbidden and U-turns are not allowed there:
    // the spur connects both ways by nodes, but not by turns (an edge-based component).
    var map = AsciiRoadMap("""
        a   b   c
             1
            d
        """, gridSize: 10)
    let ab = map.way("ab", ["highway": "residential"])
    let bc = map.way("bc", ["highway": "residential"])
    let bd = map.way("bd", ["highway": "residential"])
    map.restriction(from: bd, via: "b", to: ab, "no_left_turn")
    map.restriction(from: bd, via: "b", to: bc, "no_right_turn")
    let router = Router(graph: map.graph(profile: .car).graph, smallComponentSize: 3)
    let out = try route(map, router, "1", "c")
    #expect(abs(out.distance.meters - 30.1) < 0.3)
    expectSnap(out.start.coordinate, in: map, at: 5, 0)
    let there = try route(map, router, "a", "1")
    #expect(abs(there.distance.meters - 50.0) < 0.3)
    expectSnap(there.end.coordinate, in: map, at: 5, 0)
}

@Test func stubsBehindABarrierOrOneway_moveToTheNetwork() throws {
    let drawing = """
        a   b   c   d
                  1
        e   f
        """
    // The spur c–d behind a bollard at c cannot be reached by car; the road b–c up to the
    // bollard can (a car turns round there): the end moves to c.
    var barrier = AsciiRoadMap(drawing, gridSize: 10)
    barrier.way("abfea", ["highway": "residential"])
    barrier.way("bcd", ["highway": "residential"])
    barrier.tag("c", ["barrier": "bollard"])
    let blocked = try route(barrier, Router(graph: barrier.graph(profile: .car).graph, smallComponentSize: 5), "a", "1")
    #expect(abs(blocked.distance.meters - 80.0) < 0.3)
    expectSnap(blocked.end.coordinate, in: barrier, at: 8, 0)
    // A oneway stub leaving the network (a carriageway cut by the extract's border) is a
    // component of its own: the end moves to the nearest road of the loop, b–f.
    var stub = AsciiRoadMap(drawing, gridSize: 10)
    stub.way("abfea", ["highway": "residential"])
    stub.way("bcd", ["highway": "primary", "oneway": "yes"])
    let cut = try route(stub, Router(graph: stub.graph(profile: .car).graph, smallComponentSize: 3), "a", "1")
    #expect(abs(cut.distance.meters - 49.9) < 0.3)
    expectSnap(cut.end.coordinate, in: stub, at: 4, 1)
}
