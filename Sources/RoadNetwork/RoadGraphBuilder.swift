public import GeoCore
/// What a build kept, trimmed and ignored; every count is reported, nothing is fatal.
public struct RoadGraphBuildReport: Hashable, Sendable, CustomStringConvertible {
    /// Ways given to the builder.
    public var waysSeen = 0
    /// Ways the profile found routable.
    public var waysRoutable = 0
    /// References to nodes that were never given (clipped extracts); the way is cut there.
    public var missingNodeReferences = 0
    /// Routable ways that had at least one missing node.
    public var waysTrimmed = 0
    /// Routable ways left with fewer than two known nodes.
    public var waysDropped = 0
    /// Restriction relations given.
    public var restrictionsSeen = 0
    /// Restrictions that became at least one edge-pair rule.
    public var restrictionsApplied = 0
    /// Restrictions skipped (via ways, unknown members, other modes, unroutable ways).
    public var restrictionsIgnored = 0
    /// Unparseable or absurd tag values that were ignored (`maxspeed=fast`, 900 km/h).
    public var ignoredTags = 0

    public var description: String {
        "ways \(waysSeen) (routable \(waysRoutable), trimmed \(waysTrimmed), dropped \(waysDropped)), "
            + "missing node refs \(missingNodeReferences), restrictions \(restrictionsSeen) "
            + "(applied \(restrictionsApplied), ignored \(restrictionsIgnored)), ignored tags \(ignoredTags)"
    }
}

/// Collects nodes, ways and restriction relations as plain values and builds a `RoadGraph`
/// for one `Profile` (the OSRM extractor's job, without depending on any OSM reader).
///
/// Elements may arrive in any order; `build()` resolves references at the end. Nodes used
/// by one way only and not special are compressed into shape points (OSRM's graph
/// compression); way pieces between missing nodes are kept separately.
public struct RoadGraphBuilder: Sendable {
    /// The profile ways and nodes are evaluated with.
    public let profile: Profile

    private struct NodeRecord {
        var lat: Int32
        var lon: Int32
        var attr: NodeAttributes
    }
    private struct WayRecord {
        var id: Int64
        var nodes: [Int64]
        var attr: WayAttributes
    }
    private struct RestrictionRecord {
        var id: Int64
        var from: Int64
        var via: Int64
        var to: Int64
        var kind: TurnRestriction.Kind
    }

    private var nodes: [Int64: NodeRecord] = [:]
    private var ways: [WayRecord] = []
    private var pendingRestrictions: [RestrictionRecord] = []
    /// Counts so far; `build()` completes it.
    public private(set) var report = RoadGraphBuildReport()

    public init(profile: Profile) {
        self.profile = profile
    }

    /// Adds a node at fixed-point degrees × 1e7.
    public mutating func addNode(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: [String: String] = [:]) {
        nodes[id] = NodeRecord(lat: latitudeE7, lon: longitudeE7, attr: profile.attributes(ofNode: tags))
    }

    /// Adds a way; unroutable ways are counted and dropped at once.
    public mutating func addWay(id: Int64, nodeIDs: [Int64], tags: [String: String]) {
        report.waysSeen += 1
        if profile.usesMaxspeed, let m = tags["maxspeed"], Profile.parseMaxspeed(m) == nil, m != "signals", m != "variable" {
            report.ignoredTags += 1
        }
        guard let attr = profile.attributes(ofWay: tags) else { return }
        report.waysRoutable += 1
        ways.append(WayRecord(id: id, nodes: nodeIDs, attr: attr))
    }

