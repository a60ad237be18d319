import ArgumentParser
import Platform
import GeoBase
import GeoCore
import MapData
import OSMImport
import TileArchives
import TileServer

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

        @Option(name: .customLong("minzoom"), help: "Lowest zoom level, \(TilingOptions.zoomLevels).")
        var minZoom = 0

        @Option(name: .customLong("maxzoom"), help: "Highest zoom level, \(TilingOptions.zoomLevels).")
        var maxZoom = 14

        @Option(name: .customLong("store-memory"),
                help: "MiB of node positions (16 bytes a node) and of way node lists kept in memory before each moves to a memory-mapped scratch file next to the output, \(MapElementStorage.memoryLimitsInMiB).")
        var storeMemory = MapElementStorage.defaultMemoryLimit >> 20

        func validate() throws {
            try TilingOptions.zoomLevels.check(minZoom, option: "--minzoom")
            try TilingOptions.zoomLevels.check(maxZoom, option: "--maxzoom")
            try MapElementStorage.memoryLimitsInMiB.check(storeMemory, option: "--store-memory")
            guard minZoom <= maxZoom else { throw ValidationError("--minzoom \(minZoom) is above --maxzoom \(maxZoom)") }
            guard TileArchiveKind(path: output) != nil else { throw ValidationError("-o \(output): the name must end in .pmtiles or .mbtiles") }
        }

        func run() throws {
            let start = ContinuousClock.now
            let options = TilingOptions(minZoom: minZoom, maxZoom: maxZoom,
                                        parallelism: ProcessInfo.processInfo.activeProcessorCount, compressesTiles: true)
            let report = try CommandLineFiles.reading(input, damage: { $0 is OSMError || ($0 as? MapDataError)?.code == .unsorted }) {
                try OSMTiling.build(input, to: output, options: options, temporaryDirectory: ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp",
                                    storeMemory: storeMemory << 20) { progress in
                    for line in progress.lines(maxZoom: maxZoom, elapsed: ContinuousClock.now - start) { CommandLineFiles.note("tiles", line) }
                }
            }
            for line in report.lines(output: output, maxZoom: maxZoom, elapsed: ContinuousClock.now - start) { CommandLineFiles.note("tiles", line) }
        }
    }
}

/// `geo tiles render IN.pmtiles|IN.mbtiles|IN.osm.pbf --zoom 14-17 -o DIR`: raster tiles in
/// the XYZ layout `DIR/z/x/y.png` over the area the data covers (TileServer's `RasterTileFolder`).
struct TilesRenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render raster map tiles (256² PNG, DIR/z/x/y.png) from vector tiles or OpenStreetMap data.",
        discussion: "The tiles cover the data's bounds (an archive's stated bounds, an OSM file's features). Zooms above a vector archive's deepest zoom draw its deepest tiles magnified. A progress line per zoom level goes to standard error."
    )

    @Argument(help: "Map data: .pmtiles or .mbtiles vector tiles, or OpenStreetMap .osm.pbf, .osm or .osm.gz.")
    var input: String

    @Option(help: ArgumentHelp("Zoom level or range, each \(RasterTileFolder.zoomLevels).", valueName: "Z or ZMIN-ZMAX"))
    var zoom: String

    @Option(name: .shortAndLong, help: "The folder to write the tiles into (created when missing).")
    var output: String

    @Option(name: .customLong("max-tiles"), help: "Refuse to render more tiles than this, \(OptionRanges.count).")
    var maxTiles = 100_000

    @Option(help: ArgumentHelp("Draw with a MapLibre style: default or default-night (the built-in styles over the input), or a style.json whose one vector source the input serves (default: the built-in painter).", valueName: "STYLE"))
    var style: String?

    @Option(help: ArgumentHelp("The folder a style file's local:// URLs resolve under.", valueName: "DIR"))
    var base: String?

    func validate() throws {
        _ = try zoomRange()
        try OptionRanges.count.check(maxTiles, option: "--max-tiles")
    }

    /// `--zoom` as a range: "15" or "14-17" (`RasterTileFolder.zooms(parsing:named:)`).
    private func zoomRange() throws -> ClosedRange<Int> {
        do { return try RasterTileFolder.zooms(parsing: zoom, named: "--zoom") } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        let start = ContinuousClock.now
        let zooms = try zoomRange()
        let map = try MapDataOptions.open(input, command: "tiles render", cachedTiles: RasterTileFolder.cachedTiles) {
            ValidationError("\($0): geo tiles render reads .pmtiles, .mbtiles, .osm.pbf, .osm and .osm.gz files")
        }
        do {
            let (written, warnings) = try RasterTileFolder.render(map, named: input, zooms: zooms, limit: maxTiles, to: output, style: style, base: base) { z, count, total in
                let line = TileZoomProgress.line(zoom: z, maxZoom: zooms.upperBound, tiles: count, totalTiles: total.tiles, totalBytes: total.bytes,
                                                 elapsed: ContinuousClock.now - start)
                CommandLineFiles.note("tiles", "render \(line)")
            }
            for line in warnings { CommandLineFiles.note("tiles render", "\(style ?? ""): \(line)") }
            CommandLineFiles.note("tiles", "wrote \(written) tiles to \(output) in \(format((ContinuousClock.now - start).seconds, 2)) s")
        } catch let error as TileServerError {
            switch error.code {
            case .tooManyTiles:
                throw ValidationError("--zoom \(zoom) over \(input) is more than --max-tiles \(maxTiles) tiles; narrow the zooms or raise --max-tiles")
            case .cannotCreateFolder:
                throw CommandLineFileError("-o \(output): \(error.message) (-o names the folder the tiles go into)", status: 73)
            case .nothingToDraw: throw CommandLineFileError("\(input): \(error.message)", status: 65)
            case .invalidStyle: throw ValidationError("--style \(style ?? "") \(error.message): geo tiles render hands \(input) to a style's one vector source")
            default: throw CommandLineFileError(error.message, status: 65)
            }
        } catch {
            // The style file's failures name its reader; the rest (the label fonts) the command.
            throw CommandLineFileError.mapped(error, command: error is MapFilesError ? "tiles render --style" : "tiles render")
        }
    }
}
