/// A via-node turn restriction between two directed edges (OSM `type=restriction`).
public struct TurnRestriction: Hashable, Sendable {
    /// `no_*` forbids the turn; `only_*` forbids every other turn from `from`.
    public enum Kind: UInt8, Hashable, Sendable { case prohibitive = 0, mandatory = 1 }
    /// The edge arriving at the via node.
    public var from: RoadGraph.EdgeID
    /// The edge leaving the via node.
    public var to: RoadGraph.EdgeID
    public var kind: Kind

    public init(from: RoadGraph.EdgeID, to: RoadGraph.EdgeID, kind: Kind) {
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
///
/// Clients read the graph through a narrow facade (RoadGraph+Access.swift): typed
/// ``NodeID``, ``EdgeID`` and ``SegmentID``, adjacency as allocation-free collections,
/// geometry and attributes with units in their types, like the data facade OSRM's engine
/// queries. The columns below are the storage layout and stay `package`: contraction or
/// memory-mapped loading may change them without breaking a client. Inside the package,
/// code reads a column directly only where a benchmark shows the facade costs, and says so.
public struct RoadGraph: Sendable {
    /// Flags of a node.
    public struct NodeFlags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Travel cannot pass through (a bollard); only a U-turn is possible there.
        @inlinable public static var barrier: NodeFlags { NodeFlags(rawValue: 1) }
    }

    /// Flags of a directed edge.
    public struct EdgeFlags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Access is limited to destination traffic (`access=private` for cars, …).
        @inlinable public static var restricted: EdgeFlags { EdgeFlags(rawValue: 1) }
        /// Part of a roundabout.
        @inlinable public static var roundabout: EdgeFlags { EdgeFlags(rawValue: 2) }
        /// At least one turn restriction starts from this edge.
        @inlinable public static var hasRestrictions: EdgeFlags { EdgeFlags(rawValue: 4) }
        /// The edge traverses its segment's shape from last point to first.
        @inlinable public static var reversed: EdgeFlags { EdgeFlags(rawValue: 8) }
        /// No route may start or end on this edge (OSRM `is_startpoint = false`: ferries,
        /// private service roads for cars; `WayAttributes.isStartPoint`). Routes still pass it.
        @inlinable public static var notStartPoint: EdgeFlags { EdgeFlags(rawValue: 16) }
    }

    /// The profile name the graph was built for (`car`, `foot`, `bicycle`).
    public let profileName: String
    /// Turn costs of that profile, applied at query time.
    public let turnCosts: TurnCostModel

    // MARK: Storage (package: see the type's comment)

    // Nodes.
    /// Node latitudes, degrees × 1e7.
    @usableFromInline package let nodeLatitudes: GraphColumn<Int32>
    /// Node longitudes, degrees × 1e7.
    @usableFromInline package let nodeLongitudes: GraphColumn<Int32>
    /// The OSM id each node came from.
    @usableFromInline package let nodeOSMIDs: GraphColumn<Int64>
    /// Node flags (`NodeFlags` raw values).
    @usableFromInline package let nodeFlags: GraphColumn<UInt8>
    /// Seconds added when passing through a node (traffic signals, gates).
    @usableFromInline package let nodePenalties: GraphColumn<Float>
    /// Number of distinct road segments meeting at a node (OSRM `number_of_roads`).
    @usableFromInline package let nodeRoadCounts: GraphColumn<UInt8>
    /// CSR offsets: the outgoing edges of node `n` are `firstEdge[n] ..< firstEdge[n + 1]`.
    @usableFromInline package let firstEdge: GraphColumn<UInt32>
    /// CSR offsets into `incomingEdges`.
    @usableFromInline package let firstIncoming: GraphColumn<UInt32>
    /// Edge ids grouped by target node.
    @usableFromInline package let incomingEdges: GraphColumn<UInt32>

