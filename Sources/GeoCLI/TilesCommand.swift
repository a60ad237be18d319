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
            let report: OSMTiling.Report
            do {
                report = try OSMTiling.build(input, to: output, options: options, temporaryDirectory: ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp",
                                             storeMemory: storeMemory << 20) { progress in
                    switch progress {
                    case .read(let s):
                        print("geo tiles: read \(s.nodes) nodes, \(s.ways) ways, \(s.relations) relations → \(s.features) features"
                              + " (skipped: \(s.nodesOutOfRange) nodes with a position out of range, \(s.waysWithMissingNodes) ways with missing nodes,"
                              + " \(s.brokenRelations) broken multipolygons)", to: &err)
                        if s.brokenCoastlines > 0 {
                            print("geo tiles: warning: the coastline does not close (\(s.brokenCoastlines) chains end inside the extract or run the wrong way round): no sea drawn", to: &err)
                        }
                    case .zoom(let z, let count, let total):
                        print(String(format: "geo tiles: zoom %2d/%d: %6d tiles, %d total, %.1f MB, %.2f s", z, maxZoom, count, total.tiles,
                                     Double(total.bytes) / 1e6, (clock.now - start).seconds), to: &err)
                    }
                }
            } catch let error as OSMError {
                throw CommandLineFileError.damaged("tiles build", input, error)
            } catch let error as MapDataError where error.code == .unsorted {
                throw CommandLineFileError.damaged("tiles build", input, error)
            }
            print(String(format: "geo tiles: wrote %@: %d tiles in %.2f s", output, report.tiles, (clock.now - start).seconds), to: &err)
            print("geo tiles: dropped for size below zoom \(maxZoom): \(Self.perLayer(report.drops.features)) features under 4 px² or 1 px (counted per zoom), "
                  + "\(Self.perLayer(report.drops.mergedAreas)) merged areas under 4 px² (counted per tile)", to: &err)
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
