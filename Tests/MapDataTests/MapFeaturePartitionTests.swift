import Foundation
import GeoCore
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
        let scratchFiles = try FileManager.default.contentsOfDirectory(atPath: dir.path)
        #expect(scratchFiles.count == 1 && scratchFiles[0].hasPrefix(".geo-tiles-") && scratchFiles[0].hasSuffix(".features"), "\(scratchFiles)")
        var tiles = 0
        for z in 0...14 {
            var inMemoryDrops = GeneralisationDrops(), partitionDrops = GeneralisationDrops()
            var inMemory: [EncodedTile] = [], partitioned: [EncodedTile] = []
            for block in tiler.blocks(atZoom: z) { inMemory += try tiler.tiles(in: block, drops: &inMemoryDrops) }
            for block in try partition.blocks(atZoom: z) { try partition.cutTiles(of: block, drops: &partitionDrops) { partitioned += $1 } }
            #expect(partitioned.count == inMemory.count, "zoom \(z)")
            #expect(partitioned == inMemory, "zoom \(z): the same tiles in the same order")
            #expect(partitionDrops == inMemoryDrops, "zoom \(z)")
            tiles += inMemory.count
        }
        #expect(tiles > 20, "Monaco with its sea covers dozens of tiles up to zoom 14")
    }
}

/// The smallest budgets the partition takes — a block budget of one byte (so every block of
/// 16 tiles is split into quarters down to single tiles, each written anew), a 4 KiB write
/// buffer and batches of one feature — and a budget of 64 KiB (parts of every size) cut Monaco into the tiles and
/// drops of the default options (blocks of 16 tiles cut at once), byte for byte, at every zoom;
/// every part cut at once holds one tile, or no more record bytes than the budget besides those
/// of features that reach all of it.
@Test(.onOwnThread, arguments: [(blockSize: 16, blockBudget: 1), (blockSize: 16, blockBudget: 64 << 10)])
func monaco_cutWithTheSmallestBudgets_givesTheTilesOfTheDefaults(blockSize: Int, blockBudget: Int) throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let defaults = TilingOptions(minZoom: 0, maxZoom: 14, parallelism: 2)
    var smallest = defaults
    smallest.blockSize = blockSize
    let set = try MapDataExtraction.read(url: url)
    let tiler = try MapTiler(features: set.features, options: defaults)
    try withTemporaryDirectory { dir in
        let scratch = try FeatureSpillFile(nextTo: dir.appendingPathComponent("m.pmtiles").path, temporaryDirectory: dir.path)
        defer { scratch.discard() }
        var partition = try MapFeaturePartition(options: smallest, storage: scratch, bufferLimit: 4096, batchLimit: 1, blockBudget: blockBudget)
        for feature in set.features { try partition.add([feature]) }
        try partition.finishWriting()
        var splits = 0
        for z in 0...14 {
            var expectedDrops = GeneralisationDrops(), drops = GeneralisationDrops()
            var expected: [EncodedTile] = [], tiles: [EncodedTile] = []
            for block in tiler.blocks(atZoom: z) { expected += try tiler.tiles(in: block, drops: &expectedDrops) }
            let blocks = try partition.blocks(atZoom: z)
            #expect(blocks.allSatisfy { $0.columns.count == smallest.blockSide(atZoom: z) && $0.rows.count == $0.columns.count }, "zoom \(z)")
            for block in blocks {
                try partition.cutTiles(of: block, drops: &drops) { part, partTiles in
                    #expect(part.columns.count == 1 || part.bytes - part.spanningBytes <= blockBudget,
                            "zoom \(z): \(part.bytes) bytes (\(part.spanningBytes) of features over all of it) over \(part.columns.count) columns")
                    #expect(part.columns.clamped(to: block.columns) == part.columns && part.rows.clamped(to: block.rows) == part.rows)
                    if part.columns != block.columns { splits += 1 }
                    tiles += partTiles
                }
            }
            #expect(tiles.count == expected.count && tiles == expected, "zoom \(z): the same tiles in the same order")
            #expect(drops == expectedDrops, "zoom \(z)")
        }
        #expect(splits > 0, "blocks of 16 tiles over the budget were cut in parts")
    }
}

