import Testing
import GeoCore
import MapData

/// `FeatureMapSource`: features served as the tiles `MapTiler` cuts. Oracle: a tiler cutting
/// every tile of the zoom in one block (no runs, `filledSquares_asRuns_areTheTilesOfCuttingEveryTile`):
/// each z/x/y has those bytes, runs of filled squares included, and nil where nothing is.
@Test func featureMapSource_servesEveryTileAsCuttingEveryTileMakesIt() throws {
    let outer = [MapPoint(x: 0.1, y: 0.1), MapPoint(x: 0.9, y: 0.1), MapPoint(x: 0.9, y: 0.9), MapPoint(x: 0.1, y: 0.9), MapPoint(x: 0.1, y: 0.1)]
    let hole = [MapPoint(x: 0.25, y: 0.6), MapPoint(x: 0.4, y: 0.6), MapPoint(x: 0.4, y: 0.8), MapPoint(x: 0.25, y: 0.8), MapPoint(x: 0.25, y: 0.6)]
    let sea = MapFeature(layer: .water, id: 7, source: .way, geometry: .polygons([MapPolygon(exterior: outer, holes: [hole])]),
                         properties: [MapProperty("class", .string("ocean"))], minZoom: 0)
    let road = MapFeature(layer: .transportation, id: 8, source: .way, geometry: .lines([[MapPoint(x: 0.05, y: 0.3), MapPoint(x: 0.95, y: 0.32)]]),
                          properties: [MapProperty("class", .string("primary"))], minZoom: 0)
    let source = try FeatureMapSource(features: [sea, road], name: "t", options: TilingOptions(minZoom: 3, maxZoom: 6, blockSize: 1))
    #expect(source.metadata.minZoom == 3 && source.metadata.maxZoom == 6 && source.metadata.format == .mvt)
    for z in 3...6 {
        let whole = try MapTiler(features: [sea, road], options: TilingOptions(minZoom: z, maxZoom: z, blockSize: 1 << z))
        var drops = GeneralisationDrops()
        let every = try whole.tiles(in: whole.blocks(atZoom: z)[0], drops: &drops)
        var expected: [Int: [UInt8]] = [:]
        for t in every { expected[t.y << 16 | t.x] = t.data }
        var served = 0
        for y in 0..<(1 << z) {
            for x in 0..<(1 << z) {
                let tile = try source.tile(zoom: z, x: x, y: y)
                #expect(tile?.bytes == expected[y << 16 | x], "\(z)/\(x)/\(y)")
                #expect(tile?.gzipped != true)
                if tile != nil { served += 1 }
            }
        }
        #expect(served == every.count && served > 0, "zoom \(z)")
    }
    #expect(try source.tile(zoom: 7, x: 0, y: 0) == nil)
    #expect(try source.tile(zoom: 2, x: 0, y: 0) == nil)
}
