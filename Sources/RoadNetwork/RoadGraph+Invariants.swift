// Internal consistency checks, compiled only under the GEO_INTERNAL_CHECKS condition (set by
// `GEO_INTERNAL_CHECKS=1 swift build`; see Package.swift), as swift-collections does with
// COLLECTIONS_INTERNAL_CHECKS. The throwing checks in `RoadGraph.init` guard what a file
// may get wrong (lengths, ranges); these verify what the builder promises on top.

extension RoadGraph {
    #if GEO_INTERNAL_CHECKS
    /// Traps, naming the first broken invariant, unless every CSR and cross-reference
    /// invariant holds: edge rows grouped by source, incoming rows a permutation grouped by
    /// target, twins symmetric over one segment, shapes ending at their nodes, each segment
    /// with one or two edges (one per direction), road counts, attribute ranges, and
    /// restrictions sorted, flagged and meeting at a via node.
    /// - Complexity: O(nodes + edges + shape points + restrictions).
    @inline(never)
    package func _checkInvariants() {
        let n = nodeCount, e = edgeCount, s = segmentCount
        let knownNodeFlags = NodeFlags.barrier.rawValue
        let knownEdgeFlags = EdgeFlags([.restricted, .roundabout, .hasRestrictions, .reversed, .notStartPoint]).rawValue
        precondition(names.first == "", "RoadGraph: name 0 is not the empty name")
        var seenIncoming = [Bool](repeating: false, count: e)
        // Roads (segments) per node, counted at each segment's first edge: its second edge
        // must join the same two nodes. (A set of segments per node was 12 % of `geo match`'s
        // CPU on a 20 MB graph in a GEO_INTERNAL_CHECKS build.)
        var roadsAt = [Int](repeating: 0, count: n)
        var segmentEnds = [(UInt32, UInt32)](repeating: (0, 0), count: s)
        for v in 0..<n {
            precondition(nodeFlags[v] & ~knownNodeFlags == 0, "RoadGraph: node \(v) has unknown flags")
            precondition(nodePenalties[v].isFinite && nodePenalties[v] >= 0, "RoadGraph: node \(v) has a bad penalty")
            for k in Int(firstIncoming[v])..<Int(firstIncoming[v + 1]) {
                let edge = Int(incomingEdges[k])
                precondition(Int(edgeTargets[edge]) == v, "RoadGraph: incoming entry \(k) of node \(v) is edge \(edge), which ends elsewhere")
                precondition(!seenIncoming[edge], "RoadGraph: edge \(edge) is listed twice as incoming")
                seenIncoming[edge] = true
            }
        }
        var edgesOfSegment = [UInt8](repeating: 0, count: s)
        var startsRule = [Bool](repeating: false, count: e)
        for r in restrictions { startsRule[r.from.index] = true }
        for i in 0..<e {
            let source = Int(edgeSources[i]), target = Int(edgeTargets[i]), segment = Int(edgeSegments[i])
            let flags = edgeFlags[i]
            precondition(flags & ~knownEdgeFlags == 0, "RoadGraph: edge \(i) has unknown flags")
            precondition(TravelMode(rawValue: edgeModes[i]) != nil, "RoadGraph: edge \(i) has an unknown travel mode")
            precondition(edgeDurations[i].isFinite && edgeDurations[i] >= 0 && edgeWeights[i].isFinite && edgeWeights[i] >= 0
                         && edgeSpeeds[i].isFinite && edgeSpeeds[i] > 0, "RoadGraph: edge \(i) has a bad duration, weight or speed")
            precondition((0..<360).contains(edgeStartBearings[i]) && (0..<360).contains(edgeEndBearings[i]),
                         "RoadGraph: edge \(i) has a bearing outside [0, 360)")
            if edgesOfSegment[segment] == 0 {
                segmentEnds[segment] = (UInt32(source), UInt32(target))
                roadsAt[source] += 1
                if target != source { roadsAt[target] += 1 }
            } else {
                let (a, b) = segmentEnds[segment]
                precondition((a, b) == (UInt32(source), UInt32(target)) || (a, b) == (UInt32(target), UInt32(source)),
                             "RoadGraph: edge \(i) joins other nodes than the first edge of its segment \(segment)")
            }
            edgesOfSegment[segment] += 1
            let reversed = flags & EdgeFlags.reversed.rawValue != 0
            let first = Int(shapeOffsets[segment]), last = Int(shapeOffsets[segment + 1]) - 1
            let (a, b) = reversed ? (last, first) : (first, last)
            precondition(shapeLatitudes[a] == nodeLatitudes[source] && shapeLongitudes[a] == nodeLongitudes[source]
                         && shapeLatitudes[b] == nodeLatitudes[target] && shapeLongitudes[b] == nodeLongitudes[target],
                         "RoadGraph: edge \(i)'s shape does not run from its source to its target")
            precondition(shapeOSMIDs[a] == nodeOSMIDs[source] && shapeOSMIDs[b] == nodeOSMIDs[target],
                         "RoadGraph: edge \(i)'s shape node ids do not start and end at its nodes' ids")
            if edgeTwins[i] != UInt32.max {
                let twin = Int(edgeTwins[i])
                precondition(edgeTwins[twin] == UInt32(i), "RoadGraph: edge \(i)'s twin \(twin) does not point back")
                precondition(edgeSegments[twin] == edgeSegments[i] && edgeSources[twin] == edgeTargets[i]
                             && edgeTargets[twin] == edgeSources[i]
                             && (edgeFlags[twin] ^ flags) & EdgeFlags.reversed.rawValue != 0,
                             "RoadGraph: edge \(i) and its twin \(twin) do not run opposite ways along one segment")
                precondition((edgeFlags[twin] ^ flags) & EdgeFlags.notStartPoint.rawValue == 0,
                             "RoadGraph: edge \(i) and its twin \(twin) disagree on being a start point (a way's property)")
            }
            precondition(startsRule[i] == (flags & EdgeFlags.hasRestrictions.rawValue != 0),
                         "RoadGraph: edge \(i)'s hasRestrictions flag disagrees with the restrictions")
        }
        for v in 0..<n {
            precondition(Int(nodeRoadCounts[v]) == min(roadsAt[v], 255), "RoadGraph: node \(v) has a wrong road count")
        }
        for i in 0..<s {
            precondition((1...2).contains(edgesOfSegment[i]), "RoadGraph: segment \(i) has \(edgesOfSegment[i]) edges")
            precondition(segmentLengths[i].isFinite && segmentLengths[i] >= 0, "RoadGraph: segment \(i) has a bad length")
        }
        for k in restrictions.indices {
            let r = restrictions[k]
            precondition(k == 0 || (restrictions[k - 1].from, restrictions[k - 1].to) <= (r.from, r.to),
                         "RoadGraph: restrictions are not sorted by edge at \(k)")
            precondition(edgeTargets[r.from.index] == edgeSources[r.to.index], "RoadGraph: restriction \(k) has no via node")
        }
    }
    #else
    /// Checks nothing: build with GEO_INTERNAL_CHECKS=1 to verify the graph's invariants.
    @inline(__always)
    package func _checkInvariants() {}
    #endif
}
