public import GeoBase
public import GeoCore
public import RoadNetwork
import HeapModule

/// The one error type of Routing (STYLE.md §3.7).
public typealias RouteError = CodedError<RoutingErrorDomain>

/// Names RouteError's codes apart from other modules' (`CodedError`); it has no values.
public enum RoutingErrorDomain {}

extension ErrorCode where Domain == RouteError {
    /// Start and end snapped, but no allowed path connects them.
    public static var noRoute: Self { Self("no route") }
    /// No routable edge lies within the snapping distance of an end point.
    public static var noNearbyRoad: Self { Self("no nearby road") }
    /// `RouteOptions.validate()` failed.
    public static var invalidOptions: Self { Self("invalid options") }
}

/// What a route optimises and how far end points may be from a road.
public struct RouteOptions: Hashable, Sendable {
    /// The quantity minimised; the raw value is its name (`geo route --metric`).
    public enum Metric: String, Hashable, Sendable, CaseIterable {
        /// Least routing weight: travel time with the profile's turn costs and penalties (OSRM `routability`).
        case fastest
        /// Least length; turn costs are not counted (OSRM `weight_name = distance`).
        case shortest
    }

    public var metric: Metric
    /// End points farther than this from every routable edge fail with `.noNearbyRoad`.
    public var maxSnapDistance: Distance

    public init(metric: Metric = .fastest, maxSnapDistance: Distance = .kilometers(5)) {
        self.metric = metric
        self.maxSnapDistance = maxSnapDistance
    }

    /// - Throws: `RouteError.invalidOptions` for a negative or NaN snapping distance.
    public func validate() throws(RouteError) {
        guard maxSnapDistance.meters >= 0 else {
            throw RouteError(.invalidOptions, "maxSnapDistance must be a non-negative distance, got \(maxSnapDistance)")
        }
    }
}

/// A computed route.
public struct Route: Sendable {
    /// Length along the roads, from the snapped start to the snapped end.
    public var distance: Distance
    /// Travel time, turn costs and node penalties included (as OSRM reports it).
    public var duration: Duration
    /// The minimised quantity: seconds for `.fastest`, metres for `.shortest`.
    public var weight: Double
    /// The path from the snapped start to the snapped end.
    public var geometry: [Coordinate]
    /// The directed edges used, in order; the first and last may be used only in part.
    public var edges: [RoadGraph.EdgeID]
    /// Where the start and end were snapped.
    public var start: EdgeSnap
    public var end: EdgeSnap
    /// Search states (directed edges) the query settled: its search-space size.
    public var settledEdgeCount: Int
}

/// Reusable per-query memory: one label slot per edge, reset lazily by a generation stamp,
/// so batch queries do not clear arrays. Not shared between concurrent queries.
public struct RouteScratch: Sendable {
    var stamp: [UInt32] = []
    var cost: [Double] = []
    var parent: [Int32] = []
    var generation: UInt32 = 0

    public init() {}

    mutating func reset(edgeCount: Int) {
        if stamp.count != edgeCount {
            stamp = [UInt32](repeating: 0, count: edgeCount)
            cost = [Double](repeating: .infinity, count: edgeCount)
            parent = [Int32](repeating: -1, count: edgeCount)
            generation = 0
        }
        generation &+= 1
        if generation == 0 {
            for i in stamp.indices { stamp[i] = 0 }
            generation = 1
        }
    }

    @inline(__always) func label(_ e: Int) -> Double { stamp[e] == generation ? cost[e] : .infinity }
    @inline(__always) mutating func set(_ e: Int, cost c: Double, parent p: Int32) {
        stamp[e] = generation
        cost[e] = c
        parent[e] = p
    }
}

/// Shortest and fastest paths on a `RoadGraph` with turn restrictions, U-turn rules,
/// turn costs and start/end points snapped part-way along edges (OSRM's phantom nodes).
///
/// The search is an edge-based A* (states are directed edges, so via-node restrictions and
/// turn costs are exact) with the straight-line distance over the fastest speed in the graph
/// as admissible bound (Hart, Nilsson & Raphael 1968; edge-based graphs as in OSRM's
/// `EdgeBasedGraphFactory`). The router is an immutable `Sendable` value: share it across
/// threads; every query has its own scratch state.
public struct Router: Sendable {
    public let graph: RoadGraph
    public let index: SpatialIndex
    /// Least weight per metre over all edges (seconds per metre), for the A* bound.
    let minSecondsPerMeter: Double
    /// The turns a route may take (U-turns, barriers, restrictions).
    let turnRules: TurnRules
    /// Weight added for turning from an ordinary road onto a destination-only one (OSRM's
    /// `max_turn_weight`, 32 767 ds): such roads are entered only to reach a place inside.
    static let restrictedEntryWeight = 3276.7
    /// Strongly connected components, for snapping into the large ones.
    let components: EdgeComponents

