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

    /// Builds the graph.
    /// - Returns: the graph and the final report.
    /// - Complexity: O(W log W + P) for W way-node references and P shape points.
    public func build() -> (graph: RoadGraph, report: RoadGraphBuildReport) {
        var report = self.report

        // 1. Cut ways into runs of known nodes.
        struct Run { var way: Int; var nodes: [Int64] }
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

        // 2. Decide which OSM nodes become graph nodes.
        var useCount: [Int64: UInt8] = [:]
        for run in runs {
            for (i, id) in run.nodes.enumerated() {
                let add: UInt8 = (i == 0 || i == run.nodes.count - 1) ? 2 : 1
                useCount[id, default: 0] = useCount[id, default: 0] &+ add > 200 ? 200 : useCount[id, default: 0] &+ add
            }
        }
        let viaNodes = Set(pendingRestrictions.map(\.via))
        var nodeIndex: [Int64: UInt32] = [:]
        var nodeLat = ContiguousArray<Int32>(), nodeLon = ContiguousArray<Int32>(), nodeOSM = ContiguousArray<Int64>()
        var nodeFlags = ContiguousArray<UInt8>(), nodePenalty = ContiguousArray<Float>()
        func isGraphNode(_ id: Int64) -> Bool {
            (useCount[id] ?? 0) >= 2 || viaNodes.contains(id) || nodes[id]?.attr.isBarrier == true
        }
        func graphNode(_ id: Int64) -> UInt32 {
            if let i = nodeIndex[id] { return i }
            let rec = nodes[id]!  // every run node is known (step 1)
            let i = UInt32(nodeLat.count)
            nodeIndex[id] = i
            nodeLat.append(rec.lat); nodeLon.append(rec.lon); nodeOSM.append(id)
            nodeFlags.append(rec.attr.isBarrier ? RoadGraph.NodeFlags.barrier.rawValue : 0)
            nodePenalty.append(Float(rec.attr.penalty / .seconds(1)))
            return i
        }

        // 3. Cut runs into segments between graph nodes; emit directed edges.
        struct RawEdge {
            var source: UInt32, target: UInt32, segment: UInt32
            var duration: Float, weight: Float, speed: Float, flags: UInt8, mode: UInt8
            var startBearing: Float, endBearing: Float
            var twin: Int = -1
        }
        var rawEdges: [RawEdge] = []
        var shapeOffsets = ContiguousArray<UInt32>([0])
        var shapeLat = ContiguousArray<Int32>(), shapeLon = ContiguousArray<Int32>(), shapeOSM = ContiguousArray<Int64>()
        var segLength = ContiguousArray<Double>(), segWay = ContiguousArray<Int64>()
        var segName = ContiguousArray<UInt32>(), segClass = ContiguousArray<UInt8>()
        var names = [""]
        var nameIndex: [String: UInt32] = ["": 0]
        let restrictionWays = Set(pendingRestrictions.flatMap { [$0.from, $0.to] })
        var edgesOfWay: [Int64: [Int]] = [:]

        for run in runs {
            let way = ways[run.way]
            let name: UInt32
            if let n = nameIndex[way.attr.name] { name = n } else {
                name = UInt32(names.count)
                names.append(way.attr.name)
                nameIndex[way.attr.name] = name
            }
            var start = 0
            while start < run.nodes.count - 1 {
                var end = start + 1
                while end < run.nodes.count - 1, !isGraphNode(run.nodes[end]) { end += 1 }
                let segment = UInt32(segLength.count)
                var length = 0.0
                var interiorPenalty = 0.0
                for k in start...end {
                    let rec = nodes[run.nodes[k]]!
                    shapeLat.append(rec.lat); shapeLon.append(rec.lon); shapeOSM.append(run.nodes[k])
                    if k > start {
                        let prev = nodes[run.nodes[k - 1]]!
                        length += segmentLength(lat1: prev.lat, lon1: prev.lon, lat2: rec.lat, lon2: rec.lon)
                    }
                    if k > start, k < end { interiorPenalty += rec.attr.penalty / .seconds(1) }
                }
                shapeOffsets.append(UInt32(shapeLat.count))
                segLength.append(length)
                segWay.append(way.id)
                segName.append(name)
                segClass.append(way.attr.roadClass.rawValue)

                let first = Int(shapeOffsets[Int(segment)]), last = shapeLat.count - 1
                let startBearing = representativeBearing(shapeLat, shapeLon, from: first, toward: last)
                let endBearing = (representativeBearing(shapeLat, shapeLon, from: last, toward: first) + 180)
                    .truncatingRemainder(dividingBy: 360)
                let a = graphNode(run.nodes[start]), b = graphNode(run.nodes[end])
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
                        rawEdges[forwardIndex].twin = rawEdges.count
                    }
                    if !reversed { forwardIndex = rawEdges.count }
                    if restrictionWays.contains(way.id) { edgesOfWay[way.id, default: []].append(rawEdges.count) }
                    rawEdges.append(edge)
                }
                start = end
            }
        }

        // 4. Sort edges by source (stable counting sort) and build both CSR indexes.
        let nodeCount = nodeLat.count, edgeCount = rawEdges.count
        var firstEdge = ContiguousArray<UInt32>(repeating: 0, count: nodeCount + 1)
        for e in rawEdges { firstEdge[Int(e.source) + 1] += 1 }
        for i in 0..<nodeCount { firstEdge[i + 1] += firstEdge[i] }
        var position = Array(firstEdge.dropLast())
        var order = [Int](repeating: 0, count: edgeCount)   // new index of raw edge i
        for (i, e) in rawEdges.enumerated() {
            order[i] = Int(position[Int(e.source)])
            position[Int(e.source)] += 1
        }
        var eSrc = ContiguousArray<UInt32>(repeating: 0, count: edgeCount)
        var eTgt = eSrc, eSeg = eSrc, eTwin = eSrc
        var eDur = ContiguousArray<Float>(repeating: 0, count: edgeCount)
        var eWgt = eDur, eSpd = eDur, eStartB = eDur, eEndB = eDur
        var eFlags = ContiguousArray<UInt8>(repeating: 0, count: edgeCount), eMode = eFlags
        for (i, e) in rawEdges.enumerated() {
            let j = order[i]
            eSrc[j] = e.source; eTgt[j] = e.target; eSeg[j] = e.segment
            eTwin[j] = e.twin >= 0 ? UInt32(order[e.twin]) : UInt32.max
            eDur[j] = e.duration; eWgt[j] = e.weight; eSpd[j] = e.speed
            eStartB[j] = e.startBearing; eEndB[j] = e.endBearing
            eFlags[j] = e.flags; eMode[j] = e.mode
        }
        var firstIncoming = ContiguousArray<UInt32>(repeating: 0, count: nodeCount + 1)
        for t in eTgt { firstIncoming[Int(t) + 1] += 1 }
        for i in 0..<nodeCount { firstIncoming[i + 1] += firstIncoming[i] }
        var incoming = ContiguousArray<UInt32>(repeating: 0, count: edgeCount)
        var fill = Array(firstIncoming.dropLast())
        for (j, t) in eTgt.enumerated() {
            incoming[Int(fill[Int(t)])] = UInt32(j)
            fill[Int(t)] += 1
        }
        // Roads per node: distinct segments touching it.
        var roadCount = ContiguousArray<UInt8>(repeating: 0, count: nodeCount)
        for n in 0..<nodeCount {
            var segs = Set<UInt32>()
            for j in Int(firstEdge[n])..<Int(firstEdge[n + 1]) { segs.insert(eSeg[j]) }
            for k in Int(firstIncoming[n])..<Int(firstIncoming[n + 1]) { segs.insert(eSeg[Int(incoming[k])]) }
            roadCount[n] = UInt8(min(segs.count, 255))
        }

        // 5. Resolve restrictions into edge pairs.
        var rules: [TurnRestriction] = []
        for r in pendingRestrictions {
            guard let via = nodeIndex[r.via] else { report.restrictionsIgnored += 1; continue }
            let fromEdges = (edgesOfWay[r.from] ?? []).map { order[$0] }.filter { eTgt[$0] == via }
            let toEdges = (edgesOfWay[r.to] ?? []).map { order[$0] }.filter { eSrc[$0] == via }
            guard !fromEdges.isEmpty, !toEdges.isEmpty else { report.restrictionsIgnored += 1; continue }
            for f in fromEdges {
                for t in toEdges where !(r.from == r.to && eTwin[f] == UInt32(t) && r.kind == .mandatory) {
                    rules.append(TurnRestriction(from: RoadGraph.EdgeID(UInt32(f)), to: RoadGraph.EdgeID(UInt32(t)), kind: r.kind))
                }
            }
            report.restrictionsApplied += 1
        }
        rules.sort { ($0.from, $0.to) < ($1.from, $1.to) }
        for r in rules { eFlags[r.from.index] |= RoadGraph.EdgeFlags.hasRestrictions.rawValue }

        let graph: RoadGraph
        do {
            graph = try RoadGraph(
                profileName: profile.name, turnCosts: profile.turnCosts,
                nodeLatitudes: nodeLat, nodeLongitudes: nodeLon, nodeOSMIDs: nodeOSM, nodeFlags: nodeFlags,
                nodePenalties: nodePenalty, nodeRoadCounts: roadCount,
                firstEdge: firstEdge, firstIncoming: firstIncoming, incomingEdges: incoming,
                edgeSources: eSrc, edgeTargets: eTgt, edgeSegments: eSeg, edgeDurations: eDur, edgeWeights: eWgt,
                edgeSpeeds: eSpd, edgeFlags: eFlags, edgeModes: eMode, edgeTwins: eTwin,
                edgeStartBearings: eStartB, edgeEndBearings: eEndB,
                shapeOffsets: shapeOffsets, shapeLatitudes: shapeLat, shapeLongitudes: shapeLon, shapeOSMIDs: shapeOSM,
                segmentLengths: segLength, segmentWayIDs: segWay, segmentNames: segName, segmentClasses: segClass,
                names: names, restrictions: ContiguousArray(rules))
        } catch {
            fatalError("Broken contract: the builder produced an inconsistent graph: \(error)")
        }
        return (graph, report)
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
