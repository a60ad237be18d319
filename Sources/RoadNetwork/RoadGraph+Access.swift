public import GeoCore

// The read facade of `RoadGraph`: typed ids, adjacency, geometry and attributes. Accessors
// are `@inlinable` over `@usableFromInline package` columns, so the router's hot loop in
// another module compiles to the same loads as direct column reads.

/// A strong id over `UInt32` for one kind of graph element (OSRM's strong typedefs): a node id
/// cannot be passed where an edge id is expected. Ids are positions in `0 ..< count` and step
/// like integers, so `graph.nodes`, `graph.edges` and `graph.segments` are plain ranges.
public protocol RoadGraphID: Hashable, Strideable, Sendable, CustomStringConvertible where Stride == Int {
    /// The position in storage.
    var rawValue: UInt32 { get }
    init(_ rawValue: UInt32)
    /// Printed before the number: "n", "e", "s".
    static var prefix: String { get }
}

extension RoadGraphID {
    /// The position in `0 ..< count`.
    @inlinable public var index: Int { Int(rawValue) }
    @inlinable public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    @inlinable public func distance(to other: Self) -> Int { Int(other.rawValue) - Int(rawValue) }
    @inlinable public func advanced(by n: Int) -> Self { Self(UInt32(Int(rawValue) + n)) }
    public var description: String { Self.prefix + String(rawValue) }
}

extension RoadGraph {
    /// A node (intersection, dead end, barrier or restriction via point).
    public struct NodeID: RoadGraphID {
        public let rawValue: UInt32
        @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
        public static var prefix: String { "n" }
    }

    /// A directed edge: one direction of travel along one segment.
    public struct EdgeID: RoadGraphID {
        public let rawValue: UInt32
        @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
        public static var prefix: String { "e" }
    }

    /// An undirected road segment between two nodes, with its shape points, length, way,
    /// name and class; one or two directed edges run along it.
    public struct SegmentID: RoadGraphID {
        public let rawValue: UInt32
        @inlinable public init(_ rawValue: UInt32) { self.rawValue = rawValue }
        public static var prefix: String { "s" }
    }

    /// The edges arriving at one node, in storage order; no allocation.
    public struct IncomingEdges: RandomAccessCollection, Sendable {
        @usableFromInline let storage: GraphColumn<UInt32>
        public let startIndex: Int
        public let endIndex: Int
        @inlinable init(storage: GraphColumn<UInt32>, range: Range<Int>) {
            self.storage = storage
            startIndex = range.lowerBound
            endIndex = range.upperBound
        }
        @inlinable public subscript(position: Int) -> EdgeID {
            precondition(position >= startIndex && position < endIndex, "IncomingEdges index out of range")
            return EdgeID(storage[position])
        }
    }

    /// The shape of an edge or segment from its first to its last point (an edge's source to
    /// its target); no allocation.
    public struct Shape: RandomAccessCollection, Sendable {
        @usableFromInline let latitudes: GraphColumn<Int32>
        @usableFromInline let longitudes: GraphColumn<Int32>
        /// Storage position of the segment's first point.
        @usableFromInline let base: Int
        @usableFromInline let isReversed: Bool
        public let startIndex: Int
        public let endIndex: Int
        @inlinable init(latitudes: GraphColumn<Int32>, longitudes: GraphColumn<Int32>, range: Range<Int>, reversed: Bool) {
            self.latitudes = latitudes
            self.longitudes = longitudes
            base = range.lowerBound
            isReversed = reversed
            startIndex = 0
            endIndex = range.count
        }
        @inlinable public subscript(position: Int) -> Coordinate {
            precondition(position >= 0 && position < endIndex, "Shape index out of range")
            let k = isReversed ? base + endIndex - 1 - position : base + position
            return Coordinate(uncheckedLatitude: degrees(latitudes[k]), longitude: degrees(longitudes[k]))
        }
    }

