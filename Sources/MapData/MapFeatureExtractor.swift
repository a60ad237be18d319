public import GeoCore

/// Counts from an extraction: what went in, what came out, and what was skipped and why.
public struct MapExtractionStatistics: Hashable, Sendable {
    public var nodes = 0
    public var ways = 0
    public var relations = 0
    public var features = 0
    /// Nodes the reader left out for a position outside ±90° latitude or ±180° longitude
    /// (`OSMReadSummary.rejectedNodeCount`); the ways through them count as having missing nodes.
    public var nodesOutOfRange = 0
    /// Ways skipped because a node they reference was not in the input (cut extracts, or a
    /// node left out for its position: `nodesOutOfRange`).
    public var waysWithMissingNodes = 0
    /// Multipolygon relations skipped: a member way missing, or rings that do not close.
    public var brokenRelations = 0
    /// Inner rings dropped because no outer ring of their relation contains them.
    public var strayInnerRings = 0
    /// `natural=coastline` ways read.
    public var coastlineWays = 0
    /// Problems that kept the sea from being drawn: coastline chains ending inside the extract
    /// (a gap, a cut), or chains leaving it with none entering between them (`SeaAreas`).
    /// Nonzero means no `ocean` features at all.
    public var brokenCoastlines = 0

    public init() {}
}

/// The features extracted from a whole OSM input, with the counts.
public struct MapFeatureSet: Sendable {
    public var features: [MapFeature]
    public var statistics: MapExtractionStatistics

    public init(features: [MapFeature], statistics: MapExtractionStatistics) {
        self.features = features
        self.statistics = statistics
    }
}

/// Turns OSM elements into map features by the rules of `MapSchema`.
///
/// Feed every node, way and relation (any order within a kind; nodes before the ways that use
/// them, as sorted `.osm.pbf` and OSM XML files have them), then call `finish()`. Relations are
/// kept until `finish()`, so they may come before their member ways.
///
/// Multipolygon relations (`type=multipolygon`, and `type=boundary` parks) are assembled into
/// polygons with holes: member ways are joined end to end into closed rings by their node ids,
/// each inner ring goes into the smallest outer ring that contains it (even–odd point test), and a
/// relation whose rings cannot be closed or whose member ways are missing is skipped and counted
/// (`MapExtractionStatistics.brokenRelations`). Administrative boundaries become lines, one per
/// way, with the lowest `admin_level` of the ways and relations it belongs to. Coastline ways
/// become the sea (`water`, class `ocean`) of the extract's box (`SeaAreas`).
///
/// Features are handed out as they are made: `takeFeatures()` returns those made since the last
/// call (a caller that writes them out, as `MapFeaturePartition` does, keeps none of them), and
/// `finish()` returns the rest.
///
/// Nodes come before the ways (any order among themselves): a node after a way is an error,
/// since ways are assembled from the positions as they come.
///
/// Memory: node positions (`NodeStore`, 16 bytes a node) and way node lists (`WayStore`, 16
/// bytes a way and 1–3 bytes a node reference) are kept until `finish()`, each in memory up to
/// `MapElementStorage.memoryLimit` bytes and beyond it in a memory-mapped scratch file, whose
/// pages the kernel may drop; in memory stay 8 bytes per 256 nodes or ways (the stores'
/// samples), the multipolygon and boundary relations (members and their output properties),
/// the boundary ways' outputs, the coastline way ids, and the features not yet taken. So an
/// extract's memory grows with its relations and boundaries, not with its nodes and ways.
public struct MapFeatureExtractor: Sendable {
    private var positions: NodeStore
    private var wayNodes: WayStore
    private var relations: [(id: Int64, members: [OSMMember], output: RelationKind)] = []
    /// Boundary line per way id: the lowest admin level wins.
    private var boundaryWays: [Int64: (level: Int64, output: MapSchema.Output)] = [:]
    private var features: [MapFeature] = []
    private var statistics = MapExtractionStatistics()
    /// `natural=coastline` ways, by id, in input order.
    private var coastlines: [Int64] = []
    /// The nodes' box in 1e-7 degrees: the extract's box when the file gives none.
    private var nodeBox = (minLatitude: Int32.max, minLongitude: Int32.max, maxLatitude: Int32.min, maxLongitude: Int32.min)

    private enum RelationKind: Sendable {
        case area([MapSchema.Output])
        case boundary(MapSchema.Output)
    }

    /// - Parameter storage: where node positions and way node lists go; in memory by default.
    public init(storage: MapElementStorage = .inMemory) {
        positions = NodeStore(storage: storage)
        wayNodes = WayStore(storage: storage)
    }