    /// Adds a relation; only `type=restriction` relations that concern the profile are kept:
    /// `restriction=no_*|only_*` (or `restriction:<mode>`), one `from` way, one `via` node,
    /// one `to` way, no `except` naming the profile's mode. Via-way restrictions are counted
    /// as ignored.
    public mutating func addRelation(id: Int64, members: [OSMMember], tags: [String: String]) {
        guard tags["type"] == "restriction" else { return }
        report.restrictionsSeen += 1
        guard profile.usesTurnRestrictions else { report.restrictionsIgnored += 1; return }
        var value = tags["restriction"]
        for mode in profile.restrictionModes { if let v = tags["restriction:\(mode)"] { value = v; break } }
        if let except = tags["except"] {
            let modes = Set(except.split(separator: ";").map { String($0.trimmingSpaces) })
            if profile.restrictionModes.contains(where: modes.contains) { report.restrictionsIgnored += 1; return }
        }
        guard let value else { report.restrictionsIgnored += 1; return }
        let kind: TurnRestriction.Kind
        if value.hasPrefix("no_") { kind = .prohibitive } else if value.hasPrefix("only_") { kind = .mandatory } else {
            report.restrictionsIgnored += 1; return
        }
        let froms = members.filter { $0.role == "from" }, tos = members.filter { $0.role == "to" }
        let vias = members.filter { $0.role == "via" }
        guard froms.count == 1, tos.count == 1, vias.count == 1,
              froms[0].type == .way, tos[0].type == .way, vias[0].type == .node
        else { report.restrictionsIgnored += 1; return }
        pendingRestrictions.append(RestrictionRecord(id: id, from: froms[0].ref, via: vias[0].ref, to: tos[0].ref, kind: kind))
    }

    /// Adds a via-node restriction directly (`restriction` is the OSM value, `no_left_turn`…).
    public mutating func addRestriction(id: Int64, fromWay: Int64, viaNode: Int64, toWay: Int64, restriction: String) {
        addRelation(id: id, members: [OSMMember(type: .way, ref: fromWay, role: "from"),
                                      OSMMember(type: .node, ref: viaNode, role: "via"),
                                      OSMMember(type: .way, ref: toWay, role: "to")],
                    tags: ["type": "restriction", "restriction": restriction])
    }

    /// Builds the graph in five phases: ways cut into runs of known nodes
    /// (``cutIntoRuns(_:)``), graph nodes chosen (``GraphNodeTable``), runs cut into segments
    /// and directed edges (``segments(of:nodes:)``), edges sorted into both CSR indexes
    /// (``EdgeTable``), restrictions resolved into edge pairs (``restrictions(on:nodes:segments:report:)``).
    /// - Returns: the graph and the final report.
    /// - Complexity: O(W log W + P) for W way-node references and P shape points.
    public func build() -> (graph: RoadGraph, report: RoadGraphBuildReport) {
        var report = self.report
        let runs = cutIntoRuns(&report)
        var graphNodes = GraphNodeTable(runs: runs, nodes: nodes, viaNodes: Set(pendingRestrictions.map(\.via)))
        let segments = segments(of: runs, nodes: &graphNodes)
        var edges = EdgeTable(segments.edges, nodeCount: graphNodes.latitudes.count)
        let rules = restrictions(on: &edges, nodes: graphNodes, segments: segments, report: &report)
        let graph: RoadGraph
        do {
            graph = try RoadGraph(
                profileName: profile.name, turnCosts: profile.turnCosts,
                nodeLatitudes: GraphColumn(graphNodes.latitudes), nodeLongitudes: GraphColumn(graphNodes.longitudes), nodeOSMIDs: GraphColumn(graphNodes.osmIDs),
                nodeFlags: GraphColumn(graphNodes.flags), nodePenalties: GraphColumn(graphNodes.penalties), nodeRoadCounts: GraphColumn(edges.roadCounts),
                firstEdge: GraphColumn(edges.firstEdge), firstIncoming: GraphColumn(edges.firstIncoming), incomingEdges: GraphColumn(edges.incoming),
                edgeSources: GraphColumn(edges.sources), edgeTargets: GraphColumn(edges.targets), edgeSegments: GraphColumn(edges.segments),
                edgeDurations: GraphColumn(edges.durations), edgeWeights: GraphColumn(edges.weights), edgeSpeeds: GraphColumn(edges.speeds),
                edgeFlags: GraphColumn(edges.flags), edgeModes: GraphColumn(edges.modes), edgeTwins: GraphColumn(edges.twins),
                edgeStartBearings: GraphColumn(edges.startBearings), edgeEndBearings: GraphColumn(edges.endBearings),
                shapeOffsets: GraphColumn(segments.shapeOffsets), shapeLatitudes: GraphColumn(segments.shapeLatitudes),
                shapeLongitudes: GraphColumn(segments.shapeLongitudes), shapeOSMIDs: GraphColumn(segments.shapeOSMIDs),
                segmentLengths: GraphColumn(segments.lengths), segmentWayIDs: GraphColumn(segments.wayIDs), segmentNames: GraphColumn(segments.nameIndices),
                segmentClasses: GraphColumn(segments.classes), names: segments.names, restrictions: ContiguousArray(rules))
        } catch {
            fatalError("Broken contract: the builder produced an inconsistent graph: \(error)")
        }
        return (graph, report)
    }

