public import GeoCore

/// A node (intersection, dead end, barrier or restriction via point) of a `RoadGraph`.
public struct NodeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: NodeID, b: NodeID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "n\(rawValue)" }
}

/// A directed edge of a `RoadGraph`: one direction of travel along one road segment.
public struct EdgeID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: UInt32
    @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: EdgeID, b: EdgeID) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "e\(rawValue)" }
}

/// A via-node turn restriction between two directed edges (OSM `type=restriction`).
public struct TurnRestriction: Hashable, Sendable {
    /// `no_*` forbids the turn; `only_*` forbids every other turn from `from`.
    public enum Kind: UInt8, Hashable, Sendable { case prohibitive = 0, mandatory = 1 }
    /// The edge arriving at the via node.
    public var from: EdgeID
    /// The edge leaving the via node.
    public var to: EdgeID
    public var kind: Kind

    public init(from: EdgeID, to: EdgeID, kind: Kind) {
        self.from = from
        self.to = to
        self.kind = kind
    }
}

/// An immutable road graph in compressed-sparse-row form (OSRM `StaticGraph`): nodes are
/// intersections and dead ends, each undirected *segment* between two nodes keeps its shape
/// points, and each allowed direction of a segment is a directed *edge* with its own
/// duration and weight. Coordinates are fixed-point `Int32` at 1e7 degrees (STYLE.md §3.4).
///
/// A `RoadGraph` is a `Sendable` value: share one across threads and run queries with
/// per-query scratch state (STYLE.md §3.12). Build one with `RoadGraphBuilder`; store it
/// with `serialized()` and `init(serialized:)`.
public struct RoadGraph: Sendable {
    /// Flags of a node.
    public struct NodeFlags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Travel cannot pass through (a bollard); only a U-turn is possible there.
        public static let barrier = NodeFlags(rawValue: 1)
    }

    /// Flags of a directed edge.
    public struct EdgeFlags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Access is limited to destination traffic (`access=private` for cars, …).
        public static let restricted = EdgeFlags(rawValue: 1)
        /// Part of a roundabout.
        public static let roundabout = EdgeFlags(rawValue: 2)
        /// At least one turn restriction starts from this edge.
        public static let hasRestrictions = EdgeFlags(rawValue: 4)
        /// The edge traverses its segment's shape from last point to first.
        public static let reversed = EdgeFlags(rawValue: 8)
    }

    /// The profile name the graph was built for (`car`, `foot`, `bicycle`).
    public let profileName: String
    /// Turn costs of that profile, applied at query time.
    public let turnCosts: TurnCostModel

    // Nodes.
    /// Node latitudes, degrees × 1e7.
    public let nodeLatitudes: ContiguousArray<Int32>
    /// Node longitudes, degrees × 1e7.
    public let nodeLongitudes: ContiguousArray<Int32>
    /// The OSM id each node came from.
    public let nodeOSMIDs: ContiguousArray<Int64>
    /// Node flags (`NodeFlags` raw values).
    public let nodeFlags: ContiguousArray<UInt8>
    /// Seconds added when passing through a node (traffic signals, gates).
    public let nodePenalties: ContiguousArray<Float>
    /// Number of distinct road segments meeting at a node (OSRM `number_of_roads`).
    public let nodeRoadCounts: ContiguousArray<UInt8>
    /// CSR offsets: the outgoing edges of node `n` are `firstEdge[n] ..< firstEdge[n + 1]`.
    public let firstEdge: ContiguousArray<UInt32>
    /// CSR offsets into `incomingEdges`.
    public let firstIncoming: ContiguousArray<UInt32>
    /// Edge ids grouped by target node.
    public let incomingEdges: ContiguousArray<UInt32>

    // Directed edges, sorted by source node.
    public let edgeSources: ContiguousArray<UInt32>
    public let edgeTargets: ContiguousArray<UInt32>
    /// The segment each edge runs along.
    public let edgeSegments: ContiguousArray<UInt32>
    /// Travel time along the whole edge, seconds (compressed-node penalties included).
    public let edgeDurations: ContiguousArray<Float>
    /// Routing weight of the whole edge, seconds (duration ÷ the profile's rate factor).
    public let edgeWeights: ContiguousArray<Float>
    /// Speed, km/h.
    public let edgeSpeeds: ContiguousArray<Float>
    /// `EdgeFlags` raw values.
    public let edgeFlags: ContiguousArray<UInt8>
    /// `TravelMode` raw values.
    public let edgeModes: ContiguousArray<UInt8>
    /// The edge running the other way along the same segment, or `UInt32.max`.
    public let edgeTwins: ContiguousArray<UInt32>
    /// Bearing leaving the source node, degrees clockwise from north.
    public let edgeStartBearings: ContiguousArray<Float>
    /// Bearing arriving at the target node, degrees clockwise from north.
    public let edgeEndBearings: ContiguousArray<Float>

    // Segments.
    /// Shape offsets: the points of segment `s` are `shapeOffsets[s] ..< shapeOffsets[s + 1]`.
    public let shapeOffsets: ContiguousArray<UInt32>
    public let shapeLatitudes: ContiguousArray<Int32>
    public let shapeLongitudes: ContiguousArray<Int32>
    /// Segment length, metres.
    public let segmentLengths: ContiguousArray<Double>
    /// The OSM way each segment came from.
    public let segmentWayIDs: ContiguousArray<Int64>
    /// Index into `names`.
    public let segmentNames: ContiguousArray<UInt32>
    /// `RoadClass` raw values.
    public let segmentClasses: ContiguousArray<UInt8>
    /// Distinct street names; index 0 is the empty name.
    public let names: [String]

    // Turn restrictions, sorted by `from` edge.
    public let restrictions: ContiguousArray<TurnRestriction>

    /// Assembles a graph from its columns, checking every cross-reference.
    /// - Throws: `RoadNetworkError.corrupt` naming the first broken invariant.
    /// - Complexity: O(nodes + edges + shape points + restrictions).
    init(
        profileName: String, turnCosts: TurnCostModel,
        nodeLatitudes: ContiguousArray<Int32>, nodeLongitudes: ContiguousArray<Int32>,
        nodeOSMIDs: ContiguousArray<Int64>, nodeFlags: ContiguousArray<UInt8>,
        nodePenalties: ContiguousArray<Float>, nodeRoadCounts: ContiguousArray<UInt8>,
        firstEdge: ContiguousArray<UInt32>, firstIncoming: ContiguousArray<UInt32>,
        incomingEdges: ContiguousArray<UInt32>,
        edgeSources: ContiguousArray<UInt32>, edgeTargets: ContiguousArray<UInt32>,
        edgeSegments: ContiguousArray<UInt32>, edgeDurations: ContiguousArray<Float>,
        edgeWeights: ContiguousArray<Float>, edgeSpeeds: ContiguousArray<Float>,
        edgeFlags: ContiguousArray<UInt8>, edgeModes: ContiguousArray<UInt8>,
        edgeTwins: ContiguousArray<UInt32>,
        edgeStartBearings: ContiguousArray<Float>, edgeEndBearings: ContiguousArray<Float>,
        shapeOffsets: ContiguousArray<UInt32>, shapeLatitudes: ContiguousArray<Int32>,
        shapeLongitudes: ContiguousArray<Int32>, segmentLengths: ContiguousArray<Double>,
        segmentWayIDs: ContiguousArray<Int64>, segmentNames: ContiguousArray<UInt32>,
        segmentClasses: ContiguousArray<UInt8>, names: [String],
        restrictions: ContiguousArray<TurnRestriction>
    ) throws(RoadNetworkError) {
        let n = nodeLatitudes.count, e = edgeTargets.count, s = segmentLengths.count
        func check(_ ok: Bool, _ what: String) throws(RoadNetworkError) {
            if !ok { throw RoadNetworkError(.corrupt, what) }
        }
        try check([nodeLongitudes.count, nodeOSMIDs.count, nodeFlags.count, nodePenalties.count, nodeRoadCounts.count].allSatisfy { $0 == n },
                  "node columns differ in length")
        try check(firstEdge.count == n + 1 && firstIncoming.count == n + 1, "node offset columns have the wrong length")
        try check([edgeSources.count, edgeSegments.count, edgeDurations.count, edgeWeights.count, edgeSpeeds.count,
                   edgeFlags.count, edgeModes.count, edgeTwins.count, edgeStartBearings.count, edgeEndBearings.count,
                   incomingEdges.count].allSatisfy { $0 == e }, "edge columns differ in length")
        try check(shapeOffsets.count == s + 1 && [segmentWayIDs.count, segmentNames.count, segmentClasses.count].allSatisfy { $0 == s },
                  "segment columns differ in length")
        try check(shapeLatitudes.count == shapeLongitudes.count, "shape columns differ in length")
        try check(firstEdge.first == 0 && firstEdge.last.map(Int.init) == e, "edge offsets do not span the edges")
        try check(firstIncoming.first == 0 && firstIncoming.last.map(Int.init) == e, "incoming offsets do not span the edges")
        for i in 0..<n {
            try check(firstEdge[i] <= firstEdge[i + 1] && firstIncoming[i] <= firstIncoming[i + 1], "node offsets decrease at node \(i)")
        }
        try check(shapeOffsets.first == 0 && shapeOffsets.last.map(Int.init) == shapeLatitudes.count, "shape offsets do not span the points")
        for i in 0..<s {
            try check(shapeOffsets[i] + 2 <= shapeOffsets[i + 1], "segment \(i) has fewer than two points")
            try check(Int(segmentNames[i]) < names.count, "segment \(i) names a missing name")
        }
        for i in 0..<e {
            try check(Int(edgeSources[i]) < n && Int(edgeTargets[i]) < n, "edge \(i) has an endpoint out of range")
            try check(i >= Int(firstEdge[Int(edgeSources[i])]) && i < Int(firstEdge[Int(edgeSources[i]) + 1]),
                      "edge \(i) is not in its source's CSR row")
            try check(Int(edgeSegments[i]) < s, "edge \(i) has a segment out of range")
            try check(edgeTwins[i] == UInt32.max || Int(edgeTwins[i]) < e, "edge \(i) has a twin out of range")
            try check(Int(incomingEdges[i]) < e, "incoming entry \(i) is out of range")
        }
        for r in restrictions {
            try check(r.from.index < e && r.to.index < e, "a turn restriction names an edge out of range")
        }
        self.profileName = profileName
        self.turnCosts = turnCosts
        self.nodeLatitudes = nodeLatitudes
        self.nodeLongitudes = nodeLongitudes
        self.nodeOSMIDs = nodeOSMIDs
        self.nodeFlags = nodeFlags
        self.nodePenalties = nodePenalties
        self.nodeRoadCounts = nodeRoadCounts
        self.firstEdge = firstEdge
        self.firstIncoming = firstIncoming
        self.incomingEdges = incomingEdges
        self.edgeSources = edgeSources
        self.edgeTargets = edgeTargets
        self.edgeSegments = edgeSegments
        self.edgeDurations = edgeDurations
        self.edgeWeights = edgeWeights
        self.edgeSpeeds = edgeSpeeds
        self.edgeFlags = edgeFlags
        self.edgeModes = edgeModes
        self.edgeTwins = edgeTwins
        self.edgeStartBearings = edgeStartBearings
        self.edgeEndBearings = edgeEndBearings
        self.shapeOffsets = shapeOffsets
        self.shapeLatitudes = shapeLatitudes
        self.shapeLongitudes = shapeLongitudes
        self.segmentLengths = segmentLengths
        self.segmentWayIDs = segmentWayIDs
        self.segmentNames = segmentNames
        self.segmentClasses = segmentClasses
        self.names = names
        self.restrictions = restrictions
    }

    // MARK: Sizes

    public var nodeCount: Int { nodeLatitudes.count }
    public var edgeCount: Int { edgeTargets.count }
    public var segmentCount: Int { segmentLengths.count }

    // MARK: Nodes

    /// The node's position.
    public func coordinate(of node: NodeID) -> Coordinate {
        Coordinate(uncheckedLatitude: degrees(nodeLatitudes[node.index]), longitude: degrees(nodeLongitudes[node.index]))
    }

    /// The node's flags.
    public func flags(of node: NodeID) -> NodeFlags { NodeFlags(rawValue: nodeFlags[node.index]) }

    /// The edges leaving `node`.
    /// - Complexity: O(1).
    public func outgoingEdges(of node: NodeID) -> [EdgeID] {
        (Int(firstEdge[node.index])..<Int(firstEdge[node.index + 1])).map { EdgeID(UInt32($0)) }
    }

    /// The edges arriving at `node`.
    public func incomingEdges(of node: NodeID) -> [EdgeID] {
        (Int(firstIncoming[node.index])..<Int(firstIncoming[node.index + 1])).map { EdgeID(incomingEdges[$0]) }
    }

    // MARK: Edges

    public func source(of edge: EdgeID) -> NodeID { NodeID(edgeSources[edge.index]) }
    public func target(of edge: EdgeID) -> NodeID { NodeID(edgeTargets[edge.index]) }
    /// The segment's length.
    public func length(of edge: EdgeID) -> Distance { Distance(meters: segmentLengths[Int(edgeSegments[edge.index])]) }
    /// Travel time along the whole edge.
    public func duration(of edge: EdgeID) -> Duration { .seconds(Double(edgeDurations[edge.index])) }
    public func speed(of edge: EdgeID) -> Speed { .kilometersPerHour(Double(edgeSpeeds[edge.index])) }
    public func flags(of edge: EdgeID) -> EdgeFlags { EdgeFlags(rawValue: edgeFlags[edge.index]) }
    public func mode(of edge: EdgeID) -> TravelMode { TravelMode(rawValue: edgeModes[edge.index]) ?? .driving }
    public func name(of edge: EdgeID) -> String { names[Int(segmentNames[Int(edgeSegments[edge.index])])] }
    public func roadClass(of edge: EdgeID) -> RoadClass { RoadClass(rawValue: segmentClasses[Int(edgeSegments[edge.index])]) }
    public func wayID(of edge: EdgeID) -> Int64 { segmentWayIDs[Int(edgeSegments[edge.index])] }
    /// The edge over the same segment in the other direction, if that direction is allowed.
    public func twin(of edge: EdgeID) -> EdgeID? {
        let t = edgeTwins[edge.index]
        return t == UInt32.max ? nil : EdgeID(t)
    }

    /// The shape of the edge from its source to its target, as fixed-point pairs.
    public func shape(of edge: EdgeID) -> [(latitudeE7: Int32, longitudeE7: Int32)] {
        let seg = Int(edgeSegments[edge.index])
        let range = Int(shapeOffsets[seg])..<Int(shapeOffsets[seg + 1])
        var points = range.map { (shapeLatitudes[$0], shapeLongitudes[$0]) }
        if flags(of: edge).contains(.reversed) { points.reverse() }
        return points
    }

    /// The shape of the edge from its source to its target.
    public func geometry(of edge: EdgeID) -> [Coordinate] {
        shape(of: edge).map { Coordinate(uncheckedLatitude: degrees($0.latitudeE7), longitude: degrees($0.longitudeE7)) }
    }

    /// The turn restrictions that start from `edge`.
    /// - Complexity: O(log r) in the number of restrictions.
    public func restrictions(from edge: EdgeID) -> ArraySlice<TurnRestriction> {
        guard edgeFlags[edge.index] & EdgeFlags.hasRestrictions.rawValue != 0 else { return [] }
        var lo = 0, hi = restrictions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if restrictions[mid].from < edge { lo = mid + 1 } else { hi = mid }
        }
        var end = lo
        while end < restrictions.count, restrictions[end].from == edge { end += 1 }
        return restrictions[lo..<end]
    }

    /// Whether turning from `from` onto `to` at their shared node is allowed by the
    /// turn restrictions (geometry, U-turns and barriers are the router's business).
    /// - Complexity: O(log r).
    public func isTurnAllowed(from: EdgeID, to: EdgeID) -> Bool {
        let rs = restrictions(from: from)
        if rs.isEmpty { return true }
        var hasMandatory = false, matchesMandatory = false
        for r in rs {
            switch r.kind {
            case .prohibitive: if r.to == to { return false }
            case .mandatory:
                hasMandatory = true
                if r.to == to { matchesMandatory = true }
            }
        }
        return !hasMandatory || matchesMandatory
    }

    /// The bounding box of all nodes and shape points, or nil for an empty graph.
    public var boundingBox: BoundingBox? {
        guard !shapeLatitudes.isEmpty else { return nil }
        var south = Int32.max, north = Int32.min, west = Int32.max, east = Int32.min
        for i in shapeLatitudes.indices {
            south = min(south, shapeLatitudes[i]); north = max(north, shapeLatitudes[i])
            west = min(west, shapeLongitudes[i]); east = max(east, shapeLongitudes[i])
        }
        return try? BoundingBox(south: degrees(south), west: degrees(west), north: degrees(north), east: degrees(east))
    }
}