    // Directed edges, sorted by source node.
    @usableFromInline package let edgeSources: GraphColumn<UInt32>
    @usableFromInline package let edgeTargets: GraphColumn<UInt32>
    /// The segment each edge runs along.
    @usableFromInline package let edgeSegments: GraphColumn<UInt32>
    /// Travel time along the whole edge, seconds (compressed-node penalties included).
    @usableFromInline package let edgeDurations: GraphColumn<Float>
    /// Routing weight of the whole edge, seconds (duration ÷ the profile's rate factor).
    @usableFromInline package let edgeWeights: GraphColumn<Float>
    /// Speed, km/h.
    @usableFromInline package let edgeSpeeds: GraphColumn<Float>
    /// `EdgeFlags` raw values.
    @usableFromInline package let edgeFlags: GraphColumn<UInt8>
    /// `TravelMode` raw values.
    @usableFromInline package let edgeModes: GraphColumn<UInt8>
    /// The edge running the other way along the same segment, or `UInt32.max`.
    @usableFromInline package let edgeTwins: GraphColumn<UInt32>
    /// Bearing leaving the source node, degrees clockwise from north.
    @usableFromInline package let edgeStartBearings: GraphColumn<Float>
    /// Bearing arriving at the target node, degrees clockwise from north.
    @usableFromInline package let edgeEndBearings: GraphColumn<Float>

    // Segments.
    /// Shape offsets: the points of segment `s` are `shapeOffsets[s] ..< shapeOffsets[s + 1]`.
    @usableFromInline package let shapeOffsets: GraphColumn<UInt32>
    @usableFromInline package let shapeLatitudes: GraphColumn<Int32>
    @usableFromInline package let shapeLongitudes: GraphColumn<Int32>
    /// The OSM node id of each shape point (OSRM keeps them for `annotations=nodes`): a
    /// segment's first and last entries are its nodes' ids, the others the compressed nodes'.
    @usableFromInline package let shapeOSMIDs: GraphColumn<Int64>
    /// Segment length, metres.
    @usableFromInline package let segmentLengths: GraphColumn<Double>
    /// The OSM way each segment came from.
    @usableFromInline package let segmentWayIDs: GraphColumn<Int64>
    /// Index into `names`.
    @usableFromInline package let segmentNames: GraphColumn<UInt32>
    /// `RoadClass` raw values.
    @usableFromInline package let segmentClasses: GraphColumn<UInt8>
    /// Distinct street names; index 0 is the empty name.
    @usableFromInline package let names: [String]

    // Turn restrictions, sorted by `from` edge.
    @usableFromInline package let restrictions: ContiguousArray<TurnRestriction>

    /// The spatial index's grid at its default cell size, when the graph was read from a file
    /// (format 4 stores it); `SpatialIndex(graph:)` takes it instead of building one.
    package let grid: SpatialIndex.Grid?