    /// The OSM node ids of an edge's or segment's shape points, in its direction; no allocation.
    public struct OSMNodeIDs: RandomAccessCollection, Sendable {
        @usableFromInline let storage: GraphColumn<Int64>
        @usableFromInline let base: Int
        @usableFromInline let isReversed: Bool
        public let startIndex: Int
        public let endIndex: Int
        @inlinable init(storage: GraphColumn<Int64>, range: Range<Int>, reversed: Bool) {
            self.storage = storage
            base = range.lowerBound
            isReversed = reversed
            startIndex = 0
            endIndex = range.count
        }
        @inlinable public subscript(position: Int) -> Int64 {
            precondition(position >= 0 && position < endIndex, "OSMNodeIDs index out of range")
            return storage[isReversed ? base + endIndex - 1 - position : base + position]
        }
    }

    /// The turn restrictions starting from one edge; no allocation.
    public struct TurnRestrictions: RandomAccessCollection, Sendable {
        @usableFromInline let storage: ContiguousArray<TurnRestriction>
        public let startIndex: Int
        public let endIndex: Int
        @inlinable init(storage: ContiguousArray<TurnRestriction>, range: Range<Int>) {
            self.storage = storage
            startIndex = range.lowerBound
            endIndex = range.upperBound
        }
        @inlinable public subscript(position: Int) -> TurnRestriction {
            precondition(position >= startIndex && position < endIndex, "TurnRestrictions index out of range")
            return storage[position]
        }

        /// Whether these restrictions (all from one edge) allow turning onto `next`: no
        /// `no_*` names it, and an `only_*`, if any, does.
        /// - Complexity: O(count).
        @inlinable public func allow(_ next: EdgeID) -> Bool {
            var hasMandatory = false, matchesMandatory = false
            for r in self {
                switch r.kind {
                case .prohibitive: if r.to == next { return false }
                case .mandatory:
                    hasMandatory = true
                    if r.to == next { matchesMandatory = true }
                }
            }
            return !hasMandatory || matchesMandatory
        }
    }

    // MARK: Sizes

    /// Number of nodes.
    @inlinable public var nodeCount: Int { nodeLatitudes.count }
    /// Number of directed edges.
    @inlinable public var edgeCount: Int { edgeTargets.count }
    /// Number of undirected segments.
    @inlinable public var segmentCount: Int { segmentLengths.count }
    /// Number of turn restrictions.
    public var restrictionCount: Int { restrictions.count }
    /// Every node id, in storage order.
    @inlinable public var nodes: Range<NodeID> { NodeID(0)..<NodeID(UInt32(nodeCount)) }
    /// Every edge id, in storage order (grouped by source node).
    @inlinable public var edges: Range<EdgeID> { EdgeID(0)..<EdgeID(UInt32(edgeCount)) }
    /// Every segment id.
    @inlinable public var segments: Range<SegmentID> { SegmentID(0)..<SegmentID(UInt32(segmentCount)) }

    // MARK: Nodes

    /// The node's position.
    @inlinable public func coordinate(of node: NodeID) -> Coordinate {
        Coordinate(uncheckedLatitude: degrees(nodeLatitudes[node.index]), longitude: degrees(nodeLongitudes[node.index]))
    }

    /// The OSM node the graph node came from.
    public func osmID(of node: NodeID) -> Int64 { nodeOSMIDs[node.index] }

    /// The node's flags.
    @inlinable public func flags(of node: NodeID) -> NodeFlags { NodeFlags(rawValue: nodeFlags[node.index]) }

    /// Time added for passing through the node (traffic signals, gates, barriers).
    public func penalty(of node: NodeID) -> Duration { .seconds(Double(nodePenalties[node.index])) }

    /// Number of distinct road segments meeting at the node (OSRM `number_of_roads`).
    @inlinable public func roadCount(of node: NodeID) -> Int { Int(nodeRoadCounts[node.index]) }

    /// The edges leaving `node`: a contiguous id range, as OSRM's `GetAdjacentEdgeRange`.
    /// - Complexity: O(1).
    @inlinable public func outgoingEdges(of node: NodeID) -> Range<EdgeID> {
        EdgeID(firstEdge[node.index])..<EdgeID(firstEdge[node.index + 1])
    }

    /// The edges arriving at `node`, for searches run backwards.
    /// - Complexity: O(1).
    @inlinable public func incomingEdges(of node: NodeID) -> IncomingEdges {
        IncomingEdges(storage: incomingEdges, range: Int(firstIncoming[node.index])..<Int(firstIncoming[node.index + 1]))
    }

    // MARK: Edges

