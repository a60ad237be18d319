public import Platform
public import GeoCore
public import RoadNetwork

/// One fix of a trace to match: where, when (nil when the source has no times) and how well
/// known (the 68 % horizontal radius; nil when not reported).
public struct TracePoint: Hashable, Sendable {
    public var coordinate: Coordinate
    public var time: Date?
    public var horizontalAccuracy: Distance?

    public init(coordinate: Coordinate, time: Date? = nil, horizontalAccuracy: Distance? = nil) {
        self.coordinate = coordinate
        self.time = time
        self.horizontalAccuracy = horizontalAccuracy
    }

    /// The fix of a `Location` (a negative accuracy, "invalid" by Core Location's convention,
    /// counts as not reported).
    public init(_ location: Location) {
        self.init(coordinate: location.coordinate, time: location.timestamp, horizontalAccuracy: location.horizontalAccuracy)
    }
}

/// Where one input fix was matched.
public struct MatchedPoint: Hashable, Sendable {
    /// The fix's position in the input.
    public var index: Int
    /// The match, or nil: no road within the candidate radius, off-road, or an invalid coordinate.
    public var match: RoadPosition?

    public init(index: Int, match: RoadPosition?) {
        self.index = index
        self.match = match
    }
}

/// A matched position on the road graph.
public struct RoadPosition: Hashable, Sendable {
    /// The point on the road.
    public var coordinate: Coordinate
    /// From the fix to `coordinate`.
    public var distance: Distance
    /// The directed edge it lies on and the fraction of that edge's length from its source.
    public var edge: RoadGraph.EdgeID
    public var fraction: Double
    /// The OSM node ids of the shape piece it lies on, in the edge's direction.
    public var nodes: (Int64, Int64) {
        get { (nodeA, nodeB) }
        set { (nodeA, nodeB) = newValue }
    }
    private var nodeA: Int64
    private var nodeB: Int64
    /// The sub-matching it belongs to (an index into `MatchResult.subMatchings`).
    public var subMatching: Int

    public init(coordinate: Coordinate, distance: Distance, edge: RoadGraph.EdgeID, fraction: Double, nodes: (Int64, Int64), subMatching: Int) {
        self.coordinate = coordinate
        self.distance = distance
        self.edge = edge
        self.fraction = fraction
        self.nodeA = nodes.0
        self.nodeB = nodes.1
        self.subMatching = subMatching
    }
}

/// A stretch of the trace matched to one connected path (OSRM `/match`'s `matchings[]`).
/// The trace breaks into several at time or distance gaps, times going backwards, and where no
/// road path explains two consecutive fixes.
public struct SubMatching: Sendable {
    /// Its position in `MatchResult.subMatchings`.
    public var index: Int
    /// The directed edges driven, in order; the first and last may be driven in part.
    public var edges: [RoadGraph.EdgeID] = []
    /// The OSM way of each edge.
    public var wayIDs: [Int64] = []
    /// The OSM node ids along the path, in order: every shape point of every edge, partial
    /// first and last edges included whole (OSRM's `annotations=nodes`).
    public var nodeIDs: [Int64] = []
    /// The path from the first matched position to the last.
    public var geometry: [Coordinate] = []
    /// Length along the path, metres.
    public var distance: Double = 0
    /// Travel time along the path at the profile's speeds, seconds.
    public var duration: Double = 0
    /// Routed fixes in it (projected fixes not counted).
    public private(set) var routedFixCount = 0
    /// The sum over routed fixes of the chosen state's normalised Viterbi probability.
    private var probabilitySum = 0.0

    public init(index: Int) { self.index = index }

    /// How clearly the chosen path beat the alternatives, in [0, 1]: the mean over its routed
    /// fixes of the chosen candidate's share of the Viterbi probability at that fix (1 when
    /// every fix had a single plausible road, near 0.5 when two roads stayed equally likely).
    public var confidence: Double { routedFixCount == 0 ? 0 : probabilitySum / Double(routedFixCount) }

    mutating func count(probability: Double) {
        routedFixCount += 1
        probabilitySum += probability
    }

    /// Appends a continuation piece of the same sub-matching (see `MatchingSession.takeCommitted()`).
    public mutating func append(_ piece: SubMatching) {
        precondition(piece.index == index, "SubMatching.append: piece of sub-matching \(piece.index) appended to \(index)")
        edges += piece.edges
        wayIDs += piece.wayIDs
        nodeIDs += piece.nodeIDs
        if let first = piece.geometry.first, first == geometry.last { geometry += piece.geometry.dropFirst() } else { geometry += piece.geometry }
        distance += piece.distance
        duration += piece.duration
        routedFixCount += piece.routedFixCount
        probabilitySum += piece.probabilitySum
    }
}

/// A whole trace's match.
public struct MatchResult: Sendable {
    public var subMatchings: [SubMatching]
    /// One per input fix, in input order.
    public var points: [MatchedPoint]

    public init(subMatchings: [SubMatching], points: [MatchedPoint]) {
        self.subMatchings = subMatchings
        self.points = points
    }
}
