public import GeoCore
import Foundation

/// One OSM tag: a key and its value (both at most 255 characters in the OSM API).
public struct OSMTag: Hashable, Sendable {
    public var key: String
    public var value: String

    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}

/// The tags of an element in file order (keys are unique in valid data, but the order is
/// kept as read so a round trip writes them back unchanged).
public struct OSMTags: RandomAccessCollection, Hashable, Sendable, ExpressibleByDictionaryLiteral {
    /// The tags in order.
    public private(set) var elements: [OSMTag]

    public init() { elements = [] }
    public init(_ elements: [OSMTag]) { self.elements = elements }
    /// Tags from `(key, value)` literals, kept in the order written.
    public init(dictionaryLiteral pairs: (String, String)...) {
        elements = pairs.map { OSMTag(key: $0.0, value: $0.1) }
    }

    public var startIndex: Int { elements.startIndex }
    public var endIndex: Int { elements.endIndex }
    public subscript(position: Int) -> OSMTag { elements[position] }

    /// The value of the first tag with this key, or nil.
    /// - Complexity: O(n) in the number of tags (elements have a handful).
    public subscript(key: String) -> String? {
        for tag in elements where tag.key == key { return tag.value }
        return nil
    }

    /// Appends a tag at the end.
    public mutating func append(key: String, value: String) {
        elements.append(OSMTag(key: key, value: value))
    }

    /// Reserves room for `n` tags.
    public mutating func reserveCapacity(_ n: Int) { elements.reserveCapacity(n) }
}

/// The optional editing metadata of an element (OSM API 0.6 attributes).
public struct OSMMetadata: Hashable, Sendable {
    /// Version of the element, 1 for a new element; 0 when unknown.
    public var version: Int32
    /// Time of the last edit, whole seconds since 1970-01-01T00:00:00Z; 0 when unknown.
    public var timestamp: Int64
    /// Changeset of the last edit; 0 when unknown.
    public var changeset: Int64
    /// User id of the last editor; 0 when unknown (or anonymous).
    public var uid: Int32
    /// User name of the last editor; empty when unknown.
    public var user: String
    /// False for a deleted element in history files; true otherwise.
    public var visible: Bool

    public init(version: Int32 = 0, timestamp: Int64 = 0, changeset: Int64 = 0, uid: Int32 = 0, user: String = "", visible: Bool = true) {
        self.version = version
        self.timestamp = timestamp
        self.changeset = changeset
        self.uid = uid
        self.user = user
        self.visible = visible
    }
}

/// Fixed-point degrees at 1e7 (OSM's own precision, about 1 cm), the storage of OSM coordinates.
public enum OSMFixedPoint {
    /// Units per degree: 10,000,000.
    public static let unitsPerDegree: Double = 1e7

    /// Degrees to fixed point, rounded to the nearest unit; nil when outside Int32.
    @inlinable
    public static func fixed(_ degrees: Double) -> Int32? {
        let v = (degrees * unitsPerDegree).rounded()
        guard v.isFinite, v >= Double(Int32.min), v <= Double(Int32.max) else { return nil }
        return Int32(v)
    }
}

/// An OSM node: a point with tags.
public struct OSMNode: Hashable, Sendable {
    public var id: Int64
    /// Latitude in units of 1e-7 degrees, in [-900,000,000, 900,000,000].
    public var latitudeE7: Int32
    /// Longitude in units of 1e-7 degrees, in [-1,800,000,000, 1,800,000,000].
    public var longitudeE7: Int32
    public var tags: OSMTags
    public var metadata: OSMMetadata?

    public init(id: Int64, latitudeE7: Int32, longitudeE7: Int32, tags: OSMTags = [:], metadata: OSMMetadata? = nil) {
        self.id = id
        self.latitudeE7 = latitudeE7
        self.longitudeE7 = longitudeE7
        self.tags = tags
        self.metadata = metadata
    }

    /// A node at `coordinate`, rounded to 1e-7 degrees.
    public init(id: Int64, coordinate: Coordinate, tags: OSMTags = [:], metadata: OSMMetadata? = nil) {
        self.init(id: id,
                  latitudeE7: OSMFixedPoint.fixed(coordinate.latitude) ?? 0,
                  longitudeE7: OSMFixedPoint.fixed(coordinate.longitude) ?? 0,
                  tags: tags, metadata: metadata)
    }