    /// A piece of a way between nodes it names that are missing from the input: two or more
    /// consecutive known nodes (repeated nodes once).
    private struct Run { var way: Int; var nodes: [Int64] }

    /// Phase 1: every way cut at its unknown nodes into runs; trimmed and dropped ways counted.
    private func cutIntoRuns(_ report: inout RoadGraphBuildReport) -> [Run] {
        var runs: [Run] = []
        runs.reserveCapacity(ways.count)
        for (wi, way) in ways.enumerated() {
            let runsBefore = runs.count
            var current: [Int64] = []
            var missing = 0
            for id in way.nodes {
                if nodes[id] == nil {
                    missing += 1
                    if current.count >= 2 { runs.append(Run(way: wi, nodes: current)) }
                    current = []
                    continue
                }
                if current.last == id { continue }
                current.append(id)
            }
            if current.count >= 2 { runs.append(Run(way: wi, nodes: current)) }
            if missing > 0 {
                report.missingNodeReferences += missing
                report.waysTrimmed += 1
            }
            if runs.count == runsBefore { report.waysDropped += 1 }
        }
        return runs
    }

    /// Phase 2: the OSM nodes that become graph nodes — where runs end or meet, the via nodes
    /// of restrictions, barriers — numbered in the order the segments first reach them.
    private struct GraphNodeTable {
        /// Per OSM node, how often runs use it (an end counts twice), capped at 200.
        private var useCount: [Int64: UInt8] = [:]
        private let viaNodes: Set<Int64>
        private let nodes: [Int64: NodeRecord]
        private(set) var index: [Int64: UInt32] = [:]
        private(set) var latitudes = ContiguousArray<Int32>(), longitudes = ContiguousArray<Int32>()
        private(set) var osmIDs = ContiguousArray<Int64>(), flags = ContiguousArray<UInt8>()
        private(set) var penalties = ContiguousArray<Float>()

        init(runs: [Run], nodes: [Int64: NodeRecord], viaNodes: Set<Int64>) {
            self.nodes = nodes
            self.viaNodes = viaNodes
            for run in runs {
                for (i, id) in run.nodes.enumerated() {
                    let add: UInt8 = (i == 0 || i == run.nodes.count - 1) ? 2 : 1
                    useCount[id, default: 0] = useCount[id, default: 0] &+ add > 200 ? 200 : useCount[id, default: 0] &+ add
                }
            }
        }

        func isGraphNode(_ id: Int64) -> Bool {
            (useCount[id] ?? 0) >= 2 || viaNodes.contains(id) || nodes[id]?.attr.isBarrier == true
        }

        /// The graph node of an OSM node of a run, numbered on first use.
        mutating func graphNode(_ id: Int64) -> UInt32 {
            if let i = index[id] { return i }
            let rec = nodes[id]! // every run node is known (phase 1)
            let i = UInt32(latitudes.count)
            index[id] = i
            latitudes.append(rec.lat); longitudes.append(rec.lon); osmIDs.append(id)
            flags.append(rec.attr.isBarrier ? RoadGraph.NodeFlags.barrier.rawValue : 0)
            penalties.append(Float(rec.attr.penalty / .seconds(1)))
            return i
        }
    }

