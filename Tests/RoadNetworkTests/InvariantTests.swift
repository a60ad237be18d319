// Only meaningful when the checks are compiled in: GEO_INTERNAL_CHECKS=1 swift test.
#if GEO_INTERNAL_CHECKS
import GeoTestSupport
import RoadNetwork
import Testing

private func grid() -> RoadGraph {
    var map = AsciiRoadMap("""
        a b c
        d e f
        """, gridSize: 50)
    let abc = map.way("abc")
    let be = map.way("be", ["highway": "residential", "oneway": "yes"])
    map.way("def", ["highway": "service"])
    map.restriction(from: abc, via: "b", to: be, "no_right_turn")
    return map.graph(profile: .car).graph
}

/// `graph` assembled again from its columns, with one column replaced.
private func reassembled(_ g: RoadGraph, incomingEdges: ContiguousArray<UInt32>? = nil,
                         edgeTwins: ContiguousArray<UInt32>? = nil) throws -> RoadGraph {
    try RoadGraph(
        profileName: g.profileName, turnCosts: g.turnCosts,
        nodeLatitudes: g.nodeLatitudes, nodeLongitudes: g.nodeLongitudes, nodeOSMIDs: g.nodeOSMIDs,
        nodeFlags: g.nodeFlags, nodePenalties: g.nodePenalties, nodeRoadCounts: g.nodeRoadCounts,
        firstEdge: g.firstEdge, firstIncoming: g.firstIncoming, incomingEdges: incomingEdges.map(GraphColumn.init) ?? g.incomingEdges,
        edgeSources: g.edgeSources, edgeTargets: g.edgeTargets, edgeSegments: g.edgeSegments,
        edgeDurations: g.edgeDurations, edgeWeights: g.edgeWeights, edgeSpeeds: g.edgeSpeeds,
        edgeFlags: g.edgeFlags, edgeModes: g.edgeModes, edgeTwins: edgeTwins.map(GraphColumn.init) ?? g.edgeTwins,
        edgeStartBearings: g.edgeStartBearings, edgeEndBearings: g.edgeEndBearings,
        shapeOffsets: g.shapeOffsets, shapeLatitudes: g.shapeLatitudes, shapeLongitudes: g.shapeLongitudes, shapeOSMIDs: g.shapeOSMIDs,
        segmentLengths: g.segmentLengths, segmentWayIDs: g.segmentWayIDs, segmentNames: g.segmentNames,
        segmentClasses: g.segmentClasses, names: g.names, restrictions: g.restrictions)
}

@Test func checkInvariants_holdForBuiltLoadedAndIndexedGraphs() throws {
    let graph = grid()
    graph._checkInvariants()
    try reassembled(graph)._checkInvariants()
    try RoadGraph(serialized: graph.serialized())._checkInvariants()
    SpatialIndex(graph: graph)._checkInvariants()
}

@Test func checkInvariants_catchesATwinThatDoesNotPointBack() async {
    await #expect(processExitsWith: .failure) {
        let graph = grid()
        var twins = ContiguousArray(graph.edgeTwins)
        let e = twins.firstIndex { $0 != UInt32.max } ?? 0
        twins[e] = UInt32(twins.indices.first { $0 != e && UInt32($0) != twins[e] } ?? 0)
        // In range, so the throwing checks pass it; a throw would exit 0 and fail the test.
        do { _ = try reassembled(graph, edgeTwins: twins) } catch { return }
    }
}

@Test func checkInvariants_catchesAnIncomingEntryInTheWrongRow() async {
    await #expect(processExitsWith: .failure) {
        let graph = grid()
        var incoming = ContiguousArray(graph.incomingEdges)
        incoming.swapAt(0, incoming.count - 1)   // the first and last nodes' rows trade an edge
        do { _ = try reassembled(graph, incomingEdges: incoming) } catch { return }
    }
}
#endif
