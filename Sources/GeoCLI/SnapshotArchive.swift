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
    /// The archive, read through `MapSource` (its metadata gives zooms, centre and bounds).
    private let source: any MapSource
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

    /// Opens `path` when it names an archive (`.pmtiles`, `.mbtiles`); nil for other files.
    /// - Parameter command: the command reading it, for the line about a damaged tile.
    /// - Throws: `MapDataError` or `TileArchiveError` for an archive that is damaged.
    init?(path: String, command: String) throws {
        reporter = "geo \(command): \(path)"
        guard TileArchiveKind(path: path) != nil else { return nil }
        source = try MapSources.open(path)
        let metadata = source.metadata
        minZoom = metadata.minZoom
        maxZoom = metadata.maxZoom
        center = metadata.center?.coordinate
        bounds = metadata.bounds
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
        guard let stored = try source.tile(zoom: z, x: x, y: y) else { return [] }
        do {
            return try VectorTile(decodingStored: stored.bytes).layers.flatMap { try $0.mapFeatures(zoom: z, x: x, y: y) }
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