extension RoadGraph {
    /// The part of an edge's shape between two fractions of its length (0 = source,
    /// 1 = target), with interpolated end points; `from` may exceed `to` for the reverse.
    /// - Complexity: O(shape points of the edge).
    public func geometry(of edge: EdgeID, from start: Double, to end: Double) -> [Coordinate] {
        let points = shape(of: edge)
        guard points.count >= 2 else { return geometry(of: edge) }
        var cumulative = [0.0]
        cumulative.reserveCapacity(points.count)
        for i in 1..<points.count {
            cumulative.append(cumulative[i - 1] + segmentLength(lat1: points[i - 1].latitudeE7, lon1: points[i - 1].longitudeE7,
                                                                lat2: points[i].latitudeE7, lon2: points[i].longitudeE7))
        }
        let total = cumulative[cumulative.count - 1]
        func point(at fraction: Double) -> (Coordinate, Int) {
            let target = min(1, max(0, fraction)) * total
            var i = 1
            while i < points.count - 1, cumulative[i] < target { i += 1 }
            let span = cumulative[i] - cumulative[i - 1]
            let t = span > 0 ? (target - cumulative[i - 1]) / span : 0
            let lat = degrees(points[i - 1].latitudeE7) + t * (degrees(points[i].latitudeE7) - degrees(points[i - 1].latitudeE7))
            let lon = degrees(points[i - 1].longitudeE7) + t * (degrees(points[i].longitudeE7) - degrees(points[i - 1].longitudeE7))
            return (Coordinate(uncheckedLatitude: lat, longitude: lon), i)
        }
        let lo = min(start, end), hi = max(start, end)
        let (a, ia) = point(at: lo)
        let (b, ib) = point(at: hi)
        var result = [a]
        if ib > ia {
            for k in ia..<ib where cumulative[k] > lo * total && cumulative[k] < hi * total {
                result.append(Coordinate(uncheckedLatitude: degrees(points[k].latitudeE7), longitude: degrees(points[k].longitudeE7)))
            }
        }
        result.append(b)
        return start <= end ? result : result.reversed()
    }
}
