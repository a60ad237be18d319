import GeoCore
public import MapData
import Synchronization
import SystemIO
import Platform

/// Opens map sources on disk by their names.
public enum MapSources {
    /// The source at `path`: a `.pmtiles` or `.mbtiles` archive, a folder of z/x/y files, or
    /// an OpenStreetMap extract (`.osm.pbf`, `.osm`, `.osm.gz`) cut into zooms 0…14 in memory
    /// (`OSMTiling.memoryArchive`, its scratch files in `$TMPDIR` or /tmp).
    /// - Throws: `TileArchiveError.invalidArgument` for a file that is none of these;
    ///   `MapDataError` or `TileArchiveError` for a damaged archive; `OSMError` for an extract
    ///   that does not read; `SystemIOError` when it cannot be read.
    public static func open(_ path: String) throws -> any MapSource {
        if isOSMExtract(path) {
            let processes = ProcessInfo.processInfo
            return try OSMTiling.memoryArchive(path, options: TilingOptions(parallelism: processes.activeProcessorCount),
                                               temporaryDirectory: processes.environment["TMPDIR"] ?? "/tmp")
        }
        switch TileArchiveKind(path: path) {
        case .pmtiles?: return try PMTilesSource(path: path)
        case .mbtiles?: return try MBTilesSource(path: path)
        case nil:
            guard FileIdentity(path: path)?.isDirectory == true else {
                throw TileArchiveError(.invalidArgument, "not a map source: a .pmtiles or .mbtiles archive or a folder of z/x/y tiles", path: path)
            }
            return try XYZFolderSource(path: path)
        }
    }

    /// The name a source is served and listed under: the file name without its extension
    /// (`monaco.pmtiles`, `monaco.osm.pbf` → `monaco`).
    public static func name(of path: String) -> String {
        var base = Substring(path)
        while base.hasSuffix("/") { base = base.dropLast() }
        base = base.split(separator: "/").last ?? base
        if TileArchiveKind(path: String(base)) != nil { base = base.dropLast(".pmtiles".count) } // or .mbtiles: as long
        if let suffix = osmSuffixes.first(where: { base.lowercased().hasSuffix($0) }), base.count > suffix.count { base = base.dropLast(suffix.count) }
        return String(base)
    }

    /// The endings of OpenStreetMap extracts (`OSMFileReader`'s formats), longest first.
    static let osmSuffixes = [".osm.pbf", ".osm.gz", ".osm"]

    /// Whether `path` names an OpenStreetMap extract by its ending.
    public static func isOSMExtract(_ path: String) -> Bool {
        let lower = path.lowercased()
        return osmSuffixes.contains { lower.hasSuffix($0) }
    }

    /// A metadata JSON text as an object; nil when it is not one.
    static func object(_ text: String) -> [String: JSONValue]? {
        guard case .object(let object)? = try? JSONValue(parsing: Array(text.utf8)) else { return nil }
        return object
    }
}

/// A PMTiles v3 archive as a `MapSource`: its header's zooms, bounds, centre and tile type,
/// its metadata's `vector_layers` and attribution. Closes the file when the last user lets go.
public final class PMTilesSource: MapSource {
    public let reader: PMTilesReader<PMTilesFile>
    public let metadata: MapSourceMetadata
    /// The archive's size, bytes.
    public var size: Int { file.size }
    private let file: PMTilesFile

    /// - Throws: `SystemIOError` when it cannot be opened, `MapDataError` for a damaged archive.
    public convenience init(path: String) throws {
        try self.init(file: try PMTilesFile(path: path), name: MapSources.name(of: path))
    }

    /// An archive held in memory, served as `name`.
    /// - Throws: `MapDataError` for bytes that are not an archive.
    public convenience init(archive: [UInt8], name: String) throws {
        try self.init(file: PMTilesFile(bytes: archive), name: name)
    }

