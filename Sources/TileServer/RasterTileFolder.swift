public import GeoBase
public import GeoCore
import MapData
public import MapRenderer
public import TileArchives
import SystemIO

/// Raster map tiles written ahead (`geo tiles render`): 256² PNG in the XYZ layout
/// `FOLDER/z/x/y.png` over the area map data covers, drawn in 4 × 4 blocks (`Metatile`) so
/// that nothing is cut at a tile edge — by MapRenderer's painter (no attribution, no POI
/// icons), or by a style (`drawBlock`, as this server draws its raster tiles). Each file replaces the one before atomically (a reader never sees half a tile) and is
/// not synced: a tile is cheap to redraw, a sync per tile is not.
public struct RasterTileFolder {
    /// Decoded source tiles to keep between blocks (`DrawnMapData.open`'s `cachedTiles`). A
    /// block's view with its label margin spans up to 9 × 9 source tiles when drawn at the
    /// archive's own zoom (a 1024² block, 512 px a side, 256 px tiles), fewer when magnified;
    /// 128 hold one block's tiles and those the next block along the row shares with it, so
    /// each is decoded once per row of blocks.
    public static let cachedTiles = 128

    /// The features drawn: an OSM file's, read once and indexed, or a vector tile archive's,
    /// read per block.
    private enum Features {
        case index(MapFeatureIndex)
        case archive(TiledMapFeatures)
    }
    private let features: Features
    /// The area the tiles cover: an archive's stated bounds, or the box of a file's features.
    public let bounds: BoundingBox
    /// The folder the tiles go into.
    public let folder: String
    #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
    /// Shapes and draws the painter's labels; nil draws none.
    public var text: TextRenderer?
    #endif
    /// Draws a block in place of the painter: a style through a `Map` and
    /// `StyleCamera(block:pixelRatio:)` (``styleBlocks(_:options:data:glyphRange:warn:)``);
    /// nil draws with the painter. Called for one block at a time, in ``render(_:zoom:)``.
    public var drawBlock: ((Metatile) throws -> Pixmap)?

    /// - Throws: `TileServerError` `.nothingToDraw` when an archive states no bounds or a file
    ///   holds no map features.
    public init(_ map: DrawnMapData, folder: String) throws(TileServerError) {
        switch (map, map.bounds) {
        case (.tiles(let tiles), let b?): (features, bounds) = (.archive(tiles), b)
        case (.features(let all), let b?): (features, bounds) = (.index(MapFeatureIndex(all)), b)
        case (.tiles, nil): throw TileServerError(.nothingToDraw, "the archive states no bounds to cover")
        case (.features, nil): throw TileServerError(.nothingToDraw, "no map features to draw")
        }
        self.folder = folder
    }

    /// The zoom levels raster tiles are drawn at: the world in one tile (0) to about 4 cm a
    /// pixel (22).
    public static let zoomLevels = ValidRange(0...22, unit: "")

    /// The zoom levels `text` names: one (`15`) or a range (`14-17`), each in ``zoomLevels``.
    /// - Throws: `TileServerError` `.invalidZooms`, its message naming `name` (`--zoom`): other
    ///   text, a level outside ``zoomLevels``, or a range whose first level is above its last.
    public static func zooms(parsing text: String, named name: String) throws(TileServerError) -> ClosedRange<Int> {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let low = Int(parts[0]), let high = Int(parts[parts.count - 1]) else {
            throw TileServerError(.invalidZooms, "\(name) must be a zoom level or a range such as 14-17, got '\(text)'")
        }
        for z in [low, high] where !zoomLevels.contains(z) { throw TileServerError(.invalidZooms, "\(name) must be \(zoomLevels), got \(z)") }
        guard low <= high else { throw TileServerError(.invalidZooms, "\(name) \(text): \(low) is above \(high)") }
        return low...high
    }

    /// The tiles covering ``bounds`` at each of `zooms`, counted before any is drawn.
    /// - Throws: `TileServerError` `.tooManyTiles` as soon as they are more than `limit`.
    public func tiles(zooms: ClosedRange<Int>, limit: Int) throws -> [Int: [Tile]] {
        var tiles: [Int: [Tile]] = [:], count = 0
        for z in zooms {
            let cover = try Tile.covering(bounds, zoom: z)
            count += cover.count
            guard count <= limit else { throw TileServerError(.tooManyTiles, "more than \(limit) tiles") }
            tiles[z] = cover
        }
        return tiles
    }

