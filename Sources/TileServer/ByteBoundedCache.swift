import GeoBase
import Synchronization

/// Bytes made on request and kept up to a bound on their count — raster tiles drawn as PNG
/// (`RasterTileKey`), glyph ranges made from local fonts (`LocalGlyphs`): inserting past the
/// bound drops the least recently used entries first (GeoBase's `LeastRecentlyUsedCache`).
/// Hits, misses and drops are counted for `/metrics`.
final class ByteBoundedCache<Key: Hashable & Sendable>: Sendable {
    /// What `/metrics` reports of the cache.
    struct Statistics: Sendable, Equatable {
        var hits = 0, misses = 0, evictions = 0
        /// Bytes held now, and entries.
        var bytes = 0, entries = 0
    }

    private struct State {
        var entries = LeastRecentlyUsedCache<Key, [UInt8]>(capacity: Int.max)
        var statistics = Statistics()
    }

    /// The most bytes held.
    let byteLimit: Int
    private let state = Mutex(State())

    /// An empty cache of at most `byteLimit` bytes (0 keeps nothing).
    init(byteLimit: Int) {
        self.byteLimit = max(0, byteLimit)
    }

    /// The bytes held for `key`, counted as a hit; nil (a miss) when none are.
    func bytes(for key: Key) -> [UInt8]? {
        state.withLock { s in
            let bytes = s.entries.value(forKey: key)
            if bytes == nil { s.statistics.misses += 1 } else { s.statistics.hits += 1 }
            return bytes
        }
    }

    /// Holds `bytes` for `key` as the most recently used entry, then drops the least recently
    /// used until the bytes held are within the bound (an entry larger than the bound is not kept).
    func insert(_ bytes: [UInt8], for key: Key) {
        state.withLock { s in
            if let old = s.entries.removeValue(forKey: key) { s.statistics.bytes -= old.count }
            s.entries.insert(bytes, forKey: key)
            s.statistics.bytes += bytes.count
            while s.statistics.bytes > byteLimit, let dropped = s.entries.removeLeastRecentlyUsed() {
                s.statistics.bytes -= dropped.value.count
                s.statistics.evictions += 1
            }
            s.statistics.entries = s.entries.count
        }
    }

    var statistics: Statistics { state.withLock { $0.statistics } }
}
