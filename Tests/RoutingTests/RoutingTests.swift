import GeoCore
import GeoTestSupport
import RoadNetwork
import Routing
import Testing
import GeoBase

/// Routes between two points of an ASCII map.
private func route(_ map: AsciiRoadMap, _ from: Character, _ to: Character, profile: Profile = .car,
                   metric: RouteOptions.Metric = .fastest) throws -> Route {
    let router = Router(graph: map.graph(profile: profile).graph)
    let a = try #require(map.coordinate(from)), b = try #require(map.coordinate(to))
    return try router.route(from: a, to: b, options: RouteOptions(metric: metric))
}

/// Whether a route's geometry passes within 0.5 m of a drawn point.
private func passes(_ route: Route, _ map: AsciiRoadMap, _ name: Character) -> Bool {
    guard let p = map.coordinate(name) else { return false }
    let frame = LocalFrame(origin: p)
    return route.geometry.contains { frame.planarDistance($0, p) < 0.5 }
}

@Test func oneway_forcesTheLongWayRound() throws {
    var map = AsciiRoadMap("""
        a   b



        c   d
        """, gridSize: 100)
    map.way("ab", ["highway": "residential", "oneway": "yes"])
    map.way("bdca", ["highway": "residential"])
    #expect(abs(try route(map, "a", "b").distance.meters - 400) < 0.01)       // metres
    let back = try route(map, "b", "a")
    #expect(abs(back.distance.meters - 1200) < 0.01)
    #expect(passes(back, map, "d") && passes(back, map, "c"))
    // oneway=-1 reverses it.
    var reversed = AsciiRoadMap("""
        a   b



        c   d
        """, gridSize: 100)
    reversed.way("ab", ["highway": "residential", "oneway": "-1"])
    reversed.way("bdca", ["highway": "residential"])
    #expect(abs(try route(reversed, "b", "a").distance.meters - 400) < 0.01)
    #expect(abs(try route(reversed, "a", "b").distance.meters - 1200) < 0.01)
}

@Test func roundabout_isDrivenInItsDirectionOnly() throws {
    var map = AsciiRoadMap("""
            a
            b
        f e   c g
            d
            h
        """, gridSize: 10)
    map.way("ab", ["highway": "residential"])
    map.way("bcdeb", ["highway": "residential", "junction": "roundabout"])
    map.way("cg", ["highway": "residential"])
    map.way("dh", ["highway": "residential"])
    map.way("ef", ["highway": "residential"])
    let diagonal = (20.0 * 20 + 10 * 10).squareRoot()
    let east = try route(map, "f", "g")
    #expect(passes(east, map, "b") && !passes(east, map, "d"))
    #expect(abs(east.distance.meters - (40 + 2 * diagonal)) < 0.01)
    let west = try route(map, "g", "f")
    #expect(passes(west, map, "d") && !passes(west, map, "b"))
    // From a, going to h (south) needs three quarters of the ring: b→c→d.
    let south = try route(map, "a", "h")
    #expect(passes(south, map, "c") && !passes(south, map, "e"))
}

@Test func noLeftTurn_restrictionDetours() throws {
    let drawing = """
            c   f
        a   b   d
        """
    var open = AsciiRoadMap(drawing, gridSize: 100)
    let ab = open.way("ab"); let bc = open.way("bc")
    open.way("bd"); open.way("df"); open.way("fc")
    #expect(abs(try route(open, "a", "c").distance.meters - 500) < 0.01)

    var restricted = open
    restricted.restriction(from: ab, via: "b", to: bc, "no_left_turn")
    let detour = try route(restricted, "a", "c")
    #expect(abs(detour.distance.meters - 1300) < 0.01)
    #expect(passes(detour, restricted, "d") && passes(detour, restricted, "f"))
    // The restriction binds only cars coming from a: c → a is unaffected.
    #expect(abs(try route(restricted, "c", "a").distance.meters - 500) < 0.01)
    // Foot ignores turn restrictions, as OSRM's foot profile does.
    #expect(abs(try route(restricted, "a", "c", profile: .foot).distance.meters - 500) < 0.01)
}

@Test func onlyStraightOn_restrictionForbidsTheOtherTurns() throws {
    var map = AsciiRoadMap("""
            c
        a   b   d
            e
        """, gridSize: 100)
    let ab = map.way("ab"); let bd = map.way("bd")
    map.way("bc"); map.way("be"); map.way("cd")
    map.restriction(from: ab, via: "b", to: bd, "only_straight_on")
    let diagonal = (400.0 * 400 + 100 * 100).squareRoot()
    let toC = try route(map, "a", "c")
    #expect(abs(toC.distance.meters - (800 + diagonal)) < 0.01)
    let toE = try route(map, "a", "e")
    #expect(abs(toE.distance.meters - (800 + diagonal + 200)) < 0.01)
    #expect(passes(toE, map, "c") && passes(toE, map, "d"))
}

