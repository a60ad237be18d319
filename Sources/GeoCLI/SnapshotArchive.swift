import GeoBase
import GeoCore
import MapData
import MapRenderer
import Synchronization
import SystemIO
import TileArchives

/// A vector tile archive (`.pmtiles` or `.mbtiles`) as the data of `geo snapshot`: the tiles
/// that cover the view at the zoom nearest below the view's (the archive's deepest zoom at
/// most), decoded back to map features. A tile that does not decode is that tile's error, not
/// the map's: it is reported once on standard error, naming the tile, and the rest is drawn.
struct SnapshotArchive {
    private let pmtiles: PMTilesReader<PMTilesFile>?
    private let mbtiles: MBTilesReader?
    let minZoom: Int, maxZoom: Int
    /// The archive's centre, for a view without `--center`.
    let center: Coordinate?
    /// The area the archive says it covers (PMTiles header bounds, MBTiles `bounds`
    /// "west,south,east,north"); nil when it does not say.
    let bounds: BoundingBox?
    /// What starts the line about a damaged tile: "geo snapshot: PATH".
    private let reporter: String
    /// The damaged tiles reported so far.
    private let reported = ReportedTiles()

    /// Opens `path` when it names an archive; nil for other files.
    /// - Parameter command: the command reading it, for the line about a damaged tile.
    /// - Throws: `MapDataError` for an archive that is damaged.
    init?(path: String, command: String) throws {
        reporter = "geo \(command): \(path)"
        let lower = path.lowercased()
        if lower.hasSuffix(".pmtiles") {
            let reader = try PMTilesReader(try PMTilesFile(path: path))
            pmtiles = reader
            mbtiles = nil
            minZoom = Int(reader.header.minZoom)
            maxZoom = Int(reader.header.maxZoom)
            center = try? Coordinate(latitude: Double(reader.header.centerLatE7) / 1e7, longitude: Double(reader.header.centerLonE7) / 1e7)
            let h = reader.header
            bounds = try? BoundingBox(south: Double(h.minLatE7) / 1e7, west: Double(h.minLonE7) / 1e7, north: Double(h.maxLatE7) / 1e7, east: Double(h.maxLonE7) / 1e7)
        } else if lower.hasSuffix(".mbtiles") {
            let reader = try MBTilesReader(path: path)
            let metadata = try reader.metadata()
            pmtiles = nil
            mbtiles = reader
            // MBTiles 1.3's metadata fields, each optional; one present that does not read is
            // damage named by its field, not a view of somewhere else.
            func field<T>(_ name: String, _ form: String, _ read: ([Double]) throws -> T?) throws(MapDataError) -> T? {
                guard let text = metadata[name] else { return nil }
                let numbers = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.filter { !$0.isWhitespace }) }
                guard numbers.allSatisfy({ $0?.isFinite == true }), let value = try? read(numbers.map { $0! }) else {
                    throw MapDataError(.invalidArchive, "metadata \(name) '\(text)' is not \(form)")
                }
                return value
            }
            let zooms = 0...Int(PMTiles.maximumZoom)
            func zoom(_ n: [Double]) -> Int? { n.count == 1 ? Int(exactly: n[0]).flatMap { zooms.contains($0) ? $0 : nil } : nil }
            minZoom = try field("minzoom", "a zoom \(zooms.lowerBound) to \(zooms.upperBound)", zoom) ?? 0
            maxZoom = try field("maxzoom", "a zoom \(zooms.lowerBound) to \(zooms.upperBound)", zoom) ?? max(minZoom, 14)
            guard minZoom <= maxZoom else { throw MapDataError(.invalidArchive, "metadata minzoom \(minZoom) is above maxzoom \(maxZoom)") }
            // "center" is "lon,lat,zoom"; "bounds" "west,south,east,north", degrees.
            center = try field("center", "lon,lat,zoom in degrees") { c in
                c.count == 2 || c.count == 3 ? try Coordinate(latitude: c[1], longitude: c[0]) : nil
            }
            bounds = try field("bounds", "west,south,east,north in degrees") { b in
                b.count == 4 ? try BoundingBox(south: b[1], west: b[0], north: b[3], east: b[2]) : nil
            }
        } else {
            return nil
        }
    }

    /// The features of the tiles over the world rectangle `bounds` at the tile zoom for `zoom`.
    /// - Throws: `MapDataError` or `TileArchiveError` when the archive cannot be read.
    func features(in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), zoom: Double) throws -> [MapFeature] {
        try tiles(in: bounds, zoom: zoom).flatMap { try features(z: $0.z, x: $0.x, y: $0.y) }
    }

    /// The features over `bounds` for drawing at `zoom`, indexed, each polygon's outline drawn
    /// only inside the tile it came from (``MapFeatureIndex/init(_:outlineBounds:)``: no
    /// outline along the tiles' clip lines); decoded tiles come from `cache` when it has them.
    /// - Throws: `MapDataError` or `TileArchiveError` when the archive cannot be read.
    func index(in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), zoom: Double, cache: DecodedTileCache? = nil) throws -> MapFeatureIndex {
        var features: [MapFeature] = []
        var outlineBounds: [(minX: Double, minY: Double, maxX: Double, maxY: Double)?] = []
        for (z, x, y) in tiles(in: bounds, zoom: zoom) {
            let decoded = try cache?.features(z: z, x: x, y: y) { try self.features(z: z, x: x, y: y) } ?? self.features(z: z, x: x, y: y)
            let n = Double(1 << z)
            let tile: (minX: Double, minY: Double, maxX: Double, maxY: Double)? = (Double(x) / n, Double(y) / n, Double(x + 1) / n, Double(y + 1) / n)
            features += decoded
            outlineBounds += repeatElement(tile, count: decoded.count)
        }
        return MapFeatureIndex(features, outlineBounds: outlineBounds)
    }

    /// The tiles over the world rectangle `bounds` at the zoom nearest below `zoom` that the
    /// archive holds.
    private func tiles(in bounds: (minX: Double, minY: Double, maxX: Double, maxY: Double), zoom: Double) -> [(z: Int, x: Int, y: Int)] {
        let z = min(max(Int(zoom.rounded(.down)), minZoom), maxZoom)
        let n = 1 << z
        func tile(_ v: Double) -> Int { min(max(Int((v * Double(n)).rounded(.down)), 0), n - 1) }
        return (tile(bounds.minY)...tile(bounds.maxY)).flatMap { y in (tile(bounds.minX)...tile(bounds.maxX)).map { x in (z, x, y) } }
    }

    /// One tile's features, none when the archive does not hold it or the tile does not decode
    /// (bad gzip, gzip inflating past `VectorTile.defaultInflateLimit`, bad MVT): such a tile
    /// is reported once on standard error ("geo snapshot: PATH: tile 14/8529/5975: …; drawn
    /// without it").
    /// - Throws: `MapDataError` or `TileArchiveError` when the archive cannot be read.
    private func features(z: Int, x: Int, y: Int) throws -> [MapFeature] {
        guard let stored = try pmtiles?.tile(zoom: z, x: x, y: y) ?? mbtiles?.tile(zoom: z, x: x, y: y) else { return [] }
        do {
            return try VectorTile(decodingStored: stored).layers.flatMap { try $0.mapFeatures(zoom: z, x: x, y: y) }
        } catch {
            if reported.insert(z: z, x: x, y: y) {
                try? FileDescriptor.standardError.writeAll("\(reporter): tile \(z)/\(x)/\(y): \(error); drawn without it\n")
            }
            return []
        }
    }
}

