import Foundation
import Testing
import GeoTestSupport
import MapData
import OSMImport
import TileArchives

/// Monaco cut from all features in memory (`MapTiler`) and from a scratch file
/// (`MapFeaturePartition`) with a 4 KiB write buffer, so every bucket is written in many chunks:
/// the same tiles, byte for byte, at every zoom, and the same drops. Blocks of 4 tiles (buckets
/// of zoom 12) put Monaco's features in many buckets, many of them listed as overlapping.
@Test(.onOwnThread) func monaco_partitionedThroughAScratchFile_cutsTheSameTilesAsInMemory() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let options = TilingOptions(minZoom: 0, maxZoom: 14, parallelism: 2, blockSize: 4)
    let set = try MapDataExtraction.read(url: url)
    let tiler = try MapTiler(features: set.features, options: options)
    try withTemporaryDirectory { dir in
        let scratch = try FeatureSpillFile(nextTo: dir.appendingPathComponent("m.pmtiles").path, temporaryDirectory: dir.path)
        defer { scratch.discard() }
        var partition = try MapFeaturePartition(options: options, storage: scratch, bufferLimit: 4096)
        let statistics = try MapDataExtraction.read(url: url) { try partition.add($0) }
        try partition.finishWriting()
        #expect(statistics == set.statistics)
        #expect(partition.count == set.features.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [".m.pmtiles.features"])
        var tiles = 0
        for z in 0...14 {
            var inMemoryDrops = GeneralisationDrops(), partitionDrops = GeneralisationDrops()
            var inMemory: [EncodedTile] = [], partitioned: [EncodedTile] = []
            for block in tiler.blocks(atZoom: z) { inMemory += try tiler.tiles(in: block, drops: &inMemoryDrops) }
            for block in partition.blocks(atZoom: z) { partitioned += try partition.tiles(in: block, drops: &partitionDrops) }
            #expect(partitioned.count == inMemory.count, "zoom \(z)")
            #expect(partitioned == inMemory, "zoom \(z): the same tiles in the same order")
            #expect(partitionDrops == inMemoryDrops, "zoom \(z)")
            tiles += inMemory.count
        }
        #expect(tiles > 20, "Monaco with its sea covers dozens of tiles up to zoom 14")
    }
}
