import GeoBase

/// What `OSMFileReader.statistics(url:options:detected:)` reports about a file: the read
/// summary and the extent of its nodes, found without building any element.
public struct OSMFileStatistics: Hashable, Sendable {
    /// Counts, drops, header and damage, as `OSMFileReader.read` returns them for the same file.
    public var summary = OSMReadSummary()
    /// The smallest box holding every node read.
    public var nodeExtent = OSMNodeExtent()

    public init() {}
}

/// The smallest latitude / longitude box holding a set of nodes, in OSM's fixed point
/// (1e-7 degrees, `OSMCoordinate.unitsPerDegree`); empty until a node is added.
public struct OSMNodeExtent: Hashable, Sendable {
    public private(set) var southE7 = Int32.max
    public private(set) var westE7 = Int32.max
    public private(set) var northE7 = Int32.min
    public private(set) var eastE7 = Int32.min

    public init() {}

    /// Whether no node has been added.
    public var isEmpty: Bool { southE7 > northE7 }

    /// Grows the box to hold the position `(latitudeE7, longitudeE7)`.
    @inline(__always)
    public mutating func add(latitudeE7: Int32, longitudeE7: Int32) {
        southE7 = min(southE7, latitudeE7)
        northE7 = max(northE7, latitudeE7)
        westE7 = min(westE7, longitudeE7)
        eastE7 = max(eastE7, longitudeE7)
    }

    /// Grows the box to hold `other`.
    public mutating func formUnion(_ other: OSMNodeExtent) {
        southE7 = min(southE7, other.southE7)
        northE7 = max(northE7, other.northE7)
        westE7 = min(westE7, other.westE7)
        eastE7 = max(eastE7, other.eastE7)
    }
}

/// What the readers turn one block of a file into: its elements (`OSMElementBlock`), or only
/// what `OSMFileStatistics` needs (`OSMBlockStatistics`). PBF blocks decode straight into
/// either; XML batches are read as elements and then converted.
protocol OSMBlockContent: Sendable {
    /// Whether tag and metadata values, way node lists and relation members are built. When
    /// false the PBF decoder reads and checks the same fields and string indices (a bad block
    /// fails with the same error) but keeps only counts.
    static var buildsElements: Bool { get }
    init()
    /// The content of a batch of elements read from XML.
    init(_ elements: OSMElementBlock)
    var byteOffset: Int { get set }
    var counts: (nodes: Int, ways: Int, relations: Int) { get }
    /// Reserves room for `count` more nodes (called only when `buildsElements`).
    mutating func reserveNodeCapacity(_ count: Int)
    mutating func addNode(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: OSMTags, metadata: OSMMetadata?)
    mutating func add(_ way: OSMWay)
    mutating func add(_ relation: OSMRelation)
}

extension OSMElementBlock: OSMBlockContent {
    static var buildsElements: Bool { true }
    init() { self.init(byteOffset: 0) }
    init(_ elements: OSMElementBlock) { self = elements }
    var counts: (nodes: Int, ways: Int, relations: Int) { (nodes.count, ways.count, relations.count) }
    mutating func reserveNodeCapacity(_ count: Int) { nodes.reserveCapacity(nodes.count + count) }

    @inline(__always)
    mutating func addNode(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: OSMTags, metadata: OSMMetadata?) {
        nodes.append(OSMNode(id: id, latitudeE7: latitudeE7, longitudeE7: longitudeE7, tags: tags, metadata: metadata))
    }

    mutating func add(_ way: OSMWay) { ways.append(way) }
    mutating func add(_ relation: OSMRelation) { relations.append(relation) }
}

/// The counts and node extent of one block.
struct OSMBlockStatistics: OSMBlockContent {
    static var buildsElements: Bool { false }
    var byteOffset = 0
    var counts = (nodes: 0, ways: 0, relations: 0)
    var nodeExtent = OSMNodeExtent()

    init() {}

    init(_ elements: OSMElementBlock) {
        byteOffset = elements.byteOffset
        counts = elements.counts
        for node in elements.nodes { nodeExtent.add(latitudeE7: node.latitudeE7, longitudeE7: node.longitudeE7) }
    }

    func reserveNodeCapacity(_ count: Int) {}

    @inline(__always)
    mutating func addNode(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: OSMTags, metadata: OSMMetadata?) {
        counts.nodes += 1
        nodeExtent.add(latitudeE7: latitudeE7, longitudeE7: longitudeE7)
    }

    mutating func add(_ way: OSMWay) { counts.ways += 1 }
    mutating func add(_ relation: OSMRelation) { counts.relations += 1 }
}

extension OSMFileStatistics {
    /// `geo osm info`'s report, one line each: the file and its format, the header's bounding
    /// box, writing program and required features (when present), the node, way and relation
    /// counts, the nodes' extent (degrees), blocks, ignored tags, rejected nodes, dropped
    /// metadata values, and the read's time (`seconds`, to 1 ms) with its rate in elements per
    /// second.
    /// - Parameters:
    ///   - file: the path as named on the command line.
    ///   - seconds: how long the read took.
    public func report(file: String, format: OSMFileFormat, seconds: Double) -> [String] {
        var lines = ["file: \(file)", "format: \(format.rawValue)"]
        if let header = summary.header {
            if let box = header.boundingBox { lines.append("header bbox: \(box)") }
            if let program = header.writingProgram { lines.append("writing program: \(program)") }
            if !header.requiredFeatures.isEmpty { lines.append("required features: \(header.requiredFeatures.joined(separator: ", "))") }
        }
        lines += ["nodes: \(summary.nodeCount)", "ways: \(summary.wayCount)", "relations: \(summary.relationCount)"]
        if !nodeExtent.isEmpty {
            lines.append("node bbox: [\(Double(nodeExtent.southE7) / 1e7),\(Double(nodeExtent.westE7) / 1e7) – \(Double(nodeExtent.northE7) / 1e7),\(Double(nodeExtent.eastE7) / 1e7)]")
        }
        let total = summary.nodeCount + summary.wayCount + summary.relationCount
        lines += ["blocks: \(summary.blockCount)", "ignored tags: \(summary.ignoredTagCount)", "rejected nodes: \(summary.rejectedNodeCount)",
                  "dropped metadata values: \(summary.droppedMetadataValueCount)",
                  "time: \(FixedDecimal.string(seconds, decimals: 3)) s (\(FixedDecimal.string(seconds > 0 ? Double(total) / seconds : 0, decimals: 0)) elements/s)"]
        return lines
    }
}
