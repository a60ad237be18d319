import Foundation
import GeoCore
import GeoTestSupport
import MapData
import OSMImport
import Testing
import TileArchives

/// No file is the sample city, read whole; its view starts at the middle of its features' box,
/// within 0.02° of the city's centre (48° N 11° E, a ~3 km town around it).
@Test func noFile_isTheSampleCity_centredOnIt() throws {
    let map = try DrawnMapData.open(nil)
    #expect(map.archive == nil)
    #expect(map.wholeFeatures == (try SampleCity.generate().mapFeatures()))
    #expect(abs(map.center.latitude - SampleCity.center.latitude) < 0.02)
    #expect(abs(map.center.longitude - SampleCity.center.longitude) < 0.02)
}

/// An OpenStreetMap extract is read whole; Monaco's view starts inside the principality
/// (43.72…43.76° N, 7.40…7.44° E), and its features' box holds that centre.
@Test func osmExtract_isReadWhole_andCentredInside() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let map = try DrawnMapData.open(url.path)
    #expect(map.archive == nil)
    #expect(map.wholeFeatures.count == (try MapDataExtraction.read(url: url)).features.count)
    #expect((43.72...43.76).contains(map.center.latitude) && (7.40...7.44).contains(map.center.longitude), "\(map.center)")
    let bounds = try #require(map.bounds)
    #expect((bounds.south...bounds.north).contains(map.center.latitude) && (bounds.west...bounds.east).contains(map.center.longitude), "\(bounds)")
}

/// A tile archive is read by region; its view starts at the archive's own centre and it covers
/// its stated bounds (`sqlite3 world_cities.mbtiles "select * from metadata"`: centre -75.9375,
/// 38.788894; bounds -123.123590, -37.818085, 174.763027, 59.352706; to 1e-6°). Its zooms are
/// 0…6: the world is 16 tiles at zoom 2, and 4 096 at zoom 9, read at 6.
@Test func tileArchive_isReadByRegion_andCentredWhereItSays() throws {
    guard let url = try Fixtures.url("tiles/world_cities.mbtiles") else { return }
    let map = try DrawnMapData.open(url.path)
    let archive = try #require(map.archive)
    #expect(map.wholeFeatures.isEmpty)
    let bounds = try #require(map.bounds)
    #expect(abs(bounds.west - -123.123590) < 1e-6 && abs(bounds.south - -37.818085) < 1e-6, "\(bounds)")
    #expect(abs(bounds.east - 174.763027) < 1e-6 && abs(bounds.north - 59.352706) < 1e-6, "\(bounds)")
    #expect(abs(map.center.latitude - 38.788894) < 1e-6 && abs(map.center.longitude - -75.9375) < 1e-6, "\(map.center)")
    #expect(archive.tiles(in: .world, zoom: 2).count == 16)
    #expect(archive.tiles(in: .world, zoom: 9).count == 4096)
}

/// Another kind of file is no map data (said before it is read); a cut extract and an archive
/// that is no archive are damaged, named by their paths.
@Test func otherAndDamagedFiles_areTypedErrorsNamingThePath() throws {
    #expect { try DrawnMapData.open("/nonexistent/notes.txt") } throws: { error in
        guard case DrawnMapDataError.notMapData(let path) = error else { return false }
        return path == "/nonexistent/notes.txt"
    }
    guard let monaco = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    try withTemporaryDirectory { dir in
        let cut = dir.appendingPathComponent("cut.osm.pbf"), bad = dir.appendingPathComponent("bad.pmtiles")
        try Data(try Data(contentsOf: monaco).prefix(30_000)).write(to: cut)
        try Data("garbage".utf8).write(to: bad)
        for file in [cut, bad] {
            #expect { try DrawnMapData.open(file.path) } throws: { error in
                guard case DrawnMapDataError.damaged(let path, _) = error else { return false }
                return path == file.path && "\(error)".hasPrefix(file.path + ": ")
            }
        }
    }
}

/// The sample city's features as one vector source: named as asked, tiled in memory, with
/// a tile at zoom 14 where the city is (x 8692, y 5694: RasterTileFolderTests' slippy-map
/// figures) and none on the other side of the world.
@Test func features_asMapSource_areTiledInMemory() throws {
    let source = try DrawnMapData.features(try SampleCity.generate().mapFeatures()).mapSource(name: "city")
    #expect(source.metadata.name == "city")
    #expect(source.metadata.format == .mvt)
    #expect(try source.tile(zoom: 14, x: 8692, y: 5694) != nil)
    #expect(try source.tile(zoom: 14, x: 0, y: 0) == nil)
}
