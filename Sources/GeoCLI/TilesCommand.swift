import ArgumentParser
import Foundation
import GeoCore
import MapData
import OSMImport
import SystemIO
import TileArchives

/// `geo tiles`: vector tiles from OpenStreetMap data.
struct TilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tiles",
        abstract: "Vector tiles (MVT 2.1 in PMTiles v3 or MBTiles 1.3) from OpenStreetMap data.",
        subcommands: [Build.self, TilesRenderCommand.self]
    )

    /// `geo tiles build IN.osm.pbf -o OUT.pmtiles|OUT.mbtiles [--minzoom 0] [--maxzoom 14]`.
    struct Build: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "build",
            abstract: "Cut an OpenStreetMap extract (.osm.pbf, .osm, .osm.gz) into vector tiles in the LocationKit layer schema.",
            discussion: "The archive kind follows the output's extension: .pmtiles (PMTiles v3, gzip directories and tiles) or .mbtiles (MBTiles 1.3). A progress line per zoom level goes to standard error."
        )

        @Argument(help: "The OSM file to read.")
        var input: String

        @Option(name: .shortAndLong, help: "The archive to write: .pmtiles or .mbtiles.")
        var output: String

        @Option(name: .customLong("minzoom"), help: "Lowest zoom level, \(OptionRanges.tileZoom).")
        var minZoom = 0

        @Option(name: .customLong("maxzoom"), help: "Highest zoom level, \(OptionRanges.tileZoom).")
        var maxZoom = 14

        @Option(name: .customLong("store-memory"),
                help: "MiB of node positions (16 bytes a node) and of way node lists kept in memory before each moves to a memory-mapped scratch file next to the output, \(OptionRanges.storeMemory).")
        var storeMemory = MapElementStorage.defaultMemoryLimit >> 20

        func validate() throws {
            try OptionRanges.tileZoom.check(minZoom, option: "--minzoom")
            try OptionRanges.tileZoom.check(maxZoom, option: "--maxzoom")
            try OptionRanges.storeMemory.check(storeMemory, option: "--store-memory")
            guard minZoom <= maxZoom else { throw ValidationError("--minzoom \(minZoom) is above --maxzoom \(maxZoom)") }
            guard TileArchiveKind(path: output) != nil else { throw ValidationError("-o \(output): the name must end in .pmtiles or .mbtiles") }
        }

        func run() throws {
            let clock = ContinuousClock()
            let start = clock.now
            try CommandLineFiles.checkInput(input)
            var err = StandardError()
            let options = TilingOptions(minZoom: minZoom, maxZoom: maxZoom,
                                        parallelism: ProcessInfo.processInfo.activeProcessorCount, compressesTiles: true)
            // Features go to a scratch file as they are made, bucketed by place; zooms are then
            // cut block by block from it (MapFeaturePartition: a block is at most 16 × 16 tiles of
            // zoom maxZoom's ground, or one tile below, split into quarters while over 4 MiB of
            // features; its features are read back in batches and simplified and clipped before
            // the next batch), so memory follows the densest tile's output, not the extract. Node positions and way node lists move to memory-mapped
            // scratch files beside it past --store-memory (MapElementStorage).
            let scratch = try FeatureSpillFile(nextTo: output, temporaryDirectory: ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp")
            defer { scratch.discard() }
            var partition = try MapFeaturePartition(options: options, storage: scratch)
            let storage = MapElementStorage.scratchFiles(in: scratch.directory, memoryLimit: storeMemory << 20)
            let s: MapExtractionStatistics
            do { s = try MapDataExtraction.read(url: URL(fileURLWithPath: input), storage: storage) { try partition.add($0) } } catch let error as OSMError {
                throw CommandLineFileError.damaged("tiles build", input, error)
            } catch let error as MapDataError where error.code == .unsorted {
                throw CommandLineFileError.damaged("tiles build", input, error)
            }
            try partition.finishWriting()
            print("geo tiles: read \(s.nodes) nodes, \(s.ways) ways, \(s.relations) relations → \(s.features) features"
                  + " (skipped: \(s.nodesOutOfRange) nodes with a position out of range, \(s.waysWithMissingNodes) ways with missing nodes,"
                  + " \(s.brokenRelations) broken multipolygons)", to: &err)
            if s.brokenCoastlines > 0 {
                print("geo tiles: warning: the coastline does not close (\(s.brokenCoastlines) chains end inside the extract or run the wrong way round): no sea drawn", to: &err)
            }
            var archive = try TileArchiveWriter(kind: TileArchiveKind(path: output)!, path: output)
            var total = 0, bytes = 0, drops = GeneralisationDrops()
            do {
                // Block by block, a dense block in quarters: only one part's pieces and tiles are in
                // memory (TilingOptions.blockSide(atZoom:), MapFeaturePartition.blockBudget).
                for z in minZoom...maxZoom {
                    var count = 0
                    for block in try partition.blocks(atZoom: z) {
                        try partition.cutTiles(of: block, drops: &drops) { _, tiles in
                            for tile in tiles { try archive.add(tile) }
                            count += tiles.reduce(0) { $0 + $1.runLength }
                            bytes += tiles.reduce(0) { $0 + $1.data.count }
                        }
                    }
                    total += count
                    print(String(format: "geo tiles: zoom %2d/%d: %6d tiles, %d total, %.1f MB, %.2f s", z, maxZoom, count, total,
                                 Double(bytes) / 1e6, (clock.now - start).seconds), to: &err)
                }
                try archive.finish(name: URL(fileURLWithPath: input).lastPathComponent, minZoom: minZoom, maxZoom: maxZoom,
                                   bounds: TileArchiveWriter.bounds(ofWorldBox: partition.worldBounds))
            } catch {
                archive.discard()
                throw error
            }
            print(String(format: "geo tiles: wrote %@: %d tiles in %.2f s", output, total, (clock.now - start).seconds), to: &err)
            print("geo tiles: dropped for size below zoom \(maxZoom): \(Self.perLayer(drops.features)) features under 4 px² or 1 px (counted per zoom), "
                  + "\(Self.perLayer(drops.mergedAreas)) merged areas under 4 px² (counted per tile)", to: &err)
        }

        /// "12 (building 10, landuse 2)": a total and its layers, largest first.
        static func perLayer(_ counts: [MapLayer: Int]) -> String {
            let total = counts.values.reduce(0, +)
            guard total > 0 else { return "0" }
            let layers = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
            return "\(total) (" + layers.joined(separator: ", ") + ")"
        }
    }
}
