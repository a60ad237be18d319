import GeoCore
import MapData
import MapRenderer
import Testing

/// One z14 vector tile, 8192/8192 (the tile whose north-west corner is 0°, 0°), holding one
/// café a quarter of the tile in from that corner; every other tile is empty.
private struct OneTile: MapSource {
    let metadata = MapSourceMetadata(name: "one", format: .mvt, minZoom: 14, maxZoom: 14)
    let bytes: [UInt8]
    static let cafe = MapPoint(x: 8192.25 / 16_384, y: 8192.25 / 16_384)

    init() throws {
        let feature = MapFeature(layer: .poi, id: 7, source: .node, geometry: .points([Self.cafe]),
                                 properties: [MapProperty("class", .string("cafe"))], minZoom: 0)
        let tiles = try MapTiler(features: [feature], options: TilingOptions(minZoom: 14, maxZoom: 14)).tiles(atZoom: 14)
        bytes = try #require(tiles.first { $0.x == 8192 && $0.y == 8192 }).data
    }

    func tile(zoom: Int, x: Int, y: Int) throws -> StoredTile? {
        (zoom, x, y) == (14, 8192, 8192) ? StoredTile(bytes: bytes, gzipped: false) : nil
    }
}

/// `MapFeatureIndex(_:visibleIn:)`: the tiles a view shows are read, those it does not show are
/// not; the café (1/4 of a z14 tile, about 600 m, from 0°, 0°) is in a 256-pixel view on it at
/// zoom 16 and not in one 5 km east of it.
@Test func featureIndex_visibleIn_readsTheTilesTheViewShows() throws {
    let features = TiledMapFeatures(try OneTile())
    let onCafe = try MercatorViewport(center: OneTile.cafe.coordinate, zoom: 16, width: 256, height: 256)
    let index = try MapFeatureIndex(features, visibleIn: onCafe)
    #expect(index.features.count == 1)
    let point = try #require(index.features.first.flatMap { f -> MapPoint? in if case .points(let p) = f.geometry { p.first } else { nil } })
    // MVT keeps 4096 units a tile: the point comes back within half a unit, 1/8192 of a tile.
    #expect(abs(point.x - OneTile.cafe.x) <= 0.5 / 4096 / 16_384 && abs(point.y - OneTile.cafe.y) <= 0.5 / 4096 / 16_384)
    let east = try MercatorViewport(center: OneTile.cafe.coordinate.coordinate(at: .kilometers(5), facing: .degrees(90)), zoom: 16, width: 256, height: 256)
    #expect(try MapFeatureIndex(features, visibleIn: east).features.isEmpty)
}