    /// Whether the node positions went to a scratch file (they outgrew the memory limit).
    public var nodesAreInScratchFile: Bool { positions.isInFile }

    /// Adds a node at a position in 1e-7 degrees (OSM fixed point).
    /// - Throws: `MapDataError.unsorted` after a way (nodes come first); what the scratch file
    ///   throws when it cannot grow (a full disk).
    public mutating func addNode(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: some MapTagSource) throws {
        guard !positions.isSealed else {
            throw MapDataError(.unsorted, "node \(id) comes after ways: nodes must come first (sort the file, e.g. osmium sort)")
        }
        try positions.add(NodeRecord(id: id, latitudeE7: latitudeE7, longitudeE7: longitudeE7))
        statistics.nodes += 1
        nodeBox = (min(nodeBox.minLatitude, latitudeE7), min(nodeBox.minLongitude, longitudeE7),
                   max(nodeBox.maxLatitude, latitudeE7), max(nodeBox.maxLongitude, longitudeE7))
        let outputs = MapSchema.nodeFeatures(tags)
        guard !outputs.isEmpty else { return }
        let point = Self.worldPoint(latitudeE7: latitudeE7, longitudeE7: longitudeE7)
        for output in outputs {
            append(output, id: id, source: .node, geometry: .points([point]))
        }
    }

    /// Adds a way by its node ids; a way with a node not added is skipped and counted
    /// (`MapExtractionStatistics.waysWithMissingNodes`).
    /// - Throws: what the scratch file throws when it cannot grow (a full disk).
    public mutating func addWay(id: Int64, nodeRefs: [Int64], tags: some MapTagSource) throws {
        try positions.seal()
        try wayNodes.add(id: id, nodeRefs: nodeRefs)
        statistics.ways += 1
        if tags["natural"] == "coastline" {
            statistics.coastlineWays += 1
            coastlines.append(id)
        }
        let closed = nodeRefs.count >= 4 && nodeRefs.first == nodeRefs.last
        let outputs = MapSchema.wayFeatures(tags, closed: closed)
        guard !outputs.isEmpty else { return }
        guard let points = points(of: nodeRefs), points.count >= 2 else {
            statistics.waysWithMissingNodes += 1
            return
        }
        for output in outputs {
            if output.layer == .boundary, case .int(let level)? = output.properties.first(where: { $0.key == "admin_level" })?.value {
                addBoundary(way: id, level: level, output: output)
                continue
            }
            let isArea = closed && output.layer != .transportationName && output.layer != .waterway
                && !(output.layer == .transportation && !MapSchema.isArea(tags))
                && !(output.layer == .pedestrian && tags["area"] != "yes")
            let geometry: MapGeometry = output.shape == .labelPoint ? .points([Self.labelPoint(points)])
                : isArea ? .polygons([MapPolygon(exterior: points)]) : .lines([points])
            append(output, id: id, source: .way, geometry: geometry)
        }
    }

    /// Adds a relation; multipolygons and boundaries are built in `finish()`, others are ignored.
    public mutating func addRelation(id: Int64, members: [OSMMember], tags: some MapTagSource) {
        statistics.relations += 1
        let type = tags["type"]
        if type == "boundary" || type == "multipolygon", tags["boundary"] == "administrative", let output = MapSchema.boundaryOutput(tags) {
            relations.append((id, members, .boundary(output)))
        } else if type == "multipolygon" || (type == "boundary" && MapSchema.isArea(tags)) {
            var outputs: [MapSchema.Output] = []
            MapSchema.areaFeatures(tags, into: &outputs)
            if let poi = MapSchema.poiOutput(tags) {
                outputs.append(MapSchema.Output(layer: .poi, properties: poi.properties, minZoom: poi.minZoom, shape: .labelPoint))
            }
            if !outputs.isEmpty { relations.append((id, members, .area(outputs))) }
        }
    }

    /// The features made since the last call, in input order.
    public mutating func takeFeatures() -> [MapFeature] {
        defer { features = [] }
        return features
    }