@Test func snapping_startsAndEndsPartWayAlongEdges() throws {
    var map = AsciiRoadMap("""
        a  1  2  b
        """, gridSize: 10)
    map.way("ab", ["highway": "residential"])
    let forward = try route(map, "1", "2")
    #expect(abs(forward.distance.meters - 30) < 0.01)
    #expect(forward.edges.count == 1)
    #expect(abs(forward.start.fraction - 1.0 / 3) < 1e-4)   // 1e-7° fixed-point rounding ≈ 1 cm of 90 m
    let backward = try route(map, "2", "1")
    #expect(abs(backward.distance.meters - 30) < 0.01)
    // Geometry runs from the snapped start to the snapped end.
    let first = try #require(backward.geometry.first), last = try #require(backward.geometry.last)
    let p2 = try #require(map.coordinate("2")), p1 = try #require(map.coordinate("1"))
    #expect(abs(first.longitude - p2.longitude) < 1e-7 && abs(last.longitude - p1.longitude) < 1e-7)   // degrees
    // Expected travel time: 30 m at 25 km/h.
    #expect(abs(forward.duration.seconds - 30 / (25 / 3.6)) < 0.01)
}

@Test func sameEdge_againstAOnewayLoopsAround() throws {
    var map = AsciiRoadMap("""
        a  1  2  b

           c
        """, gridSize: 10)
    map.way("ab", ["highway": "residential", "oneway": "yes"])
    map.way("bca", ["highway": "residential"])
    #expect(abs(try route(map, "1", "2").distance.meters - 30) < 0.01)
    let loop = try route(map, "2", "1")
    let bc: Double = (60.0 * 60 + 20 * 20).squareRoot()
    let ca: Double = (30.0 * 30 + 20 * 20).squareRoot()
    let expected: Double = 60 + bc + ca
    #expect(abs(loop.distance.meters - expected) < 0.01)
    #expect(passes(loop, map, "c"))
    #expect(loop.edges.first == loop.edges.last && loop.edges.count == 3)
}

@Test func unreachableAndFarAway_throwTypedErrors() throws {
    var map = AsciiRoadMap("""
        a b   c d
        """, gridSize: 100)
    map.way("ab")
    map.way("cd")
    let router = Router(graph: map.graph(profile: .car).graph)
    let a = try #require(map.coordinate("a")), d = try #require(map.coordinate("d"))
    // Two pieces, neither a large component (OSRM's 1000 edges): each end stays on its own
    // piece, and no path joins them (moving ends onto large components: SnappingTests).
    do { _ = try router.route(from: a, to: d); Issue.record("route across a gap") } catch {
        #expect(error.code == .noRoute)
    }
    let c = try #require(map.coordinate("c"))
    #expect(abs(try router.route(from: c, to: d).distance.meters - 200) < 0.01)   // metres
    let far = Coordinate(uncheckedLatitude: a.latitude + 0.5, longitude: a.longitude)
    do { _ = try router.route(from: far, to: d); Issue.record("snapped 55 km away") } catch {
        #expect(error.code == .noNearbyRoad)
    }
    do { _ = try router.route(from: a, to: d, options: RouteOptions(maxSnapDistance: .meters(-1))); Issue.record("negative radius") } catch {
        #expect(error.code == .invalidOptions)
    }
}

@Test func carAndFoot_differInAccess() throws {
    var map = AsciiRoadMap("""
        a       c

            d
        """, gridSize: 10)
    map.way("ac", ["highway": "footway"])
    map.way("adc", ["highway": "residential"])
    let side = (40.0 * 40 + 20 * 20).squareRoot()
    #expect(abs(try route(map, "a", "c", profile: .car).distance.meters - 2 * side) < 0.01)
    #expect(abs(try route(map, "a", "c", profile: .foot).distance.meters - 80) < 0.01)
    // A bollard on the road stops cars but not walkers.
    var blocked = map
    blocked.tag("d", ["barrier": "bollard"])
    let router = Router(graph: blocked.graph(profile: .car).graph)
    let a = try #require(map.coordinate("a")), c = try #require(map.coordinate("c"))
    do { _ = try router.route(from: a, to: c); Issue.record("drove through a bollard") } catch {
        #expect(error.code == .noRoute)
    }
    #expect(abs(try route(blocked, "a", "c", profile: .foot).distance.meters - 80) < 0.01)
}

@Test func fastestAndShortest_chooseDifferentRoads() throws {
    var map = AsciiRoadMap("""
        a       b
            c
        """, gridSize: 100)
    map.way("ab", ["highway": "residential", "maxspeed": "10"])   // 8 km/h effective
    map.way("acb", ["highway": "primary"])                         // 65 km/h, a little longer
    let fastest = try route(map, "a", "b")
    let shortest = try route(map, "a", "b", metric: .shortest)
    #expect(passes(fastest, map, "c") && !passes(shortest, map, "c"))
    #expect(abs(shortest.distance.meters - 800) < 0.01)
    #expect(fastest.duration.seconds < shortest.duration.seconds)
}

@Test func router_isSharedAcrossConcurrentQueries() async throws {
    var map = AsciiRoadMap("""
        a   b   c
        d   e   f
        """, gridSize: 50)
    map.way("abc"); map.way("def"); map.way("ad"); map.way("be"); map.way("cf")
    let router = Router(graph: map.graph(profile: .car).graph)
    let a = try #require(map.coordinate("a")), f = try #require(map.coordinate("f"))
    let expected = try router.route(from: a, to: f).distance.meters
    let results = await withTaskGroup(of: Double.self) { group in
        for _ in 0..<8 { group.addTask { (try? router.route(from: a, to: f).distance.meters) ?? -1 } }
        return await group.reduce(into: [Double]()) { $0.append($1) }
    }
    #expect(results.allSatisfy { abs($0 - expected) < 1e-9 })
}