    @inlinable public func source(of edge: EdgeID) -> NodeID { NodeID(edgeSources[edge.index]) }
    @inlinable public func target(of edge: EdgeID) -> NodeID { NodeID(edgeTargets[edge.index]) }
    /// The segment the edge runs along.
    @inlinable public func segment(of edge: EdgeID) -> SegmentID { SegmentID(edgeSegments[edge.index]) }
    /// Travel time along the whole edge (compressed-node penalties included).
    public func duration(of edge: EdgeID) -> Duration { .seconds(Double(edgeDurations[edge.index])) }
    /// Routing weight of the whole edge: seconds of travel divided by the profile's rate
    /// factor (OSRM's `weight`, a cost rather than a time, hence a plain number).
    @inlinable public func weight(of edge: EdgeID) -> Double { Double(edgeWeights[edge.index]) }
    /// The profile's speed on the edge.
    public func speed(of edge: EdgeID) -> Speed { .kilometersPerHour(Double(edgeSpeeds[edge.index])) }
    @inlinable public func flags(of edge: EdgeID) -> EdgeFlags { EdgeFlags(rawValue: edgeFlags[edge.index]) }
    public func mode(of edge: EdgeID) -> TravelMode { TravelMode(rawValue: edgeModes[edge.index]) ?? .driving }
    /// The edge over the same segment in the other direction, if that direction is allowed.
    @inlinable public func twin(of edge: EdgeID) -> EdgeID? {
        let t = edgeTwins[edge.index]
        return t == UInt32.max ? nil : EdgeID(t)
    }
    /// Direction of travel leaving the source node.
    @inlinable public func startBearing(of edge: EdgeID) -> Bearing { Bearing(degrees: Double(edgeStartBearings[edge.index])) }
    /// Direction of travel arriving at the target node.
    @inlinable public func endBearing(of edge: EdgeID) -> Bearing { Bearing(degrees: Double(edgeEndBearings[edge.index])) }
    /// The length of the edge's segment.
    @inlinable public func length(of edge: EdgeID) -> Distance { length(of: segment(of: edge)) }
    public func name(of edge: EdgeID) -> String { name(of: segment(of: edge)) }
    public func roadClass(of edge: EdgeID) -> RoadClass { roadClass(of: segment(of: edge)) }
    public func wayID(of edge: EdgeID) -> Int64 { wayID(of: segment(of: edge)) }

    /// The shape of the edge from its source to its target.
    /// - Complexity: O(1); the collection reads points on access.
    @inlinable public func geometry(of edge: EdgeID) -> Shape {
        let s = Int(edgeSegments[edge.index])
        return Shape(latitudes: shapeLatitudes, longitudes: shapeLongitudes,
                     range: Int(shapeOffsets[s])..<Int(shapeOffsets[s + 1]),
                     reversed: edgeFlags[edge.index] & EdgeFlags.reversed.rawValue != 0)
    }

    /// The OSM node ids along the edge's shape from its source to its target, one per shape
    /// point (`geometry(of:)`): compressed degree-2 nodes included, as OSRM reports them for
    /// `annotations=nodes`.
    /// - Complexity: O(1); the collection reads ids on access.
    @inlinable public func osmNodeIDs(of edge: EdgeID) -> OSMNodeIDs {
        let s = Int(edgeSegments[edge.index])
        return OSMNodeIDs(storage: shapeOSMIDs, range: Int(shapeOffsets[s])..<Int(shapeOffsets[s + 1]),
                          reversed: edgeFlags[edge.index] & EdgeFlags.reversed.rawValue != 0)
    }

    // MARK: Segments

    /// Length along the segment's shape.
    @inlinable public func length(of segment: SegmentID) -> Distance { Distance(meters: segmentLengths[segment.index]) }
    /// The OSM way the segment came from.
    public func wayID(of segment: SegmentID) -> Int64 { segmentWayIDs[segment.index] }
    /// The street name, empty when the way has none.
    public func name(of segment: SegmentID) -> String { names[Int(segmentNames[segment.index])] }
    public func roadClass(of segment: SegmentID) -> RoadClass { RoadClass(rawValue: segmentClasses[segment.index]) }
    /// The segment's shape in storage order (the direction of the edge without `.reversed`).
    /// - Complexity: O(1); the collection reads points on access.
    @inlinable public func geometry(of segment: SegmentID) -> Shape {
        Shape(latitudes: shapeLatitudes, longitudes: shapeLongitudes,
              range: Int(shapeOffsets[segment.index])..<Int(shapeOffsets[segment.index + 1]), reversed: false)
    }