    private init(file: PMTilesFile, name: String) throws {
        self.file = file
        do {
            reader = try PMTilesReader(file)
            let h = reader.header
            let format: MapTileFormat = switch h.tileType {
            case .png: .png
            case .jpeg: .jpeg
            case .webp: .webp
            default: .mvt
            }
            var m = MapSourceMetadata(name: name, format: format, minZoom: Int(h.minZoom), maxZoom: Int(h.maxZoom))
            m.bounds = try? BoundingBox(south: Double(h.minLatE7) / 1e7, west: Double(h.minLonE7) / 1e7, north: Double(h.maxLatE7) / 1e7, east: Double(h.maxLonE7) / 1e7)
            if let c = try? Coordinate(latitude: Double(h.centerLatE7) / 1e7, longitude: Double(h.centerLonE7) / 1e7) { m.center = (c, Int(h.centerZoom)) }
            if let object = MapSources.object(try reader.metadata()) { m.take(tileJSON: object) }
            metadata = m
        } catch {
            try? file.close()
            throw error
        }
    }

    deinit { try? file.close() }

    public func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile? {
        guard let bytes = try reader.tile(zoom: zoom, x: x, y: y) else { return nil }
        return StoredTile(bytes: bytes, gzipped: reader.header.tileCompression == .gzip)
    }

    /// `count` bytes of the archive file at `offset`; fewer only at its end.
    public func bytes(offset: Int, count: Int) throws -> [UInt8] { try file.read(offset: offset, count: count) }
}

/// An MBTiles 1.3 archive as a `MapSource`: the `metadata` table's zooms, bounds, centre,
/// format and `json` (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md).
public final class MBTilesSource: MapSource {
    public let metadata: MapSourceMetadata
    /// SQLite's connection, one caller at a time.
    private let reader: Mutex<MBTilesReader>

    /// - Throws: `TileArchiveError` for a file SQLite refuses; `MapDataError.invalidArchive`
    ///   naming the metadata field that does not read.
    public init(path: String) throws {
        let opened = try MBTilesReader(path: path)
        let table = try opened.metadata()
        let zooms = 0...Int(PMTiles.maximumZoom)
        let zoomForm = "a zoom \(zooms.lowerBound) to \(zooms.upperBound)"
        let minZoom = try Self.field(table, "minzoom", zoomForm) { Self.zoom($0) } ?? 0
        let maxZoom = try Self.field(table, "maxzoom", zoomForm) { Self.zoom($0) } ?? max(minZoom, 14)
        guard minZoom <= maxZoom else { throw MapDataError(.invalidArchive, "metadata minzoom \(minZoom) is above maxzoom \(maxZoom)") }
        let format = table["format"].flatMap { MapTileFormat(rawValue: $0 == "jpeg" ? "jpg" : $0) } ?? .mvt
        var m = MapSourceMetadata(name: MapSources.name(of: path), format: format, minZoom: minZoom, maxZoom: maxZoom)
        // "center" is "lon,lat,zoom"; "bounds" "west,south,east,north", degrees.
        if let c = try Self.field(table, "center", "lon,lat,zoom in degrees", { c in c.count == 2 || c.count == 3 ? c : nil }) {
            guard let coordinate = try? Coordinate(latitude: c[1], longitude: c[0]) else {
                throw MapDataError(.invalidArchive, "metadata center '\(table["center"]!)' is not lon,lat,zoom in degrees")
            }
            m.center = (coordinate, c.count == 3 ? Int(exactly: max(0, min(30, c[2].rounded()))) ?? minZoom : minZoom)
        }
        if let b = try Self.field(table, "bounds", "west,south,east,north in degrees", { b in b.count == 4 ? b : nil }) {
            guard let box = try? BoundingBox(south: b[1], west: b[0], north: b[3], east: b[2]) else {
                throw MapDataError(.invalidArchive, "metadata bounds '\(table["bounds"]!)' is not west,south,east,north in degrees")
            }
            m.bounds = box
        }
        if let json = table["json"], let object = MapSources.object(json) { m.take(tileJSON: object) }
        m.attribution = table["attribution"] ?? m.attribution
        m.name = MapSources.name(of: path)
        metadata = m
        reader = Mutex(opened)
    }

