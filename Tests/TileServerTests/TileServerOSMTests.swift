import Foundation
import GeoTestSupport
import MapData
import OSMImport
import Testing
import TileArchives
@testable import TileServer

/// `geo serve monaco.osm.pbf`: an OpenStreetMap extract cut into vector tiles in memory on
/// start (`OSMTiling.memoryArchive` through `MapSources.open`), served like an archive on disk.
@Suite struct TileServerOSMTests {
    @Test(.onOwnThread) func osmExtract_tiledInMemoryOnStart_servesTheTilesGeoTilesBuildWrites() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            // The archive `geo tiles build` writes with its defaults (zooms 0…14), as the reference.
            let archive = dir.appendingPathComponent("reference.pmtiles").path
            _ = try OSMTiling.build(url.path, to: archive, options: TilingOptions(parallelism: 2, compressesTiles: true), temporaryDirectory: dir.path)
            let reader = try PMTilesReader(try PMTilesFile(path: archive))
            try await TileServerTests.withServer(TileServer.Options(data: [url.path])) { port async throws in
                let tileJSON = try await TileServerTests.get(port, "/monaco.json").json()
                #expect(tileJSON["tiles"] as? [String] == ["http://127.0.0.1:\(port)/monaco/{z}/{x}/{y}.pbf"], "served as `monaco`")
                // Zooms as the reference archive's header: up to 14; from the lowest with a tile
                // (Monaco's features are all under a pixel below some zoom).
                #expect(tileJSON["maxzoom"] as? Int == 14 && Int(reader.header.maxZoom) == 14)
                #expect(tileJSON["minzoom"] as? Int == Int(reader.header.minZoom))
                let layers = try #require(tileJSON["vector_layers"] as? [[String: Any]])
                #expect(layers.contains { $0["id"] as? String == "building" })
                // Every tile of every run, byte for byte (gzip as stored).
                let ids = try reader.entries().flatMap { e in (0..<UInt64(e.runLength)).map { e.tileID + $0 } }
                #expect(ids.count > 20, "Monaco at 0…14: \(ids.count) tiles")
                for id in ids {
                    let (z, x, y) = try PMTiles.tile(id: id)
                    let stored = try #require(try reader.tile(zoom: z, x: x, y: y))
                    let served = try await TileServerTests.get(port, "/monaco/\(z)/\(x)/\(y).pbf", ["Accept-Encoding: gzip"])
                    #expect(served.status == 200 && served.body == stored, "\(z)/\(x)/\(y)")
                }
                #expect(try await TileServerTests.get(port, "/monaco/15/0/0.pbf").status == 404, "past maxzoom 14")
                // The archive in memory is also served whole with byte ranges, as one on disk.
                let head = try await TileServerTests.get(port, "/monaco.pmtiles", ["Range: bytes=0-6"])
                #expect(head.status == 206 && head.text == "PMTiles")
            }
        }
    }

    @Test func damagedOSMExtract_refusedAtStartWithItsError() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("broken.osm.pbf").path
            try Data([0, 0, 0, 9, 1, 2, 3]).write(to: URL(fileURLWithPath: path))
            #expect(throws: OSMError.self) { try TileServer(TileServer.Options(data: [path]), log: nil, note: { _ in }) }
        }
    }
}
