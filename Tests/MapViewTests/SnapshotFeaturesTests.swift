import GeoCore
import MapData
import MapRenderer
import MapView
import Testing

/// `MapFeatureIndex(drawing:or:around:…)`, the features `geo snapshot` draws: of an archive,
/// only the tiles its view shows; without one, every feature read whole. Two cafés 5 km apart
/// on the equator, tiled at z14 (tiles about 2.4 km wide): a 256-pixel view at renderer zoom 16
/// (about 611 m across) on one shows that one alone, also turned by 45°.
@Test func snapshotFeatures_archive_readsTheViewsTiles_wholeFeaturesAreAll() throws {
    let west = try Coordinate(latitude: -0.01, longitude: 0.01)
    let east = west.coordinate(at: .kilometers(5), facing: .degrees(90))
    func cafe(_ id: Int64, _ c: Coordinate) -> MapFeature {
        MapFeature(layer: .poi, id: id, source: .node, geometry: .points([MapPoint(c)]), properties: [MapProperty("class", .string("cafe"))], minZoom: 0)
    }
    let features = [cafe(1, west), cafe(2, east)]
    let archive = TiledMapFeatures(try FeatureMapSource(features: features, name: "two cafés", options: TilingOptions(minZoom: 14, maxZoom: 14)))
    func ids(_ archive: TiledMapFeatures?, around centre: Coordinate, orientation: Double = 0) throws -> [Int64] {
        try MapFeatureIndex(drawing: archive, or: archive == nil ? features : [], around: centre, zoom: 16, orientation: orientation,
                            width: 256, height: 256).features.map(\.id)
    }
    #expect(try ids(archive, around: west) == [1])
    #expect(try ids(archive, around: east) == [2])
    #expect(try ids(archive, around: west, orientation: 45) == [1])
    // Read whole: both, wherever the view is.
    #expect(try ids(nil, around: west) == [1, 2])
    #expect(throws: RenderError.self) {
        try MapFeatureIndex(drawing: archive, or: [], around: west, zoom: 25, orientation: 0, width: 256, height: 256)
    }
}