    /// A directed edge before sorting: the segment it runs along, its costs and bearings, and
    /// the raw index of its opposite direction (-1: none).
    private struct RawEdge {
        var source: UInt32, target: UInt32, segment: UInt32
        var duration: Float, weight: Float, speed: Float, flags: UInt8, mode: UInt8
        var startBearing: Float, endBearing: Float
        var twin: Int = -1
    }

    /// Phase 3's output: segments with their shapes, names and classes, and the directed edges
    /// along them; for ways named by restrictions, the raw indices of their edges.
    private struct SegmentTable {
        var edges: [RawEdge] = []
        var shapeOffsets = ContiguousArray<UInt32>([0])
        var shapeLatitudes = ContiguousArray<Int32>(), shapeLongitudes = ContiguousArray<Int32>()
        var shapeOSMIDs = ContiguousArray<Int64>()
        var lengths = ContiguousArray<Double>(), wayIDs = ContiguousArray<Int64>()
        var nameIndices = ContiguousArray<UInt32>(), classes = ContiguousArray<UInt8>()
        var names = [""]
        var edgesOfWay: [Int64: [Int]] = [:]
    }

    /// Phase 3: runs cut into segments between graph nodes, each with a directed edge per
    /// direction the way allows (duration and weight from its speed, rate factor and the
    /// penalties of its interior nodes).
    private func segments(of runs: [Run], nodes graphNodes: inout GraphNodeTable) -> SegmentTable {
        var t = SegmentTable()
        var nameIndex: [String: UInt32] = ["": 0]
        let restrictionWays = Set(pendingRestrictions.flatMap { [$0.from, $0.to] })
        for run in runs {
            let way = ways[run.way]
            let name: UInt32
            if let n = nameIndex[way.attr.name] { name = n } else {
                name = UInt32(t.names.count)
                t.names.append(way.attr.name)
                nameIndex[way.attr.name] = name
            }
            var start = 0
            while start < run.nodes.count - 1 {
                var end = start + 1
                while end < run.nodes.count - 1, !graphNodes.isGraphNode(run.nodes[end]) { end += 1 }
                let segment = UInt32(t.lengths.count)
                var length = 0.0
                var interiorPenalty = 0.0
                for k in start...end {
                    let rec = nodes[run.nodes[k]]!
                    t.shapeLatitudes.append(rec.lat); t.shapeLongitudes.append(rec.lon); t.shapeOSMIDs.append(run.nodes[k])
                    if k > start {
                        let prev = nodes[run.nodes[k - 1]]!
                        length += segmentLength(lat1: prev.lat, lon1: prev.lon, lat2: rec.lat, lon2: rec.lon)
                    }
                    if k > start, k < end { interiorPenalty += rec.attr.penalty / .seconds(1) }
                }
                t.shapeOffsets.append(UInt32(t.shapeLatitudes.count))
                t.lengths.append(length)
                t.wayIDs.append(way.id)
                t.nameIndices.append(name)
                t.classes.append(way.attr.roadClass.rawValue)

                let first = Int(t.shapeOffsets[Int(segment)]), last = t.shapeLatitudes.count - 1
                let startBearing = representativeBearing(t.shapeLatitudes, t.shapeLongitudes, from: first, toward: last)
                let endBearing = (representativeBearing(t.shapeLatitudes, t.shapeLongitudes, from: last, toward: first) + 180)
                    .truncatingRemainder(dividingBy: 360)
                let a = graphNodes.graphNode(run.nodes[start]), b = graphNodes.graphNode(run.nodes[end])
                var forwardIndex = -1
                for (dir, reversed) in [(way.attr.forward, false), (way.attr.backward, true)] {
                    guard let dir else { continue }
                    let mps = dir.speed.metersPerSecond
                    let duration = length / mps + interiorPenalty
                    let weight = length / (mps * dir.rateFactor) + interiorPenalty
                    var flags: UInt8 = 0
                    if dir.isRestricted { flags |= RoadGraph.EdgeFlags.restricted.rawValue }
                    if way.attr.isRoundabout { flags |= RoadGraph.EdgeFlags.roundabout.rawValue }
                    if reversed { flags |= RoadGraph.EdgeFlags.reversed.rawValue }
                    if !way.attr.isStartPoint { flags |= RoadGraph.EdgeFlags.notStartPoint.rawValue }
                    var edge = RawEdge(source: reversed ? b : a, target: reversed ? a : b, segment: segment,
                                       duration: Float(duration), weight: Float(weight), speed: Float(dir.speed.kilometersPerHour),
                                       flags: flags, mode: dir.mode.rawValue,
                                       startBearing: Float(reversed ? (endBearing + 180).truncatingRemainder(dividingBy: 360) : startBearing),
                                       endBearing: Float(reversed ? (startBearing + 180).truncatingRemainder(dividingBy: 360) : endBearing))
                    if reversed, forwardIndex >= 0 {
                        edge.twin = forwardIndex
                        t.edges[forwardIndex].twin = t.edges.count
                    }
                    if !reversed { forwardIndex = t.edges.count }
                    if restrictionWays.contains(way.id) { t.edgesOfWay[way.id, default: []].append(t.edges.count) }
                    t.edges.append(edge)
                }
                start = end
            }
        }
        return t
    }

