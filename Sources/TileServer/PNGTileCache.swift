import GeoBase
import Synchronization

/// Raster tiles already drawn, as PNG bytes, kept up to a bound on their bytes: inserting past
/// the bound drops the least recently used tiles first (GeoBase's `LeastRecentlyUsedCache`).
/// Hits, misses and drops are counted for `/metrics`.
final class PNGTileCache: Sendable {
    /// A tile as drawn: which style, from which versions of the style file and of the tilesets
    /// (a replaced file makes new keys; its old tiles age out), where, at which pixel ratio.
    struct Key: Hashable, Sendable {
        var style: String
        /// `TileServer.contentHash` of the style file's bytes and the tilesets' `ReopeningMapSource.generation`s.
        var version: UInt64
        var z: Int, x: Int, y: Int
        var pixelRatio: Int
    }

    /// What `/metrics` reports of the cache.
    struct Statistics: Sendable, Equatable {
        var hits = 0, misses = 0, evictions = 0
        /// PNG bytes held now, and tiles.
        var bytes = 0, tiles = 0
    }

    private struct State {
        var tiles = LeastRecentlyUsedCache<Key, [UInt8]>(capacity: Int.max)
        var statistics = Statistics()
    }

    /// The most PNG bytes held.
    let byteLimit: Int
    private let state = Mutex(State())

    /// An empty cache of at most `byteLimit` bytes of PNG (0 keeps nothing).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The tile's PNG, counted as a hit; nil (a miss) when it is not held.
    func png(for key: Key) -> [UInt8]? {
        state.withLock { s in
            let png = s.tiles.value(forKey: key)
            if png == nil { s.statistics.misses += 1 } else { s.statistics.hits += 1 }
            return png
        }
    }

    /// Holds `png` for `key` as the most recently used tile, then drops the least recently used
    /// until the bytes held are within the bound (a tile larger than the bound is not kept).
    func insert(_ png: [UInt8], for key: Key) {
        state.withLock { s in
            if let old = s.tiles.removeValue(forKey: key) { s.statistics.bytes -= old.count }
            s.tiles.insert(png, forKey: key)
            s.statistics.bytes += png.count
            while s.statistics.bytes > byteLimit, let dropped = s.tiles.removeLeastRecentlyUsed() {
                s.statistics.bytes -= dropped.value.count
                s.statistics.evictions += 1
            }
            s.statistics.tiles = s.tiles.count
        }
    }

    var statistics: Statistics { state.withLock { $0.statistics } }
}