/// The tiles of an archive already reported as damaged (a live map redraws the same tiles).
private final class ReportedTiles: Sendable {
    private struct Key: Hashable { let z: Int, x: Int, y: Int }
    private let tiles = Mutex<Set<Key>>([])

    /// Records z/x/y; whether it is new.
    func insert(z: Int, x: Int, y: Int) -> Bool {
        tiles.withLock { $0.insert(Key(z: z, x: x, y: y)).inserted }
    }
}

/// The most recently used decoded tiles, at most `capacity` of them: `geo tiles render` draws
/// 4 × 4 blocks whose views (with their label margins) share source tiles with the blocks
/// around them, and decodes each shared tile once instead of once per block. A class, so one
/// cache is shared by every block the command draws.
final class DecodedTileCache {
    private var tiles: LeastRecentlyUsedCache<TileKey, [MapFeature]>

    private struct TileKey: Hashable { let z: Int, x: Int, y: Int }

    init(capacity: Int) {
        precondition(capacity > 0, "Broken contract: a cache holds at least one tile")
        tiles = LeastRecentlyUsedCache(capacity: capacity)
    }

    /// The tile's features from the cache, or from `decode` (then kept, the least recently
    /// used tile dropped when the cache is full).
    func features(z: Int, x: Int, y: Int, decode: () throws -> [MapFeature]) rethrows -> [MapFeature] {
        let key = TileKey(z: z, x: x, y: y)
        if let hit = tiles.value(forKey: key) { return hit }
        let features = try decode()
        tiles.insert(features, forKey: key)
        return features
    }
}
