public import GeoCore

/// A tile as its source stores it: the bytes, and whether they are gzip-compressed (RFC 1952),
/// as PMTiles v3 archives and MBTiles of vector tiles usually keep MVT.
public struct StoredTile: Hashable, Sendable {
    public var bytes: [UInt8]
    /// Whether `bytes` is a gzip stream of the tile (not the tile itself).
    public var gzipped: Bool

    public init(bytes: [UInt8], gzipped: Bool) {
        self.bytes = bytes
        self.gzipped = gzipped
    }

    /// Whether `bytes` starts with gzip's magic number 1F 8B (RFC 1952 §2.3.1): how MBTiles and
    /// XYZ folders, which do not say, are read.
    public static func looksGzipped(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    }
}

/// The kind of tile a source holds (PMTiles v3 §3 tile type; MBTiles 1.3 `format`).
public enum MapTileFormat: String, Hashable, Sendable {
    /// Mapbox Vector Tile 2.1, served as `.pbf`.
    case mvt = "pbf"
    case png, jpeg = "jpg", webp
}

/// What a map source says about itself, in TileJSON 3.0.0's terms
/// (https://github.com/mapbox/tilejson-spec/tree/master/3.0.0).
public struct MapSourceMetadata: Sendable, Equatable {
    public var name: String
    public var format: MapTileFormat
    /// The zooms with tiles, 0…30.
    public var minZoom: Int, maxZoom: Int
    /// The area covered, degrees; nil for the whole world.
    public var bounds: BoundingBox?
    /// Where a viewer starts: a coordinate and a zoom.
    public var center: (coordinate: Coordinate, zoom: Int)?
    /// TileJSON `vector_layers` as the source wrote them (`id`, `fields`, `minzoom`, …).
    public var vectorLayers: [JSONValue]
    public var attribution: String?
    public var description: String?

    public init(name: String, format: MapTileFormat, minZoom: Int, maxZoom: Int, bounds: BoundingBox? = nil,
                center: (coordinate: Coordinate, zoom: Int)? = nil, vectorLayers: [JSONValue] = [], attribution: String? = nil,
                description: String? = nil) {
        self.name = name
        self.format = format
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.bounds = bounds
        self.center = center
        self.vectorLayers = vectorLayers
        self.attribution = attribution
        self.description = description
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.format == b.format && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom && a.bounds == b.bounds
            && a.center?.coordinate == b.center?.coordinate && a.center?.zoom == b.center?.zoom && a.vectorLayers == b.vectorLayers
            && a.attribution == b.attribution && a.description == b.description
    }

    /// Takes `vector_layers`, `attribution`, `description` and `name` from a TileJSON-like
    /// metadata object (PMTiles v3 §6, MBTiles 1.3 `json`); other keys are left alone.
    public mutating func take(tileJSON object: [String: JSONValue]) {
        if case .array(let layers)? = object["vector_layers"] { vectorLayers = layers }
        if case .string(let text)? = object["attribution"] { attribution = text }
        if case .string(let text)? = object["description"] { description = text }
        if case .string(let text)? = object["name"], !text.isEmpty { name = text }
    }

    /// Whether tile z/x/y lies where the source says it has tiles: `minZoom…maxZoom` and, when
    /// there are bounds, a tile whose square meets them (edges touching count).
    /// - Precondition: x and y in 0..<2^z.
    public func covers(zoom z: Int, x: Int, y: Int) -> Bool {
        guard (minZoom...maxZoom).contains(z) else { return false }
        guard let bounds else { return true }
        let n = Double(1 << z)
        let nw = MapPoint(x: Double(x) / n, y: Double(y) / n).coordinate, se = MapPoint(x: Double(x + 1) / n, y: Double(y + 1) / n).coordinate
        return nw.longitude <= bounds.east && se.longitude >= bounds.west && se.latitude <= bounds.north && nw.latitude >= bounds.south
    }
}

/// Where map tiles come from: an archive (PMTiles, MBTiles), a folder of z/x/y files, … .
/// Conformances read from any thread (`Sendable`).
public protocol MapSource: Sendable {
    var metadata: MapSourceMetadata { get }
    /// Tile z/x/y as stored, nil when the source has none there.
    /// - Precondition: 0 ≤ z ≤ 30 and x, y in 0..<2^z (callers validate).
    /// - Throws: the source's error when it cannot be read (a damaged archive).
    func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile?
}
