import GeoCore
public import RoadNetwork
import Routing
public import GeoBase

/// Map matching after Newson & Krumm (2009): a hidden Markov model whose states are candidate
/// road positions near each fix, plus an off-road state; Gaussian emission on the distance from
/// the fix, exponential transition on |road distance − great-circle distance|, Viterbi in log
/// space. An immutable `Sendable` value over one road graph: share it, and run each trace in its
/// own ``MatchingSession`` (streaming, bounded memory) or with ``match(_:)`` (whole trace,
/// built on a session).
public struct MapMatcher: Sendable {
    public let graph: RoadGraph
    public let index: SpatialIndex
    public let parameters: MatchingParameters
    let rules: TurnRules

    /// - Parameters:
    ///   - mode: picks ``MatchingParameters/car`` or ``MatchingParameters/pedestrian`` unless
    ///     `parameters` is given; the graph should be built with the matching profile (car, foot).
    /// - Throws: `MatchError.invalidParameters`.
    /// - Complexity: O(E + P log P) to build the spatial index.
    public init(graph: RoadGraph, mode: MapMatchMode = .car, parameters: MatchingParameters? = nil) throws(MatchError) {
        try self.init(index: SpatialIndex(graph: graph), mode: mode, parameters: parameters)
    }

    /// As `init(graph:mode:parameters:)` over an existing index (and its graph).
    public init(index: SpatialIndex, mode: MapMatchMode = .car, parameters: MatchingParameters? = nil) throws(MatchError) {
        let p = parameters ?? MatchingParameters(for: mode)
        try p.validate()
        self.index = index
        self.graph = index.graph
        self.parameters = p
        self.rules = TurnRules(graph: index.graph)
    }

    /// A new streaming session.
    public func session() -> MatchingSession { MatchingSession(matcher: self) }

    /// Matches a whole trace: a ``MatchingSession`` fed every fix, then finished.
    /// - Complexity: O(n · c · k log k) for n fixes, c candidates a fix and k edges within each
    ///   transition's search bound; memory O(n) for the answer.
    public func match(_ trace: [TracePoint]) -> MatchResult {
        var s = session()
        var points: [MatchedPoint] = []
        points.reserveCapacity(trace.count)
        var subMatchings: [SubMatching] = []
        func drain() {
            let (p, pieces) = s.takeCommitted()
            points += p
            for piece in pieces {
                if piece.index < subMatchings.count { subMatchings[piece.index].append(piece) } else { subMatchings.append(piece) }
            }
        }
        for (i, fix) in trace.enumerated() {
            s.append(fix)
            if i % 4096 == 4095 { drain() }
        }
        s.finish()
        drain()
        return MatchResult(subMatchings: subMatchings, points: points)
    }

    // MARK: Geometry helpers shared by the session and the online matcher

    /// The point `fraction` along `edge` and the OSM node ids of the shape piece it lies on.
    /// - Complexity: O(shape points of the edge).
    func position(on edge: UInt32, fraction: Double) -> (Coordinate, (Int64, Int64)) {
        let e = RoadGraph.EdgeID(edge)
        let shape = graph.geometry(of: e)
        let ids = graph.osmNodeIDs(of: e)
        if shape.count == 2 {
            let a = shape[0], b = shape[1], t = min(1, max(0, fraction))
            return (Coordinate(uncheckedLatitude: a.latitude + t * (b.latitude - a.latitude),
                               longitude: a.longitude + t * (b.longitude - a.longitude)), (ids[0], ids[1]))
        }
        let target = min(1, max(0, fraction)) * graph.length(of: e).meters
        var travelled = 0.0
        for i in 1..<shape.count {
            let a = shape[i - 1], b = shape[i]
            let piece = LocalFrame.distance(a, b)
            if travelled + piece >= target || i == shape.count - 1 {
                let t = piece > 0 ? min(1, max(0, (target - travelled) / piece)) : 0
                return (Coordinate(uncheckedLatitude: a.latitude + t * (b.latitude - a.latitude),
                                   longitude: a.longitude + t * (b.longitude - a.longitude)), (ids[i - 1], ids[i]))
            }
            travelled += piece
        }
        return (shape[0], (ids[0], ids[1]))
    }

    /// The closest point of `edge` to `point`: its fraction along the edge and the distance in metres.
    /// - Complexity: O(shape points of the edge).
    func project(_ point: Coordinate, onto edge: UInt32) -> (fraction: Double, distance: Double) {
        let e = RoadGraph.EdgeID(edge)
        let shape = graph.geometry(of: e)
        let frame = LocalFrame(origin: point)
        var best = (along: 0.0, distance: Double.infinity)
        var travelled = 0.0
        for i in 1..<shape.count {
            let a = shape[i - 1], b = shape[i]
            let ax = lonDelta(a.longitude, point.longitude) * frame.metersPerDegreeLongitude
            let ay = (a.latitude - point.latitude) * frame.metersPerDegreeLatitude
            let bx = lonDelta(b.longitude, point.longitude) * frame.metersPerDegreeLongitude
            let by = (b.latitude - point.latitude) * frame.metersPerDegreeLatitude
            let dx = bx - ax, dy = by - ay
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? min(1, max(0, -(ax * dx + ay * dy) / len2)) : 0
            let px = ax + t * dx, py = ay + t * dy
            let d = (px * px + py * py).squareRoot()
            let piece = len2.squareRoot()
            if d < best.distance { best = (travelled + t * piece, d) }
            travelled += piece
        }
        return (travelled > 0 ? best.along / travelled : 0, best.distance)
    }
}

@inline(__always)
private func lonDelta(_ a: Double, _ b: Double) -> Double {
    var d = a - b
    if d > 180 { d -= 360 } else if d < -180 { d += 360 }
    return d
}