    /// The position in degrees (longitude 180 is reported as -180).
    public var coordinate: Coordinate {
        Coordinate(uncheckedLatitude: Double(latitudeE7) / OSMFixedPoint.unitsPerDegree,
                   longitude: Coordinate.normalizedLongitude(Double(longitudeE7) / OSMFixedPoint.unitsPerDegree))
    }

    /// Whether the fixed-point position is a valid WGS84 position.
    public var hasValidCoordinate: Bool {
        latitudeE7 >= -900_000_000 && latitudeE7 <= 900_000_000
            && longitudeE7 >= -1_800_000_000 && longitudeE7 <= 1_800_000_000
    }
}

/// An OSM way: an ordered list of node references with tags (a road, a building outline…).
public struct OSMWay: Hashable, Sendable {
    public var id: Int64
    /// Ids of the nodes along the way, in order; closed ways repeat the first id at the end.
    public var nodeRefs: [Int64]
    public var tags: OSMTags
    public var metadata: OSMMetadata?

    public init(id: Int64, nodeRefs: [Int64], tags: OSMTags = [:], metadata: OSMMetadata? = nil) {
        self.id = id
        self.nodeRefs = nodeRefs
        self.tags = tags
        self.metadata = metadata
    }
}

/// An OSM relation: an ordered list of members with tags (a turn restriction, a multipolygon…).
public struct OSMRelation: Hashable, Sendable {
    public var id: Int64
    public var members: [OSMMember]
    public var tags: OSMTags
    public var metadata: OSMMetadata?

    public init(id: Int64, members: [OSMMember], tags: OSMTags = [:], metadata: OSMMetadata? = nil) {
        self.id = id
        self.members = members
        self.tags = tags
        self.metadata = metadata
    }
}

/// Any OSM element.
public enum OSMElement: Hashable, Sendable {
    case node(OSMNode)
    case way(OSMWay)
    case relation(OSMRelation)

    public var type: OSMElementType {
        switch self {
        case .node: .node
        case .way: .way
        case .relation: .relation
        }
    }

    public var id: Int64 {
        switch self {
        case .node(let n): n.id
        case .way(let w): w.id
        case .relation(let r): r.id
        }
    }
}

/// A batch of elements as read from one file block, delivered in file order.
///
/// Within a block the reader keeps the order of each kind; a PBF block holds one kind in
/// practice (sorted files put all nodes first, then ways, then relations).
public struct OSMElementBlock: Sendable {
    /// Byte offset in the file of the block these elements came from (PBF: the block's
    /// length prefix; XML: the position of the first element, in decompressed bytes).
    public var byteOffset: Int
    public var nodes: [OSMNode]
    public var ways: [OSMWay]
    public var relations: [OSMRelation]

    public init(byteOffset: Int = 0, nodes: [OSMNode] = [], ways: [OSMWay] = [], relations: [OSMRelation] = []) {
        self.byteOffset = byteOffset
        self.nodes = nodes
        self.ways = ways
        self.relations = relations
    }

    /// Number of elements in the block.
    public var count: Int { nodes.count + ways.count + relations.count }
}

/// What a file declares about itself before its elements.
public struct OSMHeader: Hashable, Sendable {
    /// The area the extract claims to cover, if given.
    public var boundingBox: BoundingBox?
    /// Features a reader must support (`OsmSchema-V0.6`, `DenseNodes`, `HistoricalInformation`).
    public var requiredFeatures: [String]
    /// Features a reader may use (`Sort.Type_then_ID`, `LocationsOnWays`…).
    public var optionalFeatures: [String]
    /// The program that wrote the file.
    public var writingProgram: String?
    /// Free-form source description.
    public var source: String?
    /// Replication timestamp, seconds since 1970, if given.
    public var replicationTimestamp: Int64?
    /// Replication sequence number, if given.
    public var replicationSequenceNumber: Int64?
    /// Replication base URL, if given.
    public var replicationBaseURL: String?

