import MapRenderer

/// The map's ground geometry (areas, roads, boundaries: no labels) rendered once into raster
/// tiles and kept, so that a moving camera resamples pixels instead of rasterizing vector
/// geometry every frame (`TileCompositor`). Tiles are 256 pixels a side in the XYZ scheme of
/// 256-pixel tiles (the renderer's zoom, the camera's + 1), stored with a one-pixel gutter of
/// their neighbours' pixels so bilinear sampling never reads across tiles. At most `capacity`
/// tiles are kept; the least recently used go first. The owner empties the cache when what
/// tiles show changes (features, style, visibility).
final class RasterTileCache {
    /// A tile's address: zoom and column (wrapped into 0..<2^z) and row.
    struct Key: Hashable {
        var z: Int, x: Int, y: Int
    }

    /// Pixels of a tile's side, without the gutter.
    static let side = 256
    /// Pixels of a stored tile's side: the tile and a one-pixel gutter round it.
    static let storedSide = side + 2

    /// One rendered tile: `storedSide²` premultiplied RGBA pixels, one `UInt32` each (the bytes
    /// R, G, B, A in memory order), at a stable address for the compositor.
    final class Tile {
        let pixels: UnsafeMutableBufferPointer<UInt32>
        var lastUse: Int

        init(_ pixmap: Pixmap, use: Int) {
            let count = RasterTileCache.storedSide * RasterTileCache.storedSide
            let pixels = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: count)
            pixmap.bytes.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(pixels.baseAddress!).copyMemory(from: raw.baseAddress!, byteCount: count * 4)
            }
            self.pixels = pixels
            lastUse = use
        }

        deinit { pixels.deallocate() }
    }

    /// The most tiles kept (each `storedSide² × 4` bytes, 266 KB).
    var capacity: Int
    private var tiles: [Key: Tile] = [:]
    /// Counts frames: a tile's `lastUse` is the last frame that needed it.
    private var clock = 0

    init(capacity: Int) { self.capacity = capacity }

    /// Tiles held now.
    var count: Int { tiles.count }

    /// Drops every tile (what they show changed).
    func removeAll() { tiles.removeAll() }

    /// The tiles `keys` names, rendering the missing ones with `render` (a pixmap of
    /// `storedSide²`), for one frame. Nil when they are more than `capacity`: the frame cannot
    /// be composed from tiles. Tiles not needed by this frame are evicted, least recently used
    /// first, to stay within `capacity`.
    func tiles(_ keys: Set<Key>, render: (Key) -> Pixmap) -> [Key: Tile]? {
        guard keys.count <= capacity else { return nil }
        clock += 1
        var out: [Key: Tile] = [:]
        out.reserveCapacity(keys.count)
        let missing = keys.filter { tiles[$0] == nil }
        // Room first, so the cache never holds more than `capacity`.
        let excess = tiles.count + missing.count - capacity
        if excess > 0 {
            let old = tiles.filter { !keys.contains($0.key) }.sorted { $0.value.lastUse < $1.value.lastUse }
            for (key, _) in old.prefix(excess) { tiles[key] = nil }
        }
        for key in keys {
            if let tile = tiles[key] {
                tile.lastUse = clock
                out[key] = tile
            } else {
                let tile = Tile(render(key), use: clock)
                tiles[key] = tile
                out[key] = tile
            }
        }
        return out
    }
}