    /// Builds the relations' features and the sea, and returns every feature not taken with
    /// `takeFeatures()`, in input order (nodes, ways, then relations, then boundary lines by
    /// way id, then the sea), with the counts of the whole input.
    /// - Parameter bounds: the area the extract covers (a PBF header's box, OSM XML `<bounds>`);
    ///   nil for the box of its nodes. The sea is drawn within it.
    /// - Throws: what the scratch file throws (only when a copied extractor's stores are copied).
    public mutating func finish(bounds: BoundingBox? = nil) throws -> MapFeatureSet {
        try positions.seal()
        try wayNodes.seal()
        for relation in relations {
            switch relation.output {
            case .boundary(let output):
                guard case .int(let level)? = output.properties.first(where: { $0.key == "admin_level" })?.value else { continue }
                for member in relation.members where member.type == .way {
                    addBoundary(way: member.ref, level: level, output: output)
                }
            case .area(let outputs):
                guard let polygons = assemble(relation.members) else {
                    statistics.brokenRelations += 1
                    continue
                }
                for output in outputs {
                    let geometry: MapGeometry = output.shape == .labelPoint
                        ? .points([Self.labelPoint(polygons.max(by: { abs(Self.signedArea($0.exterior)) < abs(Self.signedArea($1.exterior)) })!.exterior)])
                        : .polygons(polygons)
                    append(output, id: relation.id, source: .relation, geometry: geometry)
                }
            }
        }
        for (way, boundary) in boundaryWays.sorted(by: { $0.key < $1.key }) {
            guard let refs = wayNodes[way], let points = points(of: refs), points.count >= 2 else { continue }
            append(boundary.output, id: way, source: .way, geometry: .lines([points]))
        }
        addSea(bounds: bounds)
        relations = []
        boundaryWays = [:]
        return MapFeatureSet(features: features, statistics: statistics)
    }

    /// The `ocean` feature from the coastline ways (`SeaAreas`), if they close.
    private mutating func addSea(bounds: BoundingBox?) {
        guard !coastlines.isEmpty else { return }
        let nw: MapPoint, se: MapPoint
        if let bounds {
            nw = MapPoint(Coordinate(uncheckedLatitude: bounds.north, longitude: bounds.west))
            se = MapPoint(Coordinate(uncheckedLatitude: bounds.south, longitude: bounds.east))
        } else {
            nw = Self.worldPoint(latitudeE7: nodeBox.maxLatitude, longitudeE7: nodeBox.minLongitude)
            se = Self.worldPoint(latitudeE7: nodeBox.minLatitude, longitudeE7: nodeBox.maxLongitude)
        }
        // A node missing from a cut extract splits its chain: the runs on either side end there.
        var runs: [[MapPoint]] = []
        for chain in SeaAreas.chains(coastlines.compactMap { wayNodes[$0] }) {
            var run: [MapPoint] = []
            for ref in chain {
                if let node = positions[ref] {
                    let p = Self.worldPoint(latitudeE7: node.latitudeE7, longitudeE7: node.longitudeE7)
                    if run.last != p { run.append(p) }
                } else {
                    if run.count >= 2 { runs.append(run) }
                    run = []
                }
            }
            if run.count >= 2 { runs.append(run) }
        }
        let sea = SeaAreas.polygons(chains: runs, box: SeaAreas.Box(minX: nw.x, minY: nw.y, maxX: se.x, maxY: se.y))
        statistics.brokenCoastlines = sea.broken
        guard !sea.polygons.isEmpty else { return }
        features.append(MapFeature(layer: .water, id: -1, source: .way, geometry: .polygons(sea.polygons),
                                   properties: [MapProperty("class", .string("ocean"))], minZoom: 0))
        statistics.features += 1
    }

    private mutating func append(_ output: MapSchema.Output, id: Int64, source: OSMElementType, geometry: MapGeometry) {
        features.append(MapFeature(layer: output.layer, id: id, source: source, geometry: geometry, properties: output.properties, minZoom: output.minZoom))
        statistics.features += 1
    }

    private mutating func addBoundary(way: Int64, level: Int64, output: MapSchema.Output) {
        if let existing = boundaryWays[way], existing.level <= level { return }
        boundaryWays[way] = (level, output)
    }

    private func points(of refs: [Int64]) -> [MapPoint]? {
        var points: [MapPoint] = []
        points.reserveCapacity(refs.count)
        for ref in refs {
            guard let node = positions[ref] else { return nil }
            let p = Self.worldPoint(latitudeE7: node.latitudeE7, longitudeE7: node.longitudeE7)
            if points.last != p { points.append(p) }
        }
        return points
    }