    /// A metadata field of comma-separated numbers, read by `read`; nil when absent. Each
    /// field is optional; one present that does not read is damage named by its field.
    private static func field<T>(_ table: [String: String], _ name: String, _ form: String, _ read: ([Double]) -> T?) throws(MapDataError) -> T? {
        guard let text = table[name] else { return nil }
        let numbers = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0.filter { !$0.isWhitespace }) }
        guard numbers.count == text.split(separator: ",", omittingEmptySubsequences: false).count, numbers.allSatisfy(\.isFinite),
              let value = read(numbers) else {
            throw MapDataError(.invalidArchive, "metadata \(name) '\(text)' is not \(form)")
        }
        return value
    }

    private static func zoom(_ n: [Double]) -> Int? {
        n.count == 1 ? Int(exactly: n[0]).flatMap { (0...Int(PMTiles.maximumZoom)).contains($0) ? $0 : nil } : nil
    }

    public func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile? {
        let bytes = try reader.withLock { reader throws(TileArchiveError) -> [UInt8]? in try reader.tile(zoom: zoom, x: x, y: y) }
        return bytes.map { StoredTile(bytes: $0, gzipped: StoredTile.looksGzipped($0)) }
    }
}

/// A folder of tiles `z/x/y.ext` (XYZ addressing, y down), as `mb-util` and `tilemaker` write
/// them, with an optional `metadata.json` (TileJSON-like; zooms, bounds, centre and format also
/// as MBTiles' strings). Without metadata the zooms are the folders 0…30 present, the format MVT.
public final class XYZFolderSource: MapSource {
    public let metadata: MapSourceMetadata
    private let path: String
    /// The tile files' extensions tried, in order.
    private let extensions: [String]

    /// - Throws: `TileArchiveError.invalidArchive` for a `metadata.json` that is not a JSON
    ///   object, or a folder without zoom folders.
    public init(path: String) throws {
        self.path = path
        let object = try Self.metadataObject(path)
        let number = { (key: String) in Self.numbers(object[key]) }
        let present = (0...30).filter { FileIdentity(path: "\(path)/\($0)")?.isDirectory == true }
        let minZoom = number("minzoom").flatMap(\.first).flatMap { Int(exactly: $0) } ?? present.first
        let maxZoom = number("maxzoom").flatMap(\.first).flatMap { Int(exactly: $0) } ?? present.last
        guard let minZoom, let maxZoom, (0...30).contains(minZoom), (minZoom...30).contains(maxZoom) else {
            throw TileArchiveError(.invalidArchive, "no zoom folders (0…30) and no minzoom and maxzoom in metadata.json", path: path)
        }
        var format = MapTileFormat.mvt
        if case .string(let f)? = object["format"], let known = MapTileFormat(rawValue: f == "jpeg" ? "jpg" : f) { format = known }
        extensions = format == .mvt ? ["pbf", "mvt"] : [format.rawValue]
        var m = MapSourceMetadata(name: MapSources.name(of: path), format: format, minZoom: minZoom, maxZoom: maxZoom)
        if let b = number("bounds"), b.count == 4 { m.bounds = try? BoundingBox(south: b[1], west: b[0], north: b[3], east: b[2]) }
        if let c = number("center"), c.count >= 2, let coordinate = try? Coordinate(latitude: c[1], longitude: c[0]) {
            m.center = (coordinate, c.count > 2 ? Int(exactly: c[2].rounded()) ?? minZoom : minZoom)
        }
        m.take(tileJSON: object)
        m.name = MapSources.name(of: path)
        metadata = m
    }

    /// `metadata.json` as an object; empty when there is none.
    private static func metadataObject(_ path: String) throws -> [String: JSONValue] {
        guard FileIdentity(path: path + "/metadata.json") != nil else { return [:] }
        let text = String(decoding: try FileDescriptor.readContents(of: path + "/metadata.json"), as: UTF8.self)
        guard let parsed = MapSources.object(text) else { throw TileArchiveError(.invalidArchive, "metadata.json is not a JSON object", path: path) }
        return parsed
    }

    /// A number, an array of numbers or a comma-separated string of them (MBTiles' form).
    private static func numbers(_ value: JSONValue?) -> [Double]? {
        switch value {
        case .number(let n)?: return [n]
        case .array(let items)?: return items.compactMap { item -> Double? in if case .number(let n) = item { return n } else { return nil } }
        case .string(let s)?: return s.split(separator: ",").compactMap { Double($0.filter { !$0.isWhitespace }) }
        default: return nil
        }
    }

    public func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile? {
        for ext in extensions {
            let file = "\(path)/\(zoom)/\(x)/\(y).\(ext)"
            guard FileIdentity(path: file) != nil else { continue }
            let bytes = try FileDescriptor.readContents(of: file)
            return StoredTile(bytes: bytes, gzipped: StoredTile.looksGzipped(bytes))
        }
        return nil
    }
}
