import GeoCore
import RoadNetwork

/// Committing: the fixes whose match the back-pointers have converged on leave the window.
extension MatchingSession {
    var firstUndecided: Int { anchorState == nil ? 0 : 1 }

    /// Commits the fixes the back-pointers have converged on, or the oldest one when the
    /// undecided stretch is longer than `maximumLag`.
    mutating func commitDecided() {
        guard let newest = steps.last else { return }
        let first = firstUndecided
        // The states still alive at step j, and their parents: two lists reused step by step.
        var live: [Int32] = [], next: [Int32] = []
        live.reserveCapacity(newest.scores.count)
        next.reserveCapacity(newest.scores.count)
        for (s, score) in newest.scores.enumerated() where score > -.infinity { live.append(Int32(s)) }
        var j = steps.count - 1
        while j >= first {
            if live.count == 1 {
                commit(through: j, state: Int(live[0]))
                return
            }
            if j == first { break }
            next.removeAll(keepingCapacity: true)
            for s in live {
                let parent = steps[j].parents[Int(s)]
                if parent >= 0, !next.contains(parent) { next.append(parent) }
            }
            swap(&live, &next)
            j -= 1
        }
        if steps.count - first > matcher.parameters.maximumLag {
            let best = Self.bestState(of: newest)
            let chain = self.chain(endingAt: steps.count - 1, state: best)
            commit(through: first, state: chain[0])
            dropStatesDisagreeingWithAnchor()
        }
    }

    static func bestState(of step: Step) -> Int {
        var best = 0
        for k in step.scores.indices where step.scores[k] > step.scores[best] { best = k }
        return best
    }

    /// The states from `firstUndecided` to step `j` on the chain ending in `state`.
    func chain(endingAt j: Int, state: Int) -> [Int] {
        let first = firstUndecided
        var states = [Int](repeating: 0, count: j - first + 1)
        var s = state
        var k = j
        while k >= first {
            states[k - first] = s
            if k > first { s = Int(max(0, steps[k].parents[s])) }
            k -= 1
        }
        return states
    }

    /// Commits steps `firstUndecided ... j` along the chain ending in `state`, emits their
    /// answers, and keeps step `j` as the anchor.
    mutating func commit(through j: Int, state: Int) {
        let first = firstUndecided
        let states = chain(endingAt: j, state: state)
        for k in first...j { emit(step: k, state: states[k - first]) }
        steps.removeFirst(j)
        anchorState = states[states.count - 1]
    }

    /// After a forced commit: states whose chain does not pass through the anchor's state can
    /// no longer be chosen.
    mutating func dropStatesDisagreeingWithAnchor() {
        guard let anchor = anchorState, steps.count > 1 else { return }
        var alive = [Bool](repeating: false, count: steps[0].scores.count)
        alive[anchor] = true
        for j in 1..<steps.count {
            var next = [Bool](repeating: false, count: steps[j].scores.count)
            for s in steps[j].scores.indices {
                let parent = Int(steps[j].parents[s])
                if parent >= 0, alive[parent], steps[j].scores[s] > -.infinity { next[s] = true } else { steps[j].scores[s] = -.infinity }
            }
            alive = next
        }
    }

    /// Commits all undecided steps to the best path and closes the sub-matching (a break, or the end).
    mutating func flush() {
        if let newest = steps.last, steps.count > firstUndecided {
            commit(through: steps.count - 1, state: Self.bestState(of: newest))
        }
        steps.removeAll(keepingCapacity: true)
        anchorState = nil
        closeSubMatching()
    }

    mutating func attachFollower(_ f: Follower) {
        if steps.count > firstUndecided {
            steps[steps.count - 1].followers.append(f)
        } else if let anchor = anchorState, let step = steps.first {
            emitFollower(f, step: step, state: anchor)
        } else {
            committedPoints.append(MatchedPoint(index: f.index, match: nil))
        }
    }

    mutating func closeSubMatching() {
        flushPendingNodes()
        if let open = openPiece { finishedPieces.append(open) }
        openPiece = nil
        openHasNodes = false
        lastPathEdge = nil
        pendingEdge = nil
        lastNode = nil
    }

    /// Emits step `k`'s answer for `state` (and its projected fixes), extending the path.
    mutating func emit(step k: Int, state: Int) {
        let step = steps[k]
        guard state < step.offRoad else {
            // Off-road: unmatched, the sub-matching goes on where the chain rejoins the road.
            committedPoints.append(MatchedPoint(index: step.index, match: nil))
            for f in step.followers { committedPoints.append(MatchedPoint(index: f.index, match: nil)) }
            return
        }
        let cand = step.candidates[state]
        let parent = Int(step.parents[state])
        var extended = false
        if k > 0, openPiece != nil, parent >= 0, !step.rejoined.contains(Int32(state)) {
            let prev = steps[k - 1]
            let origin = parent < prev.offRoad
                ? Origin(position: prev.candidates[parent].position, coordinate: prev.coordinate, time: prev.time, radius: prev.radius)
                : prev.offRoadOrigin
            if let origin {
                let gc = LocalFrame.distance(origin.coordinate, step.coordinate)
                let limit = transitionLimit(fromTime: origin.time, radius: origin.radius, toTime: step.time, radius: step.radius, greatCircle: gc)
                targets.removeAll(keepingCapacity: true)
                targets.append(cand.position)
                route(from: origin.position, to: TargetArea(center: cand.coordinate, radius: 0), limit: limit)
                let (path, turnsMidEdge) = search.path(to: 0, targetEdge: cand.position.edge)
                if !path.isEmpty {
                    appendPath(path, from: origin.position.fraction, to: cand.position.fraction, turnsMidEdge: turnsMidEdge,
                               end: cand.coordinate)
                    extended = true
                }
            }
        }
        if !extended {
            closeSubMatching()
            openPiece = SubMatching(index: subMatchingCount)
            subMatchingCount += 1
            appendPath([cand.position.edge], from: cand.position.fraction, to: cand.position.fraction, turnsMidEdge: false,
                       end: cand.coordinate)
        }
        openPiece?.count(probability: Self.probability(of: state, in: step.scores))
        emitPoint(index: step.index, edge: cand.position.edge, fraction: cand.position.fraction, distance: cand.distance)
        for f in step.followers { emitFollower(f, step: step, state: state) }
    }