    /// Multipolygon assembly: rings from member ways, inner rings into outer rings.
    /// - Returns: nil when a member way is missing or a ring does not close.
    private mutating func assemble(_ members: [OSMMember]) -> [MapPolygon]? {
        var outerWays: [[Int64]] = [], innerWays: [[Int64]] = []
        for member in members where member.type == .way {
            guard let refs = wayNodes[member.ref], refs.count >= 2 else { return nil }
            if member.role == "inner" { innerWays.append(refs) } else { outerWays.append(refs) }
        }
        guard let outerRings = RingAssembly.rings(from: outerWays), !outerRings.isEmpty,
              let innerRings = RingAssembly.rings(from: innerWays) else { return nil }
        var polygons: [MapPolygon] = []
        for ring in outerRings {
            guard let points = points(of: ring), points.count >= 4 else { return nil }
            polygons.append(MapPolygon(exterior: points))
        }
        let areas = polygons.map { abs(Self.signedArea($0.exterior)) }
        for ring in innerRings {
            guard let points = points(of: ring), points.count >= 4 else { return nil }
            let probe = points[0]
            let container = polygons.indices
                .filter { Self.contains(polygons[$0].exterior, probe) }
                .min(by: { areas[$0] < areas[$1] })
            if let container { polygons[container].holes.append(points) } else { statistics.strayInnerRings += 1 }
        }
        return polygons
    }

    /// The world position of an OSM fixed-point position.
    @inline(__always)
    static func worldPoint(latitudeE7: Int32, longitudeE7: Int32) -> MapPoint {
        MapPoint(x: (Double(longitudeE7) / 1e7 + 180) / 360, y: worldY(latitudeDegrees: Double(latitudeE7) / 1e7))
    }

    /// World y of a latitude (Web Mercator, clamped to ±85.0511°).
    static func worldY(latitudeDegrees: Double) -> Double {
        let lat = min(max(latitudeDegrees, -85.051_128_779_806_59), 85.051_128_779_806_59) * .pi / 180
        return (1 - log(tan(.pi / 4 + lat / 2)) / .pi) / 2
    }

    /// Twice-free shoelace area of a closed ring in world units² (positive when clockwise on
    /// screen, y pointing down).
    static func signedArea(_ ring: [MapPoint]) -> Double {
        guard ring.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<(ring.count - 1) {
            sum += ring[i].x * ring[i + 1].y - ring[i + 1].x * ring[i].y
        }
        return sum / 2
    }

    /// Even–odd point-in-ring test.
    static func contains(_ ring: [MapPoint], _ p: MapPoint) -> Bool {
        var inside = false
        var j = ring.count - 1
        for i in 0..<ring.count {
            let a = ring[i], b = ring[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// The area centroid of a ring (the mean of its points for a degenerate ring).
    static func labelPoint(_ ring: [MapPoint]) -> MapPoint {
        var a = 0.0, cx = 0.0, cy = 0.0
        if ring.count >= 4, ring.first == ring.last {
            // Relative to the first point, so world-unit products keep their precision.
            let o = ring[0]
            for i in 0..<(ring.count - 1) {
                let x0 = ring[i].x - o.x, y0 = ring[i].y - o.y, x1 = ring[i + 1].x - o.x, y1 = ring[i + 1].y - o.y
                let cross = x0 * y1 - x1 * y0
                a += cross
                cx += (x0 + x1) * cross
                cy += (y0 + y1) * cross
            }
            if a != 0 { return MapPoint(x: o.x + cx / (3 * a), y: o.y + cy / (3 * a)) }
        }
        let n = Double(ring.count)
        return MapPoint(x: ring.reduce(0) { $0 + $1.x } / n, y: ring.reduce(0) { $0 + $1.y } / n)
    }
}

import Platform

/// Joins open ways into closed rings by shared end nodes (the OSM wiki's "Relation:multipolygon/
/// Algorithm", ring grouping step).
enum RingAssembly {
    /// Closed rings of node ids (first = last), or nil when some ways cannot be closed into rings.
    /// - Complexity: O(n) in the number of node references, with an endpoint index.
    static func rings(from ways: [[Int64]]) -> [[Int64]]? {
        var rings: [[Int64]] = []
        var open: [[Int64]?] = []
        var byEnd: [Int64: [Int]] = [:]
        for way in ways {
            if way.count >= 4, way.first == way.last { rings.append(way); continue }
            byEnd[way.first!, default: []].append(open.count)
            byEnd[way.last!, default: []].append(open.count)
            open.append(way)
        }
        func take(at node: Int64) -> [Int64]? {
            guard var list = byEnd[node] else { return nil }
            while let index = list.popLast() {
                if let way = open[index] {
                    byEnd[node] = list
                    open[index] = nil
                    return way
                }
            }
            byEnd[node] = list
            return nil
        }
        for start in open.indices {
            guard var ring = open[start] else { continue }
            open[start] = nil
            while ring.first != ring.last {
                guard var next = take(at: ring.last!) else { return nil }
                if next.first != ring.last { next.reverse() }
                ring.append(contentsOf: next.dropFirst())
            }
            guard ring.count >= 4 else { return nil }
            rings.append(ring)
        }
        return rings
    }
}