    public init(boundingBox: BoundingBox? = nil, requiredFeatures: [String] = ["OsmSchema-V0.6", "DenseNodes"],
                optionalFeatures: [String] = [], writingProgram: String? = nil, source: String? = nil,
                replicationTimestamp: Int64? = nil, replicationSequenceNumber: Int64? = nil, replicationBaseURL: String? = nil) {
        self.boundingBox = boundingBox
        self.requiredFeatures = requiredFeatures
        self.optionalFeatures = optionalFeatures
        self.writingProgram = writingProgram
        self.source = source
        self.replicationTimestamp = replicationTimestamp
        self.replicationSequenceNumber = replicationSequenceNumber
        self.replicationBaseURL = replicationBaseURL
    }
}

/// Options shared by the readers.
public struct OSMReadOptions: Sendable {
    /// Whether to decode version/timestamp/changeset/user; off saves time and memory.
    public var includesMetadata: Bool
    /// Blocks decoded concurrently (PBF); defaults to the number of active cores.
    public var parallelism: Int
    /// Elements per delivered block (XML; PBF blocks come as the file has them).
    public var blockSize: Int
    /// Whether a truncated or damaged file ends the read quietly after the elements before
    /// the damage (`OSMReadSummary.damage` says where) instead of throwing.
    public var recovering: Bool

    public init(includesMetadata: Bool = true, parallelism: Int? = nil, blockSize: Int = 8_000, recovering: Bool = false) {
        self.includesMetadata = includesMetadata
        self.parallelism = max(1, parallelism ?? OSMReadOptions.activeProcessorCount)
        self.blockSize = max(1, blockSize)
        self.recovering = recovering
    }

    static var activeProcessorCount: Int { ProcessInfo.processInfo.activeProcessorCount }
}

/// Counts from a finished read, including what was dropped as absurd.
public struct OSMReadSummary: Hashable, Sendable {
    public var nodeCount = 0
    public var wayCount = 0
    public var relationCount = 0
    /// Data blocks read (PBF `OSMData` blobs, or XML batches).
    public var blockCount = 0
    /// Tags dropped because the key was empty or a key or value exceeded 255 characters.
    public var ignoredTagCount = 0
    /// Nodes dropped because their latitude or longitude was outside the WGS84 range.
    public var rejectedNodeCount = 0
    /// Metadata values dropped because they did not parse (OSM XML's `version`, `changeset`,
    /// `uid` not an integer of their width, `timestamp` not a real `YYYY-MM-DDTHH:MM:SSZ`); the
    /// element keeps the rest. PBF's metadata is binary and always parses.
    public var droppedMetadataValueCount = 0
    /// The file's header (PBF `OSMHeader` block; for XML the `<osm generator>` and
    /// `<bounds>`), if it has one.
    public var header: OSMHeader?
    /// Where and why a recovering read stopped early (`OSMReadOptions.recovering`); the counts
    /// are then those of the elements delivered before it. Nil when the whole file was read.
    public var damage: OSMError?

    public init() {}

    mutating func add(_ block: some OSMBlockContent) {
        let counts = block.counts
        nodeCount += counts.nodes
        wayCount += counts.ways
        relationCount += counts.relations
        blockCount += 1
    }
}

extension OSMReadSummary {
    /// "N nodes, M ways, K relations", for messages (`geo osm`, `geo extract`).
    public var elementCounts: String { "\(nodeCount) nodes, \(wayCount) ways, \(relationCount) relations" }

    /// Where a recovering read of `file` stopped and what it kept, as two lines (none without
    /// ``damage``): "FILE: the error", then "FILE: --recover kept N nodes, M ways, K relations
    /// before the damage; the rest of the file was not read" (`geo osm`, `geo extract`).
    public func damageLines(file: String) -> [String] {
        guard let damage else { return [] }
        return ["\(file): \(damage)", "\(file): --recover kept \(elementCounts) before the damage; the rest of the file was not read"]
    }
}

/// Tag sanity rule shared by the readers: OSM keys and values are 1…255 characters
/// (API 0.6 limits); longer or empty keys are "absurd" and dropped with a count.
enum TagRules {
    static let maximumLength = 255

    @inline(__always)
    static func isAcceptable(key: String, value: String) -> Bool {
        !key.isEmpty && isShortEnough(key) && isShortEnough(value)
    }

    @inline(__always)
    static func isShortEnough(_ s: String) -> Bool {
        let bytes = s.utf8.count
        return bytes <= maximumLength || s.unicodeScalars.count <= maximumLength
    }
}