    /// Draws `tiles` (of one zoom) and writes each as `folder/z/x/y.png`, creating the folders.
    /// - Returns: the tiles written and their PNG bytes.
    /// - Throws: `TileServerError` `.cannotCreateFolder` (the message is the system's error),
    ///   `.unreadableArchive` when an archive tile cannot be read; a write's `SystemIOError`.
    public func render(_ tiles: [Tile], zoom z: Int) throws -> (tiles: Int, bytes: Int) {
        var written = 0, bytes = 0
        for block in Metatile.blocks(covering: tiles) {
            for tile in try block.tiles(of: try drawBlock?(block) ?? paint(block)) {
                let png = try PNG.encode(tile.image)
                try write(png, z: z, x: tile.x, y: tile.y)
                bytes += png.count
            }
            written += block.columns.count * block.rows.count
        }
        return (written, bytes)
    }

    /// Draws and writes the tiles of every zoom of `zooms`, lowest first (`tiles` as
    /// ``tiles(zooms:limit:)`` counted them); after each zoom `progress` gets the zoom, its
    /// tiles and the totals written so far (tiles, PNG bytes).
    /// - Returns: the tiles written and their PNG bytes.
    /// - Throws: as ``render(_:zoom:)``.
    public func render(_ tiles: [Int: [Tile]], zooms: ClosedRange<Int>,
                       progress: (_ zoom: Int, _ tiles: Int, _ total: (tiles: Int, bytes: Int)) -> Void) throws -> (tiles: Int, bytes: Int) {
        var total = (tiles: 0, bytes: 0)
        for z in zooms {
            let drawn = try render(tiles[z] ?? [], zoom: z)
            total = (total.tiles + drawn.tiles, total.bytes + drawn.bytes)
            progress(z, tiles[z]?.count ?? 0, total)
        }
        return total
    }

    /// A style's warnings over the blocks of a run, counted each time a block gives one:
    /// `geo tiles render --style` prints each once, with its count.
    public struct BlockWarnings {
        private var counts: [String: Int] = [:]

        public init() {}

        public mutating func add(_ warning: String) { counts[warning, default: 0] += 1 }

        /// Each warning once, in sorted order, then ` (N blocks)` when it came more than once.
        public var lines: [String] {
            counts.sorted { $0.key < $1.key }.map { warning, count in "\(warning)\(count > 1 ? " (\(count) blocks)" : "")" }
        }
    }

    /// The block drawn by the painter.
    private func paint(_ block: Metatile) throws -> Pixmap {
        let view = try block.viewport()
        var painter = MapPainter(zoom: Double(block.zoom))
        painter.drawsAttribution = false
        painter.style.showsAllPOIs = false
        #if (canImport(CFreeType) && canImport(CHarfBuzz)) || canImport(CoreText)
        painter.text = text
        #endif
        var canvas = try Canvas(width: view.width, height: view.height, background: painter.style.land)
        painter.paint(try features(for: view), through: view, on: &canvas)
        return canvas.pixmap
    }

    /// Creates `path` and the folders above it.
    /// - Throws: `TileServerError` `.cannotCreateFolder`, its message the system's error.
    public static func createFolder(_ path: String) throws(TileServerError) {
        do { try FileDescriptor.createDirectories(path) } catch { throw TileServerError(.cannotCreateFolder, "\(error)") }
    }

    /// The features a block's view draws.
    private func features(for view: MercatorViewport) throws(TileServerError) -> MapFeatureIndex {
        switch features {
        case .index(let index): return index
        case .archive(let archive):
            do { return try MapFeatureIndex(archive, visibleIn: view) } catch {
                throw TileServerError(.unreadableArchive, "the archive cannot be read: \(error)")
            }
        }
    }

    /// Writes `folder/z/x/y.png` by atomic replacement, not synced.
    private func write(_ png: [UInt8], z: Int, x: Int, y: Int) throws {
        let tileFolder = "\(folder)/\(z)/\(x)"
        try Self.createFolder(tileFolder)
        let replacement = try AtomicFileReplacement(replacing: "\(tileFolder)/\(y).png")
        do {
            try replacement.descriptor.writeAll(png)
            try replacement.commit(durable: false)
        } catch {
            replacement.discard()
            throw error
        }
        try replacement.descriptor.close()
    }
}