/// A block of any zoom covers the ground of one block of the highest zoom, or one tile.
@Test func blockSide_halvesPerZoomBelowTheHighest_downToOneTile() {
    let options = TilingOptions(minZoom: 0, maxZoom: 14, blockSize: 16)
    #expect((0...14).map { options.blockSide(atZoom: $0) } == [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 4, 8, 16])
    // Fewer tiles in the world than a block holds: the block is the world.
    let small = TilingOptions(minZoom: 0, maxZoom: 2, blockSize: 16)
    #expect((0...2).map { small.blockSide(atZoom: $0) } == [1, 2, 4])
}

/// A wood around the whole ground of a zoom-14 block (20 000 points, 320 kB of records) and 64
/// cafés in it, with a block budget of 16 KiB: the block is split once, into quarters the wood
/// reaches all of, and each quarter is cut whole (no smaller part makes the wood smaller), into
/// the tiles `MapTiler` cuts from all features at once.
@Test func featureOverAWholeBlock_isNotSplitDownToSingleTiles() throws {
    let options = TilingOptions(minZoom: 14, maxZoom: 14)
    let center = MapPoint(x: 530.5 / 1024, y: 370.5 / 1024), radius = 0.75 / 1024 // a zoom 10 tile: one block of zoom 14
    let ring = (0...20_000).map { i in
        let a = Double(i % 20_000) / 20_000 * 2 * Double.pi
        return MapPoint(x: center.x + radius * cos(a), y: center.y + radius * sin(a))
    }
    var features = [MapFeature(layer: .landcover, id: 1, source: .way, geometry: .polygons([MapPolygon(exterior: ring)]),
                               properties: [MapProperty("class", .string("wood"))], minZoom: 0)]
    for i in 0..<64 {
        let p = MapPoint(x: (530 + (Double(i % 8) + 0.5) / 8) / 1024, y: (370 + (Double(i / 8) + 0.5) / 8) / 1024)
        features.append(MapFeature(layer: .poi, id: Int64(i + 2), source: .node, geometry: .points([p]),
                                   properties: [MapProperty("class", .string("cafe"))], minZoom: 14))
    }
    let tiler = try MapTiler(features: features, options: options)
    try withTemporaryDirectory { dir in
        let scratch = try FeatureSpillFile(nextTo: dir.appendingPathComponent("w.pmtiles").path, temporaryDirectory: dir.path)
        defer { scratch.discard() }
        var partition = try MapFeaturePartition(options: options, storage: scratch, blockBudget: 16 << 10)
        try partition.add(features)
        try partition.finishWriting()
        // The block of the zoom 10 tile the wood is in (its buffered box reaches the neighbours too).
        let block = try #require(try partition.blocks(atZoom: 14).first { $0.columns.lowerBound == 530 * 16 && $0.rows.lowerBound == 370 * 16 })
        let expectedBlock = try #require(tiler.blocks(atZoom: 14).first { $0.columns == block.columns && $0.rows == block.rows })
        #expect(block.bytes > 320_000)
        var parts: [PartitionBlock] = [], tiles: [EncodedTile] = [], drops = GeneralisationDrops(), expectedDrops = GeneralisationDrops()
        try partition.cutTiles(of: block, drops: &drops) { part, partTiles in
            parts.append(part)
            tiles += partTiles
        }
        #expect(parts.count == 4 && parts.allSatisfy { $0.columns.count == 8 && $0.rows.count == 8 }, "\(parts.map(\.columns))")
        #expect(parts.allSatisfy { $0.spanningBytes > 320_000 && $0.bytes - $0.spanningBytes <= 16 << 10 })
        let expected = try tiler.tiles(in: expectedBlock, drops: &expectedDrops)
        #expect(tiles.count == 256, "the wood covers every tile of the block")
        #expect(tiles.count == expected.count && tiles == expected, "the tiles of the whole block, in tile-id order")
        #expect(drops == expectedDrops)
    }
}
