import GeoCore
public import MapData
import SystemIO

/// The two archive formats `geo tiles build` writes.
public enum TileArchiveKind: Sendable {
    /// PMTiles v3, one file with gzip directories and gzip tiles.
    case pmtiles
    /// MBTiles 1.3, an SQLite database with gzip tiles.
    case mbtiles

    /// The kind named by a path's extension, or nil.
    public init?(path: String) {
        let lower = path.lowercased()
        if lower.hasSuffix(".pmtiles") { self = .pmtiles } else if lower.hasSuffix(".mbtiles") { self = .mbtiles } else { return nil }
    }
}

/// Writes gzip-compressed MVT tiles, given in tile-id order, into a new archive that replaces
/// `path` atomically on `finish` (a temporary file next to it is renamed over it).
///
/// Memory: MBTiles tiles go to SQLite as they come. PMTiles tile bytes go to a spill file next to
/// `path` (a `TemporaryFile`, `.geo-tiles-<pid>-<n>.tiledata`) whenever `spillSize` of them are
/// pending, and are copied behind the directories on `finish`; what stays in memory is the directory (one entry per run of tiles) and the small
/// tiles kept for deduplication (`PMTilesWriter.deduplicationLimit`). Writing to a special file
/// (`/dev/stdout`) keeps the tile bytes in memory instead.
public struct TileArchiveWriter {
    private let path: String
    private var pmtiles: PMTilesWriter?
    private var mbtiles: MBTilesWriter?
    /// The PMTiles spill file (removed on `finish` or `discard`).
    private var spill: TemporaryFile?
    private var spilled: Int64 = 0
    /// Pending PMTiles tile bytes that are written to the spill file at once: 8 MiB.
    public static let spillSize = 8 << 20

    /// - Throws: `SystemIOError` when the temporary file cannot be made; `TileArchiveError` from SQLite.
    public init(kind: TileArchiveKind, path: String) throws {
        self.path = path
        switch kind {
        case .pmtiles:
            pmtiles = PMTilesWriter(tileType: .mvt, tileCompression: .gzip)
            // A special file (a FIFO) is opened once, by `finish`: asked, not opened, here.
            if try !AtomicFileReplacement.writesThrough(path) {
                spill = try TemporaryFile(in: FileDescriptor.directory(of: path), prefix: ".geo-tiles", suffix: ".tiledata")
            }
        case .mbtiles: mbtiles = try MBTilesWriter(replacing: path)
        }
    }

    /// Adds one tile or run of tiles (gzip-compressed MVT): a run is one PMTiles entry, and
    /// one MBTiles row per tile (`MBTilesWriter.maximumTiles`).
    public mutating func add(_ tile: EncodedTile) throws {
        if pmtiles != nil {
            try pmtiles!.add(zoom: tile.zoom, x: tile.x, y: tile.y, data: tile.data, runLength: tile.runLength)
            if let spill, pmtiles!.pendingTileDataCount >= Self.spillSize {
                let bytes = pmtiles!.takeTileData()
                try spill.descriptor.writeAll(bytes)
                spilled += Int64(bytes.count)
            }
        }
        try mbtiles?.add(tile)
    }

    /// Removes the temporary files; the archive at `path` is left as it was.
    public func discard() {
        spill?.remove()
    }