    /// Phase 4: the edges sorted by source (a stable counting sort) into the CSR arrays, the
    /// incoming index, and the roads (distinct segments) at each node.
    private struct EdgeTable {
        /// The sorted index of each raw edge.
        var order: [Int]
        var firstEdge: ContiguousArray<UInt32>, firstIncoming: ContiguousArray<UInt32>, incoming: ContiguousArray<UInt32>
        var sources: ContiguousArray<UInt32>, targets: ContiguousArray<UInt32>
        var segments: ContiguousArray<UInt32>, twins: ContiguousArray<UInt32>
        var durations: ContiguousArray<Float>, weights: ContiguousArray<Float>, speeds: ContiguousArray<Float>
        var startBearings: ContiguousArray<Float>, endBearings: ContiguousArray<Float>
        var flags: ContiguousArray<UInt8>, modes: ContiguousArray<UInt8>
        var roadCounts: ContiguousArray<UInt8>

        init(_ rawEdges: [RawEdge], nodeCount: Int) {
            let edgeCount = rawEdges.count
            firstEdge = ContiguousArray<UInt32>(repeating: 0, count: nodeCount + 1)
            for e in rawEdges { firstEdge[Int(e.source) + 1] += 1 }
            for i in 0..<nodeCount { firstEdge[i + 1] += firstEdge[i] }
            var position = Array(firstEdge.dropLast())
            order = [Int](repeating: 0, count: edgeCount)
            for (i, e) in rawEdges.enumerated() {
                order[i] = Int(position[Int(e.source)])
                position[Int(e.source)] += 1
            }
            sources = ContiguousArray<UInt32>(repeating: 0, count: edgeCount)
            (targets, segments, twins) = (sources, sources, sources)
            durations = ContiguousArray<Float>(repeating: 0, count: edgeCount)
            (weights, speeds, startBearings, endBearings) = (durations, durations, durations, durations)
            flags = ContiguousArray<UInt8>(repeating: 0, count: edgeCount)
            modes = flags
            for (i, e) in rawEdges.enumerated() {
                let j = order[i]
                sources[j] = e.source; targets[j] = e.target; segments[j] = e.segment
                twins[j] = e.twin >= 0 ? UInt32(order[e.twin]) : UInt32.max
                durations[j] = e.duration; weights[j] = e.weight; speeds[j] = e.speed
                startBearings[j] = e.startBearing; endBearings[j] = e.endBearing
                flags[j] = e.flags; modes[j] = e.mode
            }
            firstIncoming = ContiguousArray<UInt32>(repeating: 0, count: nodeCount + 1)
            for t in targets { firstIncoming[Int(t) + 1] += 1 }
            for i in 0..<nodeCount { firstIncoming[i + 1] += firstIncoming[i] }
            incoming = ContiguousArray<UInt32>(repeating: 0, count: edgeCount)
            var fill = Array(firstIncoming.dropLast())
            for (j, t) in targets.enumerated() {
                incoming[Int(fill[Int(t)])] = UInt32(j)
                fill[Int(t)] += 1
            }
            roadCounts = ContiguousArray<UInt8>(repeating: 0, count: nodeCount)
            for n in 0..<nodeCount {
                var segs = Set<UInt32>()
                for j in Int(firstEdge[n])..<Int(firstEdge[n + 1]) { segs.insert(segments[j]) }
                for k in Int(firstIncoming[n])..<Int(firstIncoming[n + 1]) { segs.insert(segments[Int(incoming[k])]) }
                roadCounts[n] = UInt8(min(segs.count, 255))
            }
        }
    }

