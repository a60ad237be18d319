import Foundation
import GeoCore
import GeoTestSupport
import MapData
import MapRenderer
import Testing
import TileArchives
@testable import TileServer

/// Raster tiles drawn by 4 × 4 metatiles into a byte-bounded LRU cache, and its `/metrics`.
@Suite struct ByteBoundedCacheTests {
    @Test func cache_dropsLeastRecentlyUsedPastItsBytes() {
        let cache = ByteBoundedCache<RasterTileKey>(byteLimit: 350)
        func key(_ x: Int) -> RasterTileKey { .init(style: "s", version: 1, z: 5, x: x, y: 0, pixelRatio: 1) }
        for x in 0..<3 { cache.insert([UInt8](repeating: UInt8(x), count: 100), for: key(x)) }
        #expect(cache.bytes(for: key(0)) == [UInt8](repeating: 0, count: 100), "a hit; tile 0 is now the most recently used")
        for x in 3..<10 { cache.insert([UInt8](repeating: UInt8(x), count: 100), for: key(x)) }
        let s = cache.statistics
        // 350 bytes hold three 100-byte tiles: 10 inserted, 7 dropped, the last three kept.
        #expect(s.bytes == 300 && s.entries == 3 && s.evictions == 7 && s.hits == 1 && s.misses == 0)
        #expect(cache.bytes(for: key(9)) != nil && cache.bytes(for: key(7)) != nil && cache.bytes(for: key(0)) == nil)
        cache.insert([UInt8](repeating: 1, count: 400), for: key(11))
        #expect(cache.statistics.bytes <= 350 && cache.bytes(for: key(11)) == nil, "a tile over the bound is not kept")
    }

    /// The value of one Prometheus sample line `name value`.
    static func sample(_ metrics: String, _ name: String) throws -> Int {
        let line = try #require(metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }, "no \(name)")
        return try #require(Int(line.split(separator: " ")[1]))
    }

    @Test func rasterTiles_drawnByMetatile_secondRequestIsAHit_andTheBoundHolds() async throws {
        try await withTemporaryDirectory { dir in
            let (path, stylePath) = try TileServerTests.parkArchiveAndStyle(in: dir, maxZoom: 3)
            var blockBytes = 0
            try await TileServerTests.withServer(TileServer.Options(data: [path], styles: [stylePath])) { port async throws in
                let first = try await TileServerTests.get(port, "/styles/parks-style/3/2/2.png")
                var m = try await TileServerTests.get(port, "/metrics").text
                // Tile 3/2/2 lies in block columns 0…3, rows 0…3 of zoom 3: 16 tiles drawn at once.
                #expect(try Self.sample(m, "tileserver_raster_cache_misses_total") == 1 && Self.sample(m, "tileserver_raster_cache_hits_total") == 0)
                #expect(try Self.sample(m, "tileserver_raster_cache_tiles") == 16)
                blockBytes = try Self.sample(m, "tileserver_raster_cache_bytes")
                let again = try await TileServerTests.get(port, "/styles/parks-style/3/2/2.png")
                #expect(again.status == 200 && again.body == first.body, "the cached tile is the one drawn")
                let neighbour = try await TileServerTests.get(port, "/styles/parks-style/3/0/3.png")
                m = try await TileServerTests.get(port, "/metrics").text
                #expect(try Self.sample(m, "tileserver_raster_cache_hits_total") == 2 && Self.sample(m, "tileserver_raster_cache_misses_total") == 1)
                // The block's tile 3/0/3 (67°…85° S, 180°…135° W) is outside the park: red.
                let red = try PNG.decode(neighbour.body).color(x: 128, y: 128)
                #expect(red.red > 230 && red.blue < 25, "\(red)")
                let inside = try PNG.decode(first.body).color(x: 10, y: 10)
                #expect(inside.blue > 230 && inside.red < 25, "3/2/2 is inside the park: \(inside)")
                // Another block at pixel ratio 2: 16 more tiles, cached apart from the 1x ones.
                #expect(try await TileServerTests.get(port, "/styles/parks-style/3/4/4@2x.png").status == 200)
                m = try await TileServerTests.get(port, "/metrics").text
                #expect(try Self.sample(m, "tileserver_raster_cache_tiles") == 32)
            }
            // Half the block's bytes: the block's tiles cannot all stay.
            let limit = blockBytes / 2
            try await TileServerTests.withServer(TileServer.Options(data: [path], styles: [stylePath], rasterCacheBytes: limit)) { port async throws in
                #expect(try await TileServerTests.get(port, "/styles/parks-style/3/2/2.png").status == 200)
                let m = try await TileServerTests.get(port, "/metrics").text
                #expect(try Self.sample(m, "tileserver_raster_cache_bytes") <= limit)
                #expect(try Self.sample(m, "tileserver_raster_cache_evictions_total") >= 1)
                // The last tile cut (3/3/3) was inserted last: it stayed.
                _ = try await TileServerTests.get(port, "/styles/parks-style/3/3/3.png")
                #expect(try Self.sample(try await TileServerTests.get(port, "/metrics").text, "tileserver_raster_cache_hits_total") == 1)
            }
        }
    }
}