    /// Creates a router, building the spatial index.
    /// - Parameter smallComponentSize: components of fewer directed edges are small: end points
    ///   move off them unless both lie in the same one (OSRM `--small-component-size`).
    /// - Complexity: O(E + P log P).
    public init(graph: RoadGraph, smallComponentSize: Int = 1000) {
        self.init(index: SpatialIndex(graph: graph), smallComponentSize: smallComponentSize)
    }

    /// Creates a router over an existing index (and its graph).
    public init(index: SpatialIndex, smallComponentSize: Int = 1000) {
        self.index = index
        let graph = index.graph
        self.graph = graph
        var best = Double.infinity
        for e in graph.edges {
            let len = graph.length(of: e).meters
            if len > 1 { best = min(best, graph.weight(of: e) / len) }
        }
        minSecondsPerMeter = best.isFinite ? best : 0
        turnRules = TurnRules(graph: graph)
        components = EdgeComponents(graph: graph, rules: turnRules, smallComponentSize: smallComponentSize)
    }

    /// The best route between two positions, each snapped by `snaps(from:to:maxDistance:)`.
    /// - Throws: `RouteError` `.noNearbyRoad`, `.noRoute` or `.invalidOptions`.
    /// - Complexity: O((E log E)) worst case for E edges; A* explores far fewer in practice.
    public func route(from start: Coordinate, to end: Coordinate, options: RouteOptions = RouteOptions()) throws(RouteError) -> Route {
        var scratch = RouteScratch()
        return try route(from: start, to: end, options: options, scratch: &scratch)
    }

    /// As `route(from:to:options:)`, reusing `scratch` between queries (batch use).
    public func route(from start: Coordinate, to end: Coordinate, options: RouteOptions, scratch: inout RouteScratch) throws(RouteError) -> Route {
        try options.validate()
        let (sources, targets) = try snaps(from: start, to: end, maxDistance: options.maxSnapDistance)
        return try route(from: sources, to: targets, options: options, scratch: &scratch)
    }

    /// Where a route between two positions starts and ends, by OSRM's phantom-node rules:
    /// each position's candidates (`SnapCandidates`), then the nearest candidates of both when neither has
    /// a large-component alternative or both share one small component (a route inside an
    /// island of roads stays there), else each position's large-component candidates where
    /// it has them (a route never starts on a stub it cannot leave, nor ends on one it cannot
    /// reach). OSRM `BasePlugin::SnapPhantomNodes`.
    /// - Throws: `RouteError.noNearbyRoad` when an end has no start-point edge within `maxDistance`.
    public func snaps(from start: Coordinate, to end: Coordinate, maxDistance: Distance) throws(RouteError) -> (sources: [EdgeSnap], targets: [EdgeSnap]) {
        let a = try candidates(near: start, maxDistance: maxDistance, role: "start")
        let b = try candidates(near: end, maxDistance: maxDistance, role: "end")
        let noAlternatives = a.largeComponent.isEmpty && b.largeComponent.isEmpty
        let smallComponents = Set(a.nearest.lazy.filter { !components.isLarge($0.edge) }.map { components.component(of: $0.edge) })
        let sameSmallComponent = b.nearest.contains { smallComponents.contains(components.component(of: $0.edge)) }
        if noAlternatives || sameSmallComponent { return (a.nearest, b.nearest) }
        return (a.largeComponent.isEmpty ? a.nearest : a.largeComponent,
                b.largeComponent.isEmpty ? b.nearest : b.largeComponent)
    }

    /// The candidate edges for one end point (OSRM `NearestCandidatesWithAlternativeFromBigComponent`).
    struct SnapCandidates {
        /// The start-point edges nearest to the position, every direction at the smallest distance.
        var nearest: [EdgeSnap]
        /// When no edge of `nearest` lies in a large component: the nearest start-point edges
        /// that do (empty when `nearest` already has one, or when none is within reach).
        var largeComponent: [EdgeSnap]
    }

