public import MapData
import OSMImport
import SystemIO
import Platform

/// Vector tiles cut from an OpenStreetMap extract (`.osm.pbf`, `.osm`, `.osm.gz`) in the
/// LocationKit layer schema: written to an archive (`geo tiles build`, `build`) or held in
/// memory as a PMTiles archive served like one on disk (`geo serve monaco.osm.pbf`,
/// `memoryArchive`).
///
/// Reading puts the features in a scratch file as they are made, bucketed by place; zooms are
/// then cut block by block from it (`MapFeaturePartition`: a block is at most 16 × 16 tiles of
/// zoom maxZoom's ground, or one tile below, split into quarters while over 4 MiB of features;
/// its features are read back in batches and simplified and clipped before the next batch), so
/// memory follows the densest tile's output, not the extract. Node positions and way node lists
/// move to memory-mapped scratch files beside it past `storeMemory` bytes each
/// (`MapElementStorage`). The scratch files go when this goes.
public final class OSMTiling {
    /// What was cut so far.
    public struct Report: Sendable {
        /// Tiles cut (a run of equal tiles counts each of its tiles), and their bytes (a run once).
        public var tiles = 0, bytes = 0
        /// What generalisation left out for size.
        public var drops = GeneralisationDrops()
    }

    /// What `build` has done so far, for progress lines.
    public enum Progress: Sendable {
        /// The extract was read: its elements and what became of them.
        case read(MapExtractionStatistics)
        /// A zoom level was cut: its tiles, and the totals so far.
        case zoom(Int, tiles: Int, total: Report)
    }

    public let options: TilingOptions
    /// The extract's elements and what became of them.
    public let statistics: MapExtractionStatistics
    private let partition: MapFeaturePartition
    private let scratch: FeatureSpillFile

    /// Reads `input`, its features into a scratch file in `scratchDirectory`.
    /// - Parameter storeMemory: bytes of node positions and of way node lists kept in memory each.
    /// - Throws: `OSMError` or `MapDataError.unsorted` for an extract that does not read (the
    ///   reader names the offset or line); `MapDataError.invalidArgument` for bad options;
    ///   `SystemIOError` when the scratch files cannot be written.
    public init(reading input: String, options: TilingOptions, scratchDirectory: String,
                storeMemory: Int = MapElementStorage.defaultMemoryLimit) throws {
        self.options = options
        let scratch = try FeatureSpillFile(nextTo: scratchDirectory + "/tiles", temporaryDirectory: scratchDirectory)
        do {
            var partition = try MapFeaturePartition(options: options, storage: scratch)
            let storage = MapElementStorage.scratchFiles(in: scratch.directory, memoryLimit: storeMemory)
            statistics = try MapDataExtraction.read(url: URL(fileURLWithPath: input), storage: storage) { try partition.add($0) }
            try partition.finishWriting()
            self.partition = partition
            self.scratch = scratch
        } catch {
            scratch.discard()
            throw error
        }
    }

    deinit { scratch.discard() }

    /// West, south, east, north of the features, degrees (the world when there are none).
    public var bounds: (west: Double, south: Double, east: Double, north: Double) {
        TileArchiveWriter.bounds(ofWorldBox: partition.worldBounds)
    }

    /// Cuts zooms `options.minZoom…options.maxZoom`, handing each tile or run of equal tiles to
    /// `emit` in tile-id order within a zoom, block by block (a dense block in quarters: only one
    /// part's pieces and tiles are in memory, `MapFeaturePartition.blockBudget`); `zoomDone`
    /// gets each zoom's tile count and the totals so far.
    public func cut(zoomDone: (_ zoom: Int, _ tiles: Int, _ total: Report) -> Void = { _, _, _ in },
                    emit: (EncodedTile) throws -> Void) throws -> Report {
        var report = Report()
        for z in options.minZoom...options.maxZoom {
            var count = 0
            for block in try partition.blocks(atZoom: z) {
                try partition.cutTiles(of: block, drops: &report.drops) { _, tiles in
                    for tile in tiles {
                        try emit(tile)
                        count += tile.runLength
                        report.bytes += tile.data.count
                    }
                }
            }
            report.tiles += count
            zoomDone(z, count, report)
        }
        return report
    }

    /// Cuts `input` into the archive `output` (`.pmtiles` or `.mbtiles`, put in place
    /// atomically once whole), the scratch files next to it (in `temporaryDirectory` when it is
    /// a special file such as /dev/stdout).
    /// - Throws: as `init(reading:…)`; `TileArchiveError.invalidArgument` for another output
    ///   name; the archive's errors.
    public static func build(_ input: String, to output: String, options: TilingOptions, temporaryDirectory: String,
                             storeMemory: Int = MapElementStorage.defaultMemoryLimit, progress: (Progress) -> Void = { _ in }) throws -> Report {
        guard let kind = TileArchiveKind(path: output) else {
            throw TileArchiveError(.invalidArgument, "the name must end in .pmtiles or .mbtiles", path: output)
        }
        let scratchDirectory = try AtomicFileReplacement.writesThrough(output) ? temporaryDirectory : FileDescriptor.directory(of: output)
        let tiling = try OSMTiling(reading: input, options: options, scratchDirectory: scratchDirectory, storeMemory: storeMemory)
        progress(.read(tiling.statistics))
        var archive = try TileArchiveWriter(kind: kind, path: output)
        do {
            let report = try tiling.cut(zoomDone: { progress(.zoom($0, tiles: $1, total: $2)) }) { try archive.add($0) }
            try archive.finish(name: URL(fileURLWithPath: input).lastPathComponent, minZoom: options.minZoom, maxZoom: options.maxZoom,
                               bounds: tiling.bounds)
            return report
        } catch {
            archive.discard()
            throw error
        }
    }

    /// Cuts `input` into a PMTiles archive of gzip tiles held in memory, served under the
    /// extract's name (`monaco.osm.pbf` → `monaco`); scratch files in `temporaryDirectory`.
    /// - Throws: as `init(reading:…)`.
    public static func memoryArchive(_ input: String, options: TilingOptions, temporaryDirectory: String,
                                     storeMemory: Int = MapElementStorage.defaultMemoryLimit) throws -> PMTilesSource {
        var options = options
        options.compressesTiles = true
        let tiling = try OSMTiling(reading: input, options: options, scratchDirectory: temporaryDirectory, storeMemory: storeMemory)
        var writer = PMTilesWriter(tileType: .mvt, tileCompression: .gzip)
        _ = try tiling.cut { try writer.add(zoom: $0.zoom, x: $0.x, y: $0.y, data: $0.data, runLength: $0.runLength) }
        let (center, centerZoom) = TileArchiveWriter.center(of: tiling.bounds, minZoom: options.minZoom, maxZoom: options.maxZoom)
        let metadata = TileMetadata.json(name: URL(fileURLWithPath: input).lastPathComponent, minZoom: options.minZoom, maxZoom: options.maxZoom)
        return try PMTilesSource(archive: try writer.finished(metadata: metadata, bounds: tiling.bounds, center: center, centerZoom: centerZoom),
                                 name: MapSources.name(of: input))
    }
}