    // MARK: Turn restrictions

    /// The turn restrictions that start from `edge`.
    /// - Complexity: O(log r) in the number of restrictions.
    @inlinable public func restrictions(from edge: EdgeID) -> TurnRestrictions {
        guard edgeFlags[edge.index] & EdgeFlags.hasRestrictions.rawValue != 0 else {
            return TurnRestrictions(storage: restrictions, range: 0..<0)
        }
        var lo = 0, hi = restrictions.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if restrictions[mid].from < edge { lo = mid + 1 } else { hi = mid }
        }
        var end = lo
        while end < restrictions.count, restrictions[end].from == edge { end += 1 }
        return TurnRestrictions(storage: restrictions, range: lo..<end)
    }

    /// Whether turning from `from` onto `to` at their shared node is allowed by the
    /// turn restrictions (geometry, U-turns and barriers are the router's business).
    /// - Complexity: O(log r).
    public func isTurnAllowed(from: EdgeID, to: EdgeID) -> Bool {
        restrictions(from: from).allow(to)
    }

    /// The bounding box of all nodes and shape points, or nil for an empty graph.
    /// - Complexity: O(shape points).
    public var boundingBox: BoundingBox? {
        guard !shapeLatitudes.isEmpty else { return nil }
        var south = Int32.max, north = Int32.min, west = Int32.max, east = Int32.min
        for i in shapeLatitudes.indices {
            south = min(south, shapeLatitudes[i]); north = max(north, shapeLatitudes[i])
            west = min(west, shapeLongitudes[i]); east = max(east, shapeLongitudes[i])
        }
        return try? BoundingBox(south: degrees(south), west: degrees(west), north: degrees(north), east: degrees(east))
    }

    /// The part of an edge's shape between two fractions of its length (0 = source,
    /// 1 = target), with interpolated end points; `from` may exceed `to` for the reverse.
    /// - Complexity: O(shape points of the edge).
    public func geometry(of edge: EdgeID, from start: Double, to end: Double) -> [Coordinate] {
        let points = geometry(of: edge)
        guard points.count >= 2 else { return Array(points) }
        var cumulative = [0.0]
        cumulative.reserveCapacity(points.count)
        for i in 1..<points.count {
            cumulative.append(cumulative[i - 1] + points.fixedPointLength(from: i - 1, to: i))
        }
        let total = cumulative[cumulative.count - 1]
        func point(at fraction: Double) -> (Coordinate, Int) {
            let target = min(1, max(0, fraction)) * total
            var i = 1
            while i < points.count - 1, cumulative[i] < target { i += 1 }
            let span = cumulative[i] - cumulative[i - 1]
            let t = span > 0 ? (target - cumulative[i - 1]) / span : 0
            let a = points[i - 1], b = points[i]
            let lat = a.latitude + t * (b.latitude - a.latitude)
            let lon = a.longitude + t * (b.longitude - a.longitude)
            return (Coordinate(uncheckedLatitude: lat, longitude: lon), i)
        }
        let lo = min(start, end), hi = max(start, end)
        let (a, ia) = point(at: lo)
        let (b, ib) = point(at: hi)
        var result = [a]
        if ib > ia {
            for k in ia..<ib where cumulative[k] > lo * total && cumulative[k] < hi * total {
                result.append(points[k])
            }
        }
        result.append(b)
        return start <= end ? result : result.reversed()
    }
}

extension RoadGraph.Shape {
    /// The length in metres between two of the points, from the fixed-point values in the
    /// builder's metric, so that fractions agree with the stored segment lengths.
    func fixedPointLength(from i: Int, to j: Int) -> Double {
        let a = isReversed ? base + endIndex - 1 - i : base + i
        let b = isReversed ? base + endIndex - 1 - j : base + j
        return segmentLength(lat1: latitudes[a], lon1: longitudes[a], lat2: latitudes[b], lon2: longitudes[b])
    }
}