    /// The candidates for one end point (`role`, "start" or "end", names it in errors): edges a
    /// route may start or end on (not ferries, see `RoadGraph.EdgeFlags.notStartPoint`) and
    /// the large-component alternative.
    /// - Throws: `RouteError.noNearbyRoad` when no start-point edge lies within `maxDistance`.
    /// - Complexity: that of `SpatialIndex.nearestEdges`, at most twice.
    private func candidates(near point: Coordinate, maxDistance: Distance, role: String) throws(RouteError) -> SnapCandidates {
        let g = graph
        func isStartPoint(_ e: RoadGraph.EdgeID) -> Bool { !g.flags(of: e).contains(.notStartPoint) }
        let nearest = index.nearestEdges(to: point, maxDistance: maxDistance, where: isStartPoint)
        guard !nearest.isEmpty else {
            throw RouteError(.noNearbyRoad, "no road a route may start or end on within \(maxDistance) of the \(role) \(point)")
        }
        if nearest.contains(where: { components.isLarge($0.edge) }) {
            return SnapCandidates(nearest: nearest, largeComponent: [])
        }
        let large = index.nearestEdges(to: point, maxDistance: maxDistance, where: { isStartPoint($0) && components.isLarge($0) })
        return SnapCandidates(nearest: nearest, largeComponent: large)
    }

    private struct Entry: Comparable {
        var key: Double
        var state: Int32      // edge index, or -(k + 1) for reaching target k
        var cost: Double
        static func < (a: Entry, b: Entry) -> Bool { a.key < b.key }
    }

    /// The best route from any of the start snaps to any of the end snaps (for example
    /// candidates from `SpatialIndex.edges(near:within:)`, as a map matcher has them).
    /// - Throws: `RouteError.noRoute` when no allowed path exists; `.noNearbyRoad` for empty input.
    public func route(from sources: [EdgeSnap], to targets: [EdgeSnap], options: RouteOptions, scratch: inout RouteScratch) throws(RouteError) -> Route {
        guard !sources.isEmpty, !targets.isEmpty else { throw RouteError(.noNearbyRoad, "no start or end candidates") }
        let g = graph
        let shortest = options.metric == .shortest
        @inline(__always) func cost(_ e: Int) -> Double {
            shortest ? g.length(of: RoadGraph.EdgeID(UInt32(e))).meters : g.weight(of: RoadGraph.EdgeID(UInt32(e)))
        }
        let perMeter = shortest ? 1.0 : minSecondsPerMeter * 0.99
        // The bound is the distance to the nearest distinct end point; with many scattered
        // end candidates it degrades to 0 (plain Dijkstra).
        var goals: [Coordinate] = []
        for t in targets where !goals.contains(t.coordinate) { goals.append(t.coordinate) }
        let usesBound = perMeter > 0 && goals.count <= 8
        let frame = LocalFrame(origin: targets[0].coordinate)
        @inline(__always) func bound(_ node: Int) -> Double {
            guard usesBound else { return 0 }
            let here = g.coordinate(of: RoadGraph.NodeID(UInt32(node)))
            var d = Double.infinity
            for p in goals {
                d = min(d, frame.planarDistance(here, p))
            }
            return d * perMeter
        }
        var targetsByEdge: [Int: [Int]] = [:]
        for (k, t) in targets.enumerated() { targetsByEdge[t.edge.index, default: []].append(k) }

        scratch.reset(edgeCount: g.edgeCount)
        var heap = Heap<Entry>()
        var finishParent: [Int: (pred: Int32, source: Int)] = [:]   // target k → (edge before, source index if direct)
        var finishCost: [Int: Double] = [:]

        for (i, s) in sources.enumerated() {
            let e = s.edge.index
            let c = (1 - s.fraction) * cost(e)
            if c < scratch.label(e) {
                scratch.set(e, cost: c, parent: Int32(-1 - i))
                heap.insert(Entry(key: c + bound(g.target(of: s.edge).index), state: Int32(e), cost: c))
            }
            for k in targetsByEdge[e] ?? [] where targets[k].fraction >= s.fraction {
                let direct = (targets[k].fraction - s.fraction) * cost(e)
                if direct < finishCost[k] ?? .infinity {
                    finishCost[k] = direct
                    finishParent[k] = (-1, i)
                    heap.insert(Entry(key: direct, state: Int32(-1 - k), cost: direct))
                }
            }
        }

        var reached = -1
        var settled = 0
        while let top = heap.popMin() {
            if top.state < 0 {
                let k = Int(-1 - top.state)
                if top.cost <= finishCost[k] ?? .infinity { reached = k; break }
                continue
            }
            let e = Int(top.state)
            guard top.cost <= scratch.label(e) else { continue }
            settled += 1
            let edge = RoadGraph.EdgeID(UInt32(e))
            let twin = g.twin(of: edge)
            let eFlags = g.flags(of: edge)
            for next in turnRules.turns(from: edge, in: g) {
                let f = next.index
                let isUTurn = next == twin
                var turn = 0.0
                if !shortest { turn = turnDuration(from: edge, to: next, isUTurn: isUTurn) }
                // Entering destination-only roads (access=private/destination for cars) costs
                // OSRM's maximal turn weight, so they are used only to reach a place inside.
                if !eFlags.contains(.restricted), g.flags(of: next).contains(.restricted) {
                    turn += Router.restrictedEntryWeight
                }
                let base = top.cost + turn
                if let ks = targetsByEdge[f] {
                    for k in ks {
                        let c = base + targets[k].fraction * cost(f)
                        if c < finishCost[k] ?? .infinity {
                            finishCost[k] = c
                            finishParent[k] = (Int32(e), -1)
                            heap.insert(Entry(key: c, state: Int32(-1 - k), cost: c))
                        }
                    }
                }
                let c = base + cost(f)
                if c < scratch.label(f) {
                    scratch.set(f, cost: c, parent: Int32(e))
                    heap.insert(Entry(key: c + bound(g.target(of: next).index), state: Int32(f), cost: c))
                }
            }
        }
        guard reached >= 0, let fin = finishParent[reached] else {
            throw RouteError(.noRoute, "no allowed path from \(sources[0].coordinate) to \(targets[0].coordinate)")
        }

        // Reconstruct: edges from the source edge to the target edge.
        let target = targets[reached]
        var path: [Int] = []
        let sourceIndex: Int
        if fin.pred < 0 {
            path = [target.edge.index]
            sourceIndex = fin.source
        } else {
            var e = Int(fin.pred)
            var chain = [target.edge.index, e]
            while scratch.parent[e] >= 0 {
                e = Int(scratch.parent[e])
                chain.append(e)
            }
            sourceIndex = Int(-1 - scratch.parent[e])
            path = chain.reversed()
        }
        let source = sources[sourceIndex]
        var route = assemble(path: path, source: source, target: target, weight: finishCost[reached] ?? 0, shortest: shortest)
        route.settledEdgeCount = settled
        return route
    }

