import GeoBase
import Synchronization

/// Map features that come in pieces: a view asks for those of the world rectangle it shows, at
/// its tile zoom (the renderer's, 256-pixel tiles), as it moves. `TiledMapFeatures` reads a
/// vector tile `MapSource`; a live page's session and the tile renderer take any conformer.
public protocol MapFeatureSource {
    /// The features of the tiles over `bounds` at the source's tile zoom nearest below `zoom`.
    func features(in bounds: WorldRect, zoom: Double) throws -> [MapFeature]
}

/// A vector tile source (PMTiles, MBTiles, an XYZ folder: any `MapSource` of MVT) read back as
/// map features: the tiles covering a world rectangle at the zoom nearest below the view's (the
/// source's deepest zoom at most, its shallowest at least), decoded.
///
/// A tile that does not decode (bad gzip, gzip inflating past `VectorTile.defaultInflateLimit`,
/// bad MVT) is that tile's loss, not the map's: it counts as empty, and `onDamagedTile` hears of
/// it once per tile. Decoded tiles are kept in a cache of `cachedTiles` tiles, least recently
/// used dropped first: a moving view and a renderer drawing blocks with label margins revisit
/// the same tiles.
public final class TiledMapFeatures: MapFeatureSource, Sendable {
    public let source: any MapSource
    private let onDamagedTile: @Sendable (_ z: Int, _ x: Int, _ y: Int, _ error: any Error) -> Void
    private struct TileKey: Hashable { let z: Int, x: Int, y: Int }
    private let state: Mutex<(decoded: LeastRecentlyUsedCache<TileKey, [MapFeature]>, damaged: Set<TileKey>)>

    /// - Parameters:
    ///   - cachedTiles: decoded tiles kept (0: none).
    ///   - onDamagedTile: told of each tile that does not decode, once, with its error.
    public init(_ source: any MapSource, cachedTiles: Int = 0,
                onDamagedTile: @escaping @Sendable (_ z: Int, _ x: Int, _ y: Int, _ error: any Error) -> Void = { _, _, _, _ in }) {
        self.source = source
        self.onDamagedTile = onDamagedTile
        state = Mutex((LeastRecentlyUsedCache(capacity: max(cachedTiles, 0)), []))
    }

    /// The tiles over `bounds` at the source's zoom nearest below `zoom`, row by row, clamped
    /// to the world; none for an empty rectangle, one with a NaN side, or a NaN zoom.
    public func tiles(in bounds: WorldRect, zoom: Double) -> [(z: Int, x: Int, y: Int)] {
        guard bounds.minX <= bounds.maxX, bounds.minY <= bounds.maxY, !zoom.isNaN else { return [] }
        let m = source.metadata
        let z = Int(min(max(zoom, Double(m.minZoom)), Double(m.maxZoom)).rounded(.down))
        let n = 1 << z
        func tile(_ v: Double) -> Int { min(Int((min(max(v, 0), 1) * Double(n)).rounded(.down)), n - 1) }
        return (tile(bounds.minY)...tile(bounds.maxY)).flatMap { y in (tile(bounds.minX)...tile(bounds.maxX)).map { x in (z, x, y) } }
    }

    public func features(in bounds: WorldRect, zoom: Double) throws -> [MapFeature] {
        try featuresByTile(in: bounds, zoom: zoom).flatMap(\.features)
    }

    /// The features over `bounds` tile by tile, each with its tile's square (the rectangle
    /// outside which a polygon's outline is the tile's cut, not the polygon's edge).
    /// - Throws: the source's error when it cannot be read (a damaged archive's directory).
    public func featuresByTile(in bounds: WorldRect, zoom: Double) throws -> [(tile: WorldRect, features: [MapFeature])] {
        try tiles(in: bounds, zoom: zoom).map { (WorldRect(tileZoom: $0.z, x: $0.x, y: $0.y), try features(z: $0.z, x: $0.x, y: $0.y)) }
    }

    /// One tile's features: from the cache, or read and decoded; none when the source has no
    /// such tile or it does not decode.
    /// - Throws: the source's error when it cannot be read.
    public func features(z: Int, x: Int, y: Int) throws -> [MapFeature] {
        let key = TileKey(z: z, x: x, y: y)
        if let hit = state.withLock({ $0.decoded.value(forKey: key) }) { return hit }
        guard let stored = try source.tile(zoom: z, x: x, y: y) else { return [] }
        let features: [MapFeature]
        do {
            // The geometries as checking the tile decoded them: not decoded again.
            let (tile, geometries) = try VectorTile.decodedWithGeometries(stored: stored.bytes)
            features = zip(tile.layers, geometries).flatMap { $0.mapFeatures(zoom: z, x: x, y: y, geometries: $1) }
        } catch {
            if state.withLock({ $0.damaged.insert(key).inserted }) { onDamagedTile(z, x, y, error) }
            return []
        }
        state.withLock { _ = $0.decoded.insert(features, forKey: key) }
        return features
    }
}