    /// Writes the metadata and puts the archive in place.
    /// - Parameter bounds: west, south, east, north in degrees (`bounds(of:)`).
    public func finish(name: String, minZoom: Int, maxZoom: Int, bounds: (west: Double, south: Double, east: Double, north: Double)) throws {
        let json = TileMetadata.json(name: name, minZoom: minZoom, maxZoom: maxZoom)
        let (center, centerZoom) = Self.center(of: bounds, minZoom: minZoom, maxZoom: maxZoom)
        if var pmtiles {
            guard let spill else {
                try AtomicFileReplacement.write(try pmtiles.finished(metadata: json, bounds: bounds, center: center, centerZoom: centerZoom), to: path)
                return
            }
            defer { spill.remove() }
            let leading = try pmtiles.leadingSections(metadata: json, bounds: bounds, center: center, centerZoom: centerZoom)
            let rest = pmtiles.takeTileData()
            let out = try AtomicFileReplacement(replacing: path)
            do {
                try out.descriptor.writeAll(leading)
                var offset: Int64 = 0
                while offset < spilled {
                    let chunk = try spill.descriptor.read(count: Int(min(Int64(Self.spillSize), spilled - offset)), atOffset: offset)
                    guard !chunk.isEmpty else { throw TileArchiveError(.truncated, "ends at byte \(offset) of \(spilled)", path: spill.path) }
                    try out.descriptor.writeAll(chunk)
                    offset += Int64(chunk.count)
                }
                try out.descriptor.writeAll(rest)
                try out.commit()
            } catch {
                out.discard()
                throw error
            }
            try out.descriptor.close()
        }
        if let mbtiles {
            try mbtiles.finish(metadata: [
                ("name", name), ("format", "pbf"), ("type", "baselayer"), ("version", "1"),
                ("description", "OpenStreetMap in the LocationKit layer schema"),
                ("attribution", "© OpenStreetMap contributors"),
                ("bounds", "\(bounds.west),\(bounds.south),\(bounds.east),\(bounds.north)"),
                ("center", "\(center.0),\(center.1),\(centerZoom)"),
                ("minzoom", String(minZoom)), ("maxzoom", String(maxZoom)),
                ("json", json),
            ])
        }
    }

    /// The centre an archive declares for viewers: the middle of its bounds (degrees), at the
    /// middle of its zooms.
    public static func center(of bounds: (west: Double, south: Double, east: Double, north: Double), minZoom: Int, maxZoom: Int)
        -> (center: (longitude: Double, latitude: Double), zoom: Int) {
        (((bounds.west + bounds.east) / 2, (bounds.south + bounds.north) / 2), min(maxZoom, max(minZoom, (minZoom + maxZoom + 1) / 2)))
    }

    /// The degrees box of the features (the world when there are none).
    public static func bounds(of features: [MapFeature]) -> (west: Double, south: Double, east: Double, north: Double) {
        bounds(ofWorldBox: features.reduce(WorldRect.empty) { $0.union($1.geometry.bounds ?? .empty) })
    }

    /// The degrees box of a world-unit box (`MapPoint`); the world when it is inverted (empty).
    public static func bounds(ofWorldBox b: WorldRect) -> (west: Double, south: Double, east: Double, north: Double) {
        guard !b.isEmpty else { return (-180, -85.051_128_779_806_59, 180, 85.051_128_779_806_59) }
        let nw = MapPoint(x: b.minX, y: b.minY).coordinate, se = MapPoint(x: b.maxX, y: b.maxY).coordinate
        return (nw.longitude, se.latitude, se.longitude, nw.latitude)
    }
}

/// A PMTiles archive read with `pread(2)` from its file, or from bytes held in memory (an
/// OSM extract tiled on start, `OSMTiling.memoryArchive`).
public struct PMTilesFile: TileArchiveBytes, Sendable {
    private enum Storage: Sendable {
        case file(FileDescriptor)
        case memory([UInt8])
    }

    private let storage: Storage
    public let size: Int

    /// Opens `path` for reading.
    /// - Throws: `SystemIOError` naming the path.
    public init(path: String) throws {
        let descriptor = try FileDescriptor(opening: path)
        storage = .file(descriptor)
        size = Int(try descriptor.size())
    }

    /// An archive's bytes in memory.
    public init(bytes: [UInt8]) {
        storage = .memory(bytes)
        size = bytes.count
    }

    /// `count` bytes at `offset`; fewer only at the end.
    public func read(offset: Int, count: Int) throws -> [UInt8] {
        switch storage {
        case .file(let descriptor): try descriptor.read(count: count, atOffset: Int64(offset))
        case .memory(let bytes): try bytes.read(offset: offset, count: count)
        }
    }

    /// Closes the file (nothing for bytes in memory).
    public func close() throws {
        if case .file(let descriptor) = storage { try descriptor.close() }
    }
}