    /// Sums length and duration (turn costs included) and stitches the geometry.
    private func assemble(path: [Int], source: EdgeSnap, target: EdgeSnap, weight: Double, shortest: Bool) -> Route {
        let g = graph
        var distance = 0.0, seconds = 0.0
        var geometry: [Coordinate] = []
        for (i, e) in path.enumerated() {
            let from = i == 0 ? source.fraction : 0
            let to = i == path.count - 1 ? target.fraction : 1
            let edge = RoadGraph.EdgeID(UInt32(e))
            distance += (to - from) * g.length(of: edge).meters
            // The column, not `duration(of:)`: a `Duration` round trip per edge could change
            // the last bits of the sum, and route durations are compared with OSRM's.
            seconds += (to - from) * Double(g.edgeDurations[e])
            var piece = g.geometry(of: edge, from: from, to: to)
            if !geometry.isEmpty, let last = geometry.last, piece.first == last { piece.removeFirst() }
            geometry.append(contentsOf: piece)
            if i > 0 {
                let previous = RoadGraph.EdgeID(UInt32(path[i - 1]))
                seconds += turnDuration(from: previous, to: edge, isUTurn: g.twin(of: previous) == edge)
            }
        }
        if geometry.count == 1, let only = geometry.first { geometry.append(only) }
        return Route(distance: Distance(meters: max(0, distance)), duration: .seconds(max(0, seconds)),
                     weight: weight, geometry: geometry, edges: path.map { RoadGraph.EdgeID(UInt32($0)) },
                     start: source, end: target, settledEdgeCount: 0)
    }

    /// Seconds for turning from `edge` onto `next` at their shared node: the profile's turn
    /// cost plus the node's penalty (traffic signals, barriers).
    @inline(__always)
    private func turnDuration(from edge: RoadGraph.EdgeID, to next: RoadGraph.EdgeID, isUTurn: Bool) -> Double {
        let g = graph
        let node = g.target(of: edge)
        let angle = g.endBearing(of: edge).turn(to: g.startBearing(of: next))
        let roundabout = g.flags(of: edge).union(g.flags(of: next)).contains(.roundabout)
        // The penalty column, not `penalty(of:)`: this runs per relaxation, and a `Duration`
        // round trip would cost time and could change the last bits of route weights.
        return g.turnCosts.seconds(angle: isUTurn ? 180 : angle, roadCount: g.roadCount(of: node),
                                    isUTurn: isUTurn, involvesRoundabout: roundabout)
            + Double(g.nodePenalties[node.index])
    }
}
