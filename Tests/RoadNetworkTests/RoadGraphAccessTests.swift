import GeoCore
import GeoTestSupport
import RoadNetwork
import Testing

/// a b c      (columns 100 m apart, rows 100 m) abc: primary "Main Street", two-way; be: residential "Côte", oneway south;
/// d e f      def: service; e: traffic signals; no right turn from abc via b onto be.
/// Every column of the graph file has something in it, so the file-format tests use it too.
func crossroads() -> (map: AsciiRoadMap, graph: RoadGraph) {
    var map = AsciiRoadMap("""
        a b c
        d e f
        """, gridSize: 100)
    let abc = map.way("abc", ["highway": "primary", "name": "Main Street"])
    let be = map.way("be", ["highway": "residential", "oneway": "yes", "name": "Côte"])
    map.way("def", ["highway": "service"])
    map.tag("e", ["highway": "traffic_signals"])
    map.restriction(from: abc, via: "b", to: be, "no_right_turn")
    return (map, map.graph(profile: .car).graph)
}

private func node(_ graph: RoadGraph, _ map: AsciiRoadMap, _ name: Character) throws -> RoadGraph.NodeID {
    try #require(graph.nodes.first { graph.osmID(of: $0) == map.nodeID(name) }, "node \(name)")
}

private func edge(_ graph: RoadGraph, _ map: AsciiRoadMap, _ from: Character, _ to: Character) throws -> RoadGraph.EdgeID {
    let (s, t) = (try node(graph, map, from), try node(graph, map, to))
    return try #require(graph.outgoingEdges(of: s).first { graph.target(of: $0) == t }, "edge \(from)\(to)")
}

@Test func facade_adjacencyAndGeometryAgreeWithEdgeEnds() throws {
    let (_, graph) = crossroads()
    #expect(graph.nodes.count == graph.nodeCount && graph.edges.count == graph.edgeCount && graph.segments.count == graph.segmentCount)
    var outgoing = 0, incoming = 0
    for n in graph.nodes {
        for e in graph.outgoingEdges(of: n) { #expect(graph.source(of: e) == n); outgoing += 1 }
        for e in graph.incomingEdges(of: n) { #expect(graph.target(of: e) == n); incoming += 1 }
    }
    #expect(outgoing == graph.edgeCount && incoming == graph.edgeCount)
    for e in graph.edges {
        let shape = graph.geometry(of: e)
        #expect(shape.count >= 2)
        #expect(shape.first == graph.coordinate(of: graph.source(of: e)))
        #expect(shape.last == graph.coordinate(of: graph.target(of: e)))
        let segment = graph.geometry(of: graph.segment(of: e))
        #expect(Array(shape) == (graph.flags(of: e).contains(.reversed) ? Array(segment.reversed()) : Array(segment)))
        if let twin = graph.twin(of: e) {
            #expect(graph.twin(of: twin) == e && graph.segment(of: twin) == graph.segment(of: e))
            #expect(Array(graph.geometry(of: twin)) == Array(shape.reversed()))
        }
    }
}

@Test func facade_attributesOfACrossroads() throws {
    let (map, graph) = crossroads()
    #expect(graph.nodeCount == 6 && graph.segmentCount == 5 && graph.edgeCount == 9)   // be is one-way
    let ab = try edge(graph, map, "a", "b"), be = try edge(graph, map, "b", "e"), bc = try edge(graph, map, "b", "c")
    #expect(try graph.outgoingEdges(of: node(graph, map, "e")).count == 2)            // e→d, e→f; not back up be
    #expect(try graph.incomingEdges(of: node(graph, map, "e")).count == 3)            // b→e, d→e, f→e
    #expect(graph.twin(of: be) == nil)
    #expect(graph.name(of: ab) == "Main Street" && graph.name(of: be) == "Côte")
    #expect(graph.roadClass(of: ab) == .primary && graph.roadClass(of: be) == .residential)
    #expect(graph.wayID(of: graph.segment(of: ab)) == 1 && graph.wayID(of: be) == 2)
    #expect(abs(graph.length(of: ab).meters - 200) < 0.01)                            // two columns × 100 m
    #expect(abs(graph.startBearing(of: ab).degrees - 90) < 0.01)                      // east, degrees
    #expect(abs(graph.endBearing(of: be).degrees - 180) < 0.01)                       // south, degrees
    #expect(abs(graph.speed(of: ab).kilometersPerHour - 65) < 1e-4)                   // car primary, km/h (a Float column)
    let seconds = Double(graph.duration(of: ab).components.seconds) + Double(graph.duration(of: ab).components.attoseconds) * 1e-18
    #expect(abs(seconds - graph.weight(of: ab)) < 1e-3)                              // car rate factor 1, seconds
    #expect(abs(seconds - 200 / graph.speed(of: ab).metersPerSecond) < 0.01)          // seconds
    #expect(graph.mode(of: ab) == .driving)
    #expect(try graph.roadCount(of: node(graph, map, "b")) == 3)
    #expect(try graph.penalty(of: node(graph, map, "e")) == .seconds(2))             // traffic signals
    #expect(try graph.penalty(of: node(graph, map, "a")) == .zero)
    #expect(graph.restrictionCount == 2)                                             // from a→b and from c→b
    #expect(Array(graph.restrictions(from: ab)) == [TurnRestriction(from: ab, to: be, kind: .prohibitive)])
    #expect(graph.restrictions(from: be).isEmpty)
    #expect(!graph.isTurnAllowed(from: ab, to: be) && graph.isTurnAllowed(from: ab, to: bc))
    #expect("\(RoadGraph.NodeID(3)) \(RoadGraph.EdgeID(4)) \(RoadGraph.SegmentID(5))" == "n3 e4 s5")
}

/// Every shape point keeps its OSM node id, compressed degree-2 nodes included (OSRM's
/// `annotations=nodes`), in the edge's direction, and the ids survive the graph file.
@Test func osmNodeIDs_followEachEdgesShapeAndSurviveTheFile() throws {
    var map = AsciiRoadMap("""
        a b c d
              e
        """, gridSize: 20)
    map.way("abcd", ["highway": "residential"])
    map.way("de", ["highway": "residential", "oneway": "yes"])
    let graph = map.graph(profile: .car).graph
    let id = { (c: Character) in map.nodeID(c) }
    // b and c are used by one way only: compressed into the a–d segment's shape.
    #expect(graph.nodeCount == 3)
    var seen: [[Int64]] = graph.edges.map { Array(graph.osmNodeIDs(of: $0)) }
    seen.sort { $0.lexicographicallyPrecedes($1) }
    let expected = [[id("a"), id("b"), id("c"), id("d")], [id("d"), id("c"), id("b"), id("a")], [id("d"), id("e")]]
        .sorted { $0.lexicographicallyPrecedes($1) }
    #expect(seen == expected)
    for e in graph.edges {
        let ids = graph.osmNodeIDs(of: e)
        #expect(ids.count == graph.geometry(of: e).count)
        #expect(ids.first == graph.osmID(of: graph.source(of: e)) && ids.last == graph.osmID(of: graph.target(of: e)))
    }
    let back = try RoadGraph(serialized: graph.serialized())
    #expect(back.edges.map { Array(back.osmNodeIDs(of: $0)) } == graph.edges.map { Array(graph.osmNodeIDs(of: $0)) })
    // A version-2 file has no node ids: refused, telling the user to extract again.
    var old = graph.serialized()
    old[4] = 2
    do { _ = try RoadGraph(serialized: old); Issue.record("version 2 accepted") } catch {
        #expect(error.code == .unsupportedVersion && "\(error)".contains("geo extract"))
    }
}