    /// Phase 5: each via-node restriction as pairs of sorted edges (from-way edges into the
    /// via node × to-way edges out of it; a mandatory U-turn onto the same way is dropped),
    /// sorted, with their from edges flagged; restrictions that match no edges are counted
    /// as ignored.
    private func restrictions(on edges: inout EdgeTable, nodes graphNodes: GraphNodeTable, segments: SegmentTable,
                              report: inout RoadGraphBuildReport) -> [TurnRestriction] {
        var rules: [TurnRestriction] = []
        for r in pendingRestrictions {
            guard let via = graphNodes.index[r.via] else { report.restrictionsIgnored += 1; continue }
            let fromEdges = (segments.edgesOfWay[r.from] ?? []).map { edges.order[$0] }.filter { edges.targets[$0] == via }
            let toEdges = (segments.edgesOfWay[r.to] ?? []).map { edges.order[$0] }.filter { edges.sources[$0] == via }
            guard !fromEdges.isEmpty, !toEdges.isEmpty else { report.restrictionsIgnored += 1; continue }
            for f in fromEdges {
                for t in toEdges where !(r.from == r.to && edges.twins[f] == UInt32(t) && r.kind == .mandatory) {
                    rules.append(TurnRestriction(from: RoadGraph.EdgeID(UInt32(f)), to: RoadGraph.EdgeID(UInt32(t)), kind: r.kind))
                }
            }
            report.restrictionsApplied += 1
        }
        rules.sort { ($0.from, $0.to) < ($1.from, $1.to) }
        for r in rules { edges.flags[r.from.index] |= RoadGraph.EdgeFlags.hasRestrictions.rawValue }
        return rules
    }
}

/// The bearing, in degrees, from shape point `from` to the point `turnLookahead` metres
/// along the shape towards `toward` (or to `toward` when the shape is shorter): the
/// direction a road leaves an intersection in, as OSRM measures turn angles on coordinates
/// some metres away rather than on the first, often tiny, shape piece.
func representativeBearing(_ lat: ContiguousArray<Int32>, _ lon: ContiguousArray<Int32>, from: Int, toward: Int) -> Double {
    let step = toward > from ? 1 : -1
    var travelled = 0.0
    var i = from
    while i != toward {
        let piece = segmentLength(lat1: lat[i], lon1: lon[i], lat2: lat[i + step], lon2: lon[i + step])
        if travelled + piece >= turnLookahead, piece > 0 {
            let t = (turnLookahead - travelled) / piece
            let pLat = Int32((Double(lat[i]) + t * Double(lat[i + step] - lat[i])).rounded())
            let pLon = Int32((Double(lon[i]) + t * Double(lon[i + step] - lon[i])).rounded())
            if pLat != lat[from] || pLon != lon[from] {
                return segmentBearing(lat1: lat[from], lon1: lon[from], lat2: pLat, lon2: pLon)
            }
        }
        travelled += piece
        i += step
    }
    return segmentBearing(lat1: lat[from], lon1: lon[from], lat2: lat[toward], lon2: lon[toward])
}

/// Metres along a road at which its direction at an intersection is taken.
let turnLookahead = 10.0
