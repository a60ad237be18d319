import Synchronization

/// Map features held in memory (an OSM extract read whole, the sample city) served as vector
/// tiles: each zoom is cut by `MapTiler` when a tile of it is first asked for, and kept. What
/// `geo tiles build` would write for the same features, without the archive: a style's vector
/// source can draw data that was never tiled.
///
/// Memory: the features, and the tiles of every zoom asked for so far (a city: a few MB).
public final class FeatureMapSource: MapSource {
    public let metadata: MapSourceMetadata
    private let tiler: MapTiler
    /// Per zoom cut: single tiles by PMTiles tile id, and the runs of equal tiles (`TileFill`)
    /// as (first id, count, bytes), sorted by first id.
    private struct Zoom {
        var tiles: [UInt64: [UInt8]] = [:]
        var runs: [(first: UInt64, count: Int, bytes: [UInt8])] = []
    }
    private let zooms: Mutex<[Int: Zoom]> = Mutex([:])

    /// - Parameters:
    ///   - name: the source's name (TileJSON `name`).
    ///   - options: the zooms and grid, as `geo tiles build` takes them (tiles uncompressed).
    /// - Throws: `MapDataError.invalidArgument` for bad options.
    public init(features: [MapFeature], name: String, options: TilingOptions = TilingOptions()) throws(MapDataError) {
        var options = options
        options.compressesTiles = false
        tiler = try MapTiler(features: features, options: options)
        metadata = MapSourceMetadata(name: name, format: .mvt, minZoom: options.minZoom, maxZoom: options.maxZoom)
    }

    /// Tile z/x/y, MVT; nil outside the source's zooms or where no feature reaches.
    /// - Throws: `MapDataError` when a zoom cannot be cut (out of memory).
    /// - Complexity: the first tile of a zoom costs cutting the zoom (`MapTiler.tiles(atZoom:)`).
    public func tile(zoom z: Int, x: Int, y: Int) throws -> StoredTile? {
        guard (metadata.minZoom...metadata.maxZoom).contains(z) else { return nil }
        let id = PMTiles.tileID(zoom: z, x: x, y: y)
        if let found = zooms.withLock({ $0[z] }) { return Self.tile(id, in: found) }
        var cut = Zoom()
        for t in try tiler.tiles(atZoom: z) {
            let first = PMTiles.tileID(zoom: t.zoom, x: t.x, y: t.y)
            if t.runLength == 1 { cut.tiles[first] = t.data } else { cut.runs.append((first, t.runLength, t.data)) }
        }
        cut.runs.sort { $0.first < $1.first }
        zooms.withLock { $0[z] = cut }
        return Self.tile(id, in: cut)
    }

    private static func tile(_ id: UInt64, in zoom: Zoom) -> StoredTile? {
        if let bytes = zoom.tiles[id] { return StoredTile(bytes: bytes, gzipped: false) }
        // The last run starting at or before `id`, if it reaches it.
        var lo = 0, hi = zoom.runs.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if zoom.runs[mid].first <= id { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, case let run = zoom.runs[lo - 1], id < run.first + UInt64(run.count) else { return nil }
        return StoredTile(bytes: run.bytes, gzipped: false)
    }
}
