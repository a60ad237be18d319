import Foundation
import GeoTestSupport
import MapData
import SystemIO
import Testing
import TileArchives
import ZlibCompression

/// `geo tiles build` end to end: the archive read back by LocationKit's own readers (the outside
/// readers, PyPI `pmtiles` and `mapbox-vector-tile`, run in `../shared/checks/map-renderer`).
struct TilesCLITests {
    @Test(arguments: ["pmtiles", "mbtiles"])
    func build_monaco_writesAnArchiveWhoseTilesDecode(kind: String) async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("monaco.\(kind)").path
            let result = try await GeoProcess.geo(["tiles", "build", url.path, "-o", out, "--minzoom", "10", "--maxzoom", "14"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("zoom 14/14"), "a progress line per zoom: \(result.stderr)")
            var zooms = Set<Int>(), features = 0
            func check(_ z: Int, _ data: [UInt8]) throws {
                zooms.insert(z)
                let tile = try VectorTile(decoding: try Gzip.decompress(data, limit: VectorTile.defaultInflateLimit))
                for layer in tile.layers {
                    #expect(MapLayer(rawValue: layer.name) != nil, "layer \(layer.name)")
                    features += layer.features.count
                }
            }
            if kind == "pmtiles" {
                let file = try PMTilesFile(path: out)
                let reader = try PMTilesReader(file)
                #expect(reader.header.tileType == .mvt && reader.header.internalCompression == .gzip)
                for entry in try reader.entries() {
                    try check(try PMTiles.tile(id: entry.tileID).zoom, try reader.tileBytes(entry))
                }
                #expect(try reader.metadata().contains("\"vector_layers\""))
            } else {
                let reader = try MBTilesReader(path: out)
                try reader.forEachTile { z, _, _, data in try check(z, data) }
                #expect(try reader.metadata()["format"] == "pbf")
            }
            #expect(zooms == Set(10...14))
            #expect(features > 20_000)
        }
    }

    @Test(arguments: [
        (["--minzoom", "5", "--maxzoom", "3"], "--minzoom"),
        (["--maxzoom", "17"], "--maxzoom"),
        (["--minzoom", "-1"], "--minzoom"),
    ])
    func build_badZooms_areUsageErrors(options: [String], named: String) async throws {
        let result = try await GeoProcess.geo(["tiles", "build", "/nonexistent.osm.pbf", "-o", "/tmp/x.pmtiles"] + options)
        #expect(result.exit == .exited(64), "\(result.stderr)")
        #expect(result.stderr.contains(named))
    }

    @Test func build_unknownArchiveKindOrMissingInput_failsClearly() async throws {
        let kind = try await GeoProcess.geo(["tiles", "build", "/nonexistent.osm.pbf", "-o", "/tmp/x.zip"])
        #expect(kind.exit == .exited(64) && kind.stderr.contains(".pmtiles or .mbtiles"), "\(kind.stderr)")
        let missing = try await GeoProcess.geo(["tiles", "build", "/nonexistent.osm.pbf", "-o", "/tmp/x.pmtiles"])
        #expect(missing.exit == .exited(66), "\(missing.stderr)")
    }

    /// Node positions in scratch files (`--store-memory 0`) on a disk that fills up (the file
    /// size limit of `ulimit -f`, with `SIGXFSZ` ignored, so growing fails with `EFBIG`): a
    /// one-line error naming the scratch directory, nothing left behind, no archive.
    @Test func build_scratchDiskFull_failsWithNoSpace_andLeavesNothing() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            let out = dir.appendingPathComponent("monaco.pmtiles").path
            // 1 MiB (2048 blocks of 512 bytes in dash, 1024-byte blocks in bash: 1 or 2 MiB);
            // Monaco's 180 k nodes need 2.9 MB.
            let script = "trap '' XFSZ; ulimit -f 2048; exec \"$0\" \"$@\""
            let result = try await GeoProcess.run(URL(fileURLWithPath: "/bin/sh"),
                                                  ["-c", script, GeoProcess.geoExecutable.path, "tiles", "build", url.path, "-o", out, "--store-memory", "0"])
            #expect(result.status != 0 && result.status < 128, "an error exit, not a signal: \(result.stderr)")
            #expect(result.stderr.contains("scratch file") && result.stderr.contains(dir.path), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "no archive, no scratch files")
        }
    }

    /// `--store-memory 0` puts every node and way in scratch files: the same archive bytes.
    @Test func build_storeInScratchFiles_writesTheSameArchive() async throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        try await withTemporaryDirectory { dir in
            var archives: [Data] = []
            for memory in ["32", "0"] {
                let out = dir.appendingPathComponent("m\(memory).pmtiles").path
                let result = try await GeoProcess.geo(["tiles", "build", url.path, "-o", out, "--maxzoom", "12", "--store-memory", memory])
                #expect(result.status == 0, "\(result.stderr)")
                archives.append(try Data(contentsOf: URL(fileURLWithPath: out)))
            }
            #expect(archives[0].count > 100_000 && archives[1] == archives[0])
        }
    }
}