    /// Assembles a graph from its columns, checking every cross-reference and every value the
    /// queries compute with (positions within WGS84's range, finite non-negative costs,
    /// lengths and penalties, finite bearings, sorted turn restrictions, turn costs
    /// `TurnCostModel.isValid`), whatever a file's CRC says (and, under GEO_INTERNAL_CHECKS,
    /// every invariant: `_checkInvariants()`) and a stored spatial grid
    /// (`SpatialIndex.Grid.validate`). The builder's and the file reader's way in;
    /// tests use it to assemble deliberately broken graphs.
    /// - Throws: `RoadNetworkError.corrupt` naming the first element that breaks the first rule
    ///   broken.
    /// - Complexity: O(nodes + edges + shape points + restrictions).
    package init(
        profileName: String, turnCosts: TurnCostModel,
        nodeLatitudes: GraphColumn<Int32>, nodeLongitudes: GraphColumn<Int32>,
        nodeOSMIDs: GraphColumn<Int64>, nodeFlags: GraphColumn<UInt8>,
        nodePenalties: GraphColumn<Float>, nodeRoadCounts: GraphColumn<UInt8>,
        firstEdge: GraphColumn<UInt32>, firstIncoming: GraphColumn<UInt32>,
        incomingEdges: GraphColumn<UInt32>,
        edgeSources: GraphColumn<UInt32>, edgeTargets: GraphColumn<UInt32>,
        edgeSegments: GraphColumn<UInt32>, edgeDurations: GraphColumn<Float>,
        edgeWeights: GraphColumn<Float>, edgeSpeeds: GraphColumn<Float>,
        edgeFlags: GraphColumn<UInt8>, edgeModes: GraphColumn<UInt8>,
        edgeTwins: GraphColumn<UInt32>,
        edgeStartBearings: GraphColumn<Float>, edgeEndBearings: GraphColumn<Float>,
        shapeOffsets: GraphColumn<UInt32>, shapeLatitudes: GraphColumn<Int32>,
        shapeLongitudes: GraphColumn<Int32>, shapeOSMIDs: GraphColumn<Int64>,
        segmentLengths: GraphColumn<Double>,
        segmentWayIDs: GraphColumn<Int64>, segmentNames: GraphColumn<UInt32>,
        segmentClasses: GraphColumn<UInt8>, names: [String],
        restrictions: ContiguousArray<TurnRestriction>, grid: SpatialIndex.Grid? = nil
    ) throws(RoadNetworkError) {
        let n = nodeLatitudes.count, e = edgeTargets.count, s = segmentLengths.count
        // The message is an autoclosure: building it per element cost more than the checks.
        func check(_ ok: Bool, _ what: @autoclosure () -> String) throws(RoadNetworkError) {
            if !ok { throw RoadNetworkError(.corrupt, what()) }
        }
        try check([nodeLongitudes.count, nodeOSMIDs.count, nodeFlags.count, nodePenalties.count, nodeRoadCounts.count].allSatisfy { $0 == n },
                  "node columns differ in length")
        try check(firstEdge.count == n + 1 && firstIncoming.count == n + 1, "node offset columns have the wrong length")
        try check([edgeSources.count, edgeSegments.count, edgeDurations.count, edgeWeights.count, edgeSpeeds.count,
                   edgeFlags.count, edgeModes.count, edgeTwins.count, edgeStartBearings.count, edgeEndBearings.count,
                   incomingEdges.count].allSatisfy { $0 == e }, "edge columns differ in length")
        try check(shapeOffsets.count == s + 1 && [segmentWayIDs.count, segmentNames.count, segmentClasses.count].allSatisfy { $0 == s },
                  "segment columns differ in length")
        try check(shapeLatitudes.count == shapeLongitudes.count && shapeOSMIDs.count == shapeLatitudes.count,
                  "shape columns differ in length")
        try check(firstEdge.first == 0 && firstEdge.last.map(Int.init) == e, "edge offsets do not span the edges")
        try check(firstIncoming.first == 0 && firstIncoming.last.map(Int.init) == e, "incoming offsets do not span the edges")
        // Every element: a rule at a time, each one pass over its columns
        // (`GraphColumn.firstIndex(failing:)`); the error names the first element that breaks
        // the first rule broken, and a rule may index by what an earlier rule checked. Ids are
        // compared as UInt32, as they are stored (in Int the passes do not vectorise).
        try check(max(n, e, s, names.count) < Int(UInt32.max), "more than 2³² − 2 nodes, edges, segments or names")
        let (nodes, edges, segments, nameCount) = (UInt32(n), UInt32(e), UInt32(s), UInt32(names.count))
        func require(_ failure: Int?, _ what: (Int) -> String) throws(RoadNetworkError) {
            if let i = failure { throw RoadNetworkError(.corrupt, what(i)) }
        }
        func earliest(_ a: Int?, _ b: Int?) -> Int? { a.map { min($0, b ?? $0) } ?? b }
        try require(earliest(firstEdge.firstIndex(ofPairFailing: { $0 <= $1 }), firstIncoming.firstIndex(ofPairFailing: { $0 <= $1 }))) {
            "node offsets decrease at node \($0)"
        }
        try check(shapeOffsets.first == 0 && shapeOffsets.last.map(Int.init) == shapeLatitudes.count, "shape offsets do not span the points")
        // In Int: an offset near UInt32.max plus 2 would trap in UInt32.
        try require(shapeOffsets.firstIndex(ofPairFailing: { Int($0) + 2 <= Int($1) })) { "segment \($0) has fewer than two points" }
        try require(segmentNames.firstIndex(failing: { $0 < nameCount })) { "segment \($0) names a missing name" }
        try require(earliest(segmentLengths.firstIndex(failing: { $0 >= 0 }), segmentLengths.firstIndex(failing: { $0.isFinite }))) {
            "segment \($0) has a length that is negative or not a number"
        }
        try check(names.first == "", "name 0 is not the empty name")
        // Positions within WGS84's range (1e-7 degrees), so that degrees, frames and grid cells
        // made from them are finite.
        let latitude = { (v: Int32) in v.magnitude <= 900_000_000 }, longitude = { (v: Int32) in v.magnitude <= 1_800_000_000 }
        try require(earliest(nodeLatitudes.firstIndex(failing: latitude), nodeLongitudes.firstIndex(failing: longitude))) {
            "node \($0) lies outside ±90° latitude or ±180° longitude"
        }
        try require(earliest(shapeLatitudes.firstIndex(failing: latitude), shapeLongitudes.firstIndex(failing: longitude))) {
            "shape point \($0) lies outside ±90° latitude or ±180° longitude"
        }
        // Costs a shortest-path search adds up: a negative or NaN one would let it revisit
        // settled edges, its parent chain loop. (Two passes a column: `>= 0` fails NaN too.)
        func badCost(_ column: GraphColumn<Float>) -> Int? {
            earliest(column.firstIndex(failing: { $0 >= 0 }), column.firstIndex(failing: { $0.isFinite }))
        }
        try require(badCost(nodePenalties)) { "node \($0) has a penalty that is negative or not a number" }
        try require(earliest(edgeSources.firstIndex(failing: { $0 < nodes }), edgeTargets.firstIndex(failing: { $0 < nodes }))) {
            "edge \($0) has an endpoint out of range"
        }
        // The rows partition the edges (offsets from 0 to e, never decreasing): an edge lies in
        // its source's row exactly when the row it lies in is its source's.
        func firstEdgeOutsideItsRow() -> Int? {
            for v in 0..<n {
                for i in Int(firstEdge[v])..<Int(firstEdge[v + 1]) where Int(edgeSources[i]) != v { return i }
            }
            return nil
        }
        try require(firstEdgeOutsideItsRow()) { "edge \($0) is not in its source's CSR row" }
        try require(edgeSegments.firstIndex(failing: { $0 < segments })) { "edge \($0) has a segment out of range" }
        // A twin is an edge or UInt32.max (none), which wraps to 0 here.
        try require(edgeTwins.firstIndex(failing: { $0 &+ 1 <= edges })) { "edge \($0) has a twin out of range" }
        try require(incomingEdges.firstIndex(failing: { $0 < edges })) { "incoming entry \($0) is out of range" }
        try require(earliest(earliest(badCost(edgeDurations), badCost(edgeWeights)),
                             earliest(edgeSpeeds.firstIndex(failing: { $0 > 0 }), edgeSpeeds.firstIndex(failing: { $0.isFinite })))) {
            "edge \($0) has a duration, weight or speed that is negative or not a number"
        }
        try require(earliest(edgeStartBearings.firstIndex(failing: { $0.isFinite }), edgeEndBearings.firstIndex(failing: { $0.isFinite }))) {
            "edge \($0) has a bearing that is not a number"
        }
        for (k, r) in restrictions.enumerated() {
            try check(r.from.index < e && r.to.index < e, "turn restriction \(k) names an edge out of range")
            // Looked up by binary search on the from edge.
            try check(k == 0 || restrictions[k - 1].from <= r.from, "turn restrictions are not sorted by edge at \(k)")
        }
        try check(turnCosts.isValid, "the turn costs are negative, not numbers or over a day")
        try grid?.validate(shapeOffsets: shapeOffsets)
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
        self.shapeOSMIDs = shapeOSMIDs
        self.segmentLengths = segmentLengths
        self.segmentWayIDs = segmentWayIDs
        self.segmentNames = segmentNames
        self.segmentClasses = segmentClasses
        self.names = names
        self.restrictions = restrictions
        self.grid = grid
        _checkInvariants()
    }
}
