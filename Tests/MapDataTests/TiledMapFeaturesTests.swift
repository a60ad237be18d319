import GeoCore
import MapData
import Synchronization
import Testing

/// Two z14 tiles side by side: 8192/8192 holds a POI, 8193/8192 holds bytes that are no tile.
/// Counts every read, to see the cache.
private final class TwoTiles: MapSource {
    let metadata = MapSourceMetadata(name: "two", format: .mvt, minZoom: 14, maxZoom: 14)
    let good: [UInt8]
    let reads = Mutex(0)

    init() throws {
        let poi = MapPoint(x: (8192.5) / 16_384, y: (8192.5) / 16_384)
        let feature = MapFeature(layer: .poi, id: 7, source: .node, geometry: .points([poi]), properties: [MapProperty("class", .string("cafe"))], minZoom: 0)
        let tiles = try MapTiler(features: [feature], options: TilingOptions(minZoom: 14, maxZoom: 14)).tiles(atZoom: 14)
        good = try #require(tiles.first { $0.x == 8192 && $0.y == 8192 }).data
    }

    func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile? {
        reads.withLock { $0 += 1 }
        switch (zoom, x, y) {
        case (14, 8192, 8192): return StoredTile(bytes: good, gzipped: false)
        case (14, 8193, 8192): return StoredTile(bytes: [0x1F, 0x8B, 0x08, 0x00, 0xFF], gzipped: true)
        default: return nil
        }
    }
}

/// Just inside both tiles' squares (an edge shared with a third tile would take that one too).
private let bothTiles = WorldRect(tileZoom: 14, x: 8192, y: 8192).union(WorldRect(tileZoom: 14, x: 8193, y: 8192)).expanded(dx: -1e-9, dy: -1e-9)

/// Just inside the first tile's square.
private let firstTile = WorldRect(tileZoom: 14, x: 8192, y: 8192).expanded(dx: -1e-9, dy: -1e-9)

/// A damaged tile is that tile's loss: the good tile's POI comes back, and the damage is told
/// once however often the view asks.
@Test func damagedTile_isReportedOnce_andTheRestIsRead() throws {
    let source = try TwoTiles()
    let damaged = Mutex<[String]>([])
    let features = TiledMapFeatures(source) { z, x, y, _ in damaged.withLock { $0.append("\(z)/\(x)/\(y)") } }
    for _ in 0..<3 {
        let found = try features.features(in: bothTiles, zoom: 14.6)
        #expect(found.map(\.id) == [7])
    }
    #expect(damaged.withLock { $0 } == ["14/8193/8192"])
}

/// Zooms outside the source's clamp to its own (14 here), and each tile keeps its square.
@Test func tilesByRegion_clampToTheSourcesZooms_andCarryTheirSquares() throws {
    let features = TiledMapFeatures(try TwoTiles())
    #expect(features.tiles(in: bothTiles, zoom: 17).map { "\($0.z)/\($0.x)/\($0.y)" } == ["14/8192/8192", "14/8193/8192"])
    let byTile = try features.featuresByTile(in: bothTiles, zoom: 9)
    #expect(byTile.map(\.tile) == [WorldRect(tileZoom: 14, x: 8192, y: 8192), WorldRect(tileZoom: 14, x: 8193, y: 8192)])
    #expect(byTile.map(\.features.count) == [1, 0])
}

/// A view with nothing in it (an empty rectangle, a NaN side or zoom) asks for no tile; one past
/// the world's edge or at an infinite zoom is clamped. Before, each trapped.
@Test func degenerateViews_askForNoTileOrAreClamped() throws {
    let features = TiledMapFeatures(try TwoTiles())
    #expect(features.tiles(in: .empty, zoom: 14).isEmpty)
    #expect(features.tiles(in: WorldRect(minX: .nan, minY: 0, maxX: 1, maxY: 1), zoom: 14).isEmpty)
    #expect(features.tiles(in: firstTile, zoom: .nan).isEmpty)
    #expect(try features.features(in: .empty, zoom: 14).isEmpty)
    #expect(features.tiles(in: firstTile, zoom: .infinity).map { "\($0.z)/\($0.x)/\($0.y)" } == ["14/8192/8192"])
    let beyond = WorldRect(minX: 1.5, minY: -.infinity, maxX: .infinity, maxY: -2)
    #expect(features.tiles(in: beyond, zoom: 14).map { "\($0.z)/\($0.x)/\($0.y)" } == ["14/16383/0"])
}

/// With a cache, a tile read once is not read again while it is held; without, every view reads.
@Test func decodedTiles_areCachedUpToTheirCount() throws {
    let source = try TwoTiles()
    let cached = TiledMapFeatures(source, cachedTiles: 2)
    for _ in 0..<5 { _ = try cached.features(in: firstTile, zoom: 14) }
    #expect(source.reads.withLock { $0 } == 1)
    let uncached = TiledMapFeatures(try TwoTiles())
    for _ in 0..<5 { _ = try uncached.features(in: firstTile, zoom: 14) }
    #expect((uncached.source as! TwoTiles).reads.withLock { $0 } == 5)
}