    mutating func emitFollower(_ f: Follower, step: Step, state: Int) {
        guard let c = f.coordinate, state < step.offRoad, openPiece != nil else {
            committedPoints.append(MatchedPoint(index: f.index, match: nil))
            return
        }
        let edge = step.candidates[state].position.edge
        let (fraction, distance) = matcher.project(c, onto: edge)
        emitPoint(index: f.index, edge: edge, fraction: fraction, distance: distance)
    }

    mutating func emitPoint(index: Int, edge: UInt32, fraction: Double, distance: Double) {
        let (coordinate, nodes) = matcher.position(on: edge, fraction: fraction)
        committedPoints.append(MatchedPoint(index: index, match: RoadPosition(
            coordinate: coordinate, distance: .meters(distance), edge: RoadGraph.EdgeID(edge), fraction: fraction,
            nodes: nodes, subMatching: openPiece?.index ?? 0)))
    }

    /// Adds a routed path to the open piece: its new edges (the first is skipped when the path
    /// already ends on it), their ways, geometry and length from `start` to `end` fraction, and
    /// their OSM nodes as a clean path: a U-turn mid-edge keeps only the nodes passed before
    /// the turn and the same nodes back (the edge's far node was never reached), and at the
    /// start of a sub-matching keeps the edge turned onto instead of the one turned on.
    mutating func appendPath(_ path: [UInt32], from start: Double, to end: Double, turnsMidEdge: Bool, end endPoint: Coordinate) {
        // The piece is taken out of `openPiece` while it grows, and handed back with `consume`:
        // with two owners every append copied its arrays (geometry, edges, ways, nodes), a
        // cost that grew with the piece (3 % of `geo match` on a 4,000-fix drive).
        guard var piece = openPiece.take() else { return }
        // The graph is read in place: a local copy retained and released its ~30 columns per
        // call (2 % of `geo match`).
        for (i, e) in path.enumerated() {
            let edge = RoadGraph.EdgeID(e)
            // A U-turn mid-edge leaves the first edge where it is entered: none of it is driven.
            let a = i == 0 ? start : (i == 1 && turnsMidEdge ? 1 - start : 0)
            let b = i == 0 && turnsMidEdge ? start : (i == path.count - 1 ? end : 1)
            if path.count == 1, b < a {
                // Back along the same edge within the tolerance: jitter, not progress.
                piece.distance -= (a - b) * matcher.graph.length(of: edge).meters
                piece.duration -= (a - b) * (matcher.graph.duration(of: edge) / .seconds(1))
            }
            if b > a {
                piece.distance += (b - a) * matcher.graph.length(of: edge).meters
                piece.duration += (b - a) * (matcher.graph.duration(of: edge) / .seconds(1))
                var pts = matcher.graph.geometry(of: edge, from: a, to: b)
                if let first = pts.first, first == piece.geometry.last { pts.removeFirst() }
                piece.geometry += pts
            }
            if i == 0, e == lastPathEdge { continue }
            piece.edges.append(edge)
            piece.wayIDs.append(matcher.graph.wayID(of: edge))
            if i == 1, turnsMidEdge, pendingEdge == path[0] {
                if pendingIsFirst {
                    pendingEdge = e
                } else {
                    // Entered at its source: the nodes passed before the turn, then the same
                    // nodes back along the twin.
                    let turn = start
                    let out = shapeNodes(of: path[0]).filter { $0.fraction > 0 && $0.fraction < turn }.map(\.id)
                    let back = shapeNodes(of: e).filter { $0.fraction > 1 - turn }.map(\.id)
                    for id in out + back where lastNode != id {
                        piece.nodeIDs.append(id)
                        lastNode = id
                    }
                    pendingEdge = nil
                }
                continue
            }
            openPiece = consume piece
            flushPendingNodes()
            piece = openPiece.take()!
            pendingIsFirst = !openHasNodes
            pendingEdge = e
        }
        if piece.geometry.last != endPoint { piece.geometry.append(endPoint) }
        lastPathEdge = path.last
        openPiece = consume piece
    }

    /// The OSM node ids of an edge's shape points with their fractions of its length.
    func shapeNodes(of edge: UInt32) -> [(id: Int64, fraction: Double)] {
        let e = RoadGraph.EdgeID(edge)
        let shape = matcher.graph.geometry(of: e), ids = matcher.graph.osmNodeIDs(of: e)
        var along = [0.0]
        for i in 1..<shape.count { along.append(along[i - 1] + LocalFrame.distance(shape[i - 1], shape[i])) }
        let total = max(along[along.count - 1], 1e-9)
        return ids.indices.map { (ids[$0], along[$0] / total) }
    }

    /// Moves the held-back edge's OSM nodes into the open piece.
    mutating func flushPendingNodes() {
        guard let e = pendingEdge, openPiece != nil else { return }
        let ids = matcher.graph.osmNodeIDs(of: RoadGraph.EdgeID(e))
        for id in openHasNodes ? ids.dropFirst() : ids[...] where lastNode != id {
            openPiece!.nodeIDs.append(id)
            lastNode = id
        }
        openHasNodes = true
        pendingEdge = nil
    }
}
