import GeoBase
import GeoCore
import MapRenderer

/// The map's ground geometry (areas, roads, boundaries: no labels) rendered once into raster
/// tiles and kept, so that a moving camera resamples pixels instead of rasterizing vector
/// geometry every frame (`TileCompositor`). Tiles are 256 pixels a side in the XYZ scheme of
/// 256-pixel tiles (the renderer's zoom, the camera's + 1), stored with a one-pixel gutter of
/// their neighbours' pixels so bilinear sampling never reads across tiles. At most `capacity`
/// tiles are kept; the least recently used go first. The owner empties the cache when what
/// tiles show changes (features, style, visibility).
///
/// A frame whose tiles are missing draws them at once where nothing cached covers them (a pan
/// bringing new ground into view), and at most `budget` of those that other tiles still cover
/// (`standIns(for:)`): after a zoom crosses a tile zoom, or the world base's detail changes,
/// the old tiles keep showing, resampled, while the new ones are drawn a few per frame (as
/// MapLibre shows a tile's parent or children until the tile itself is ready), so no frame
/// draws every tile of the view at once.
final class RasterTileCache {
    /// A tile's address: zoom and column (wrapped into 0..<2^z) and row, and how much of the
    /// world base it shows (decided by the camera's zoom, not the tile's).
    struct Key: Hashable {
        var z: Int, x: Int, y: Int
        var base: WorldBase.Detail
    }

    /// Pixels of a tile's side, without the gutter.
    static let side = 256
    /// Pixels of a stored tile's side: the tile and a one-pixel gutter round it.
    static let storedSide = side + 2

    /// One rendered tile: `storedSide²` premultiplied RGBA pixels, one `UInt32` each (the bytes
    /// R, G, B, A in memory order), at a stable address for the compositor.
    final class Tile {
        let pixels: UnsafeMutableBufferPointer<UInt32>

        init(_ pixmap: Pixmap) {
            let count = RasterTileCache.storedSide * RasterTileCache.storedSide
            let pixels = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
            pixmap.bytes.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(pixels.baseAddress!).copyMemory(from: raw.baseAddress!, byteCount: count * 4)
            }
            self.pixels = pixels
        }

        deinit { pixels.deallocate() }
    }

    /// The most tiles kept (each `storedSide² × 4` bytes, 266 KB); setting it drops every tile.
    var capacity: Int {
        get { stored.capacity }
        set {
            stored = LeastRecentlyUsedCache(capacity: max(newValue, 0))
            pending = 0
        }
    }
    private var stored: LeastRecentlyUsedCache<Key, Tile>

    init(capacity: Int) { stored = LeastRecentlyUsedCache(capacity: max(capacity, 0)) }

    /// Tiles held now.
    var count: Int { stored.count }

    /// The tile held for `key`, leaving the recency order alone; nil when not held.
    func peek(_ key: Key) -> Tile? { stored.peekValue(forKey: key) }

    /// Keeps a tile drawn ahead of a frame that needs it (`storedSide²` pixels), as the most
    /// recently used; the least recently used goes when the cache is full.
    func insert(_ pixmap: Pixmap, for key: Key) { stored.insert(Tile(pixmap), forKey: key) }
    /// Tiles of the last frame shown through stand-ins, still to be drawn (none after a frame
    /// drawn directly: `frameDrawnDirectly()`).
    private(set) var pending = 0

    /// A frame was drawn without tiles: none of its tiles is pending.
    func frameDrawnDirectly() { pending = 0 }

    /// Drops every tile (what they show changed).
    func removeAll() {
        stored.removeAll()
        pending = 0
    }

    /// Tiles that show the ground of a missing `key`, in the order the compositor tries them:
    /// the same tile with another world-base detail, its parent and grandparent (coarser), then
    /// its four children (finer). A child stands in only for its quarter, so children count
    /// only when all four are held.
    static func standIns(for key: Key) -> [[Key]] {
        let others = [key.base] + [WorldBase.Detail.countriesAndCities, .countries, .none].filter { $0 != key.base }
        var out: [[Key]] = others.dropFirst().map { [Key(z: key.z, x: key.x, y: key.y, base: $0)] }
        for up in 1...2 where key.z - up >= 0 {
            out += others.map { [Key(z: key.z - up, x: key.x >> up, y: key.y >> up, base: $0)] }
        }
        if key.z < 24 {
            out += others.map { b in [(0, 0), (1, 0), (0, 1), (1, 1)].map { Key(z: key.z + 1, x: 2 * key.x + $0.0, y: 2 * key.y + $0.1, base: b) } }
        }
        return out
    }

    /// The tiles `keys` names for one frame, and the stand-ins for those not drawn yet.
    /// Missing tiles are drawn with `render` (a pixmap of `storedSide²`): all those no cached
    /// tile stands in for, and of the others at most `budget`, the nearest `centre` first
    /// (tile units at the keys' zoom). Nil when the keys are more than `capacity`: the frame
    /// cannot be composed from tiles. Tiles this frame does not use are evicted, least
    /// recently used first, to stay within `capacity`.
    func tiles(_ keys: Set<Key>, budget: Int, centre: (x: Double, y: Double), render: (Key) -> Pixmap) -> [Key: Tile]? {
        pending = 0
        guard keys.count <= capacity else { return nil }
        var out: [Key: Tile] = [:]
        out.reserveCapacity(keys.count)
        let missing = keys.filter { !stored.contains($0) }
        var draw: [Key] = [], deferred: [(key: Key, standIn: [Key])] = []
        for key in missing {
            if let standIn = Self.standIns(for: key).first(where: { $0.allSatisfy(stored.contains) }) {
                deferred.append((key, standIn))
            } else {
                draw.append(key)
            }
        }
        func distance(_ k: Key) -> Double {
            let dx = Double(k.x) + 0.5 - centre.x, dy = Double(k.y) + 0.5 - centre.y
            return dx * dx + dy * dy
        }
        deferred.sort { distance($0.key) < distance($1.key) }
        var standIns = Set(deferred.dropFirst(budget).flatMap(\.standIn))
        if keys.count + standIns.count > capacity {
            // No room to keep the old tiles beside the new: draw them all now.
            standIns = []
            draw += deferred.map(\.key)
            pending = 0
        } else {
            draw += deferred.prefix(budget).map(\.key)
            pending = max(deferred.count - budget, 0)
        }
        // The frame's tiles become the most recently used first, so the tiles drawn now (at most
        // `capacity` with them) push out only tiles this frame does not use.
        let used = keys.union(standIns)
        for key in used { _ = stored.value(forKey: key) }
        for key in draw { stored.insert(Tile(render(key)), forKey: key) }
        for key in used { out[key] = stored.peekValue(forKey: key) }
        return out
    }
}
