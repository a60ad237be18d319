public import GeoCore

/// What `MapTiler` makes: the zoom range, the tile grid, and how much of each neighbour a tile
/// holds.
public struct TilingOptions: Hashable, Sendable {
    public var minZoom: Int
    public var maxZoom: Int
    /// Tile units per tile side (MVT extent).
    public var extent: Int
    /// Tile units of the neighbours kept around each tile, so strokes and labels that cross an
    /// edge draw without seams: 64 = 4 pixels of a 256-pixel tile.
    public var buffer: Int
    /// Threads used for clipping and encoding one zoom level.
    public var parallelism: Int
    /// Tiles per side of the square blocks `maxZoom` is cut in, a power of two; lower zooms use
    /// blocks of the same ground (`blockSide(atZoom:)`). The clipped pieces and encoded tiles of
    /// one block are all the tiler holds at once, so memory follows the block, not the zoom level.
    public var blockSize: Int
    /// Whether `EncodedTile.data` is gzip-compressed (as PMTiles and MBTiles store tiles), done
    /// on the same threads as the encoding.
    public var compressesTiles: Bool

    /// The zoom levels `MapTiler` accepts.
    public static let zoomRange = 0...16
    /// ``zoomRange`` as a user's `minZoom` / `maxZoom` is checked against.
    public static let zoomLevels = ValidRange(Double(zoomRange.lowerBound)...Double(zoomRange.upperBound), unit: "")

    public init(minZoom: Int = 0, maxZoom: Int = 14, extent: Int = 4096, buffer: Int = 64, parallelism: Int = 1,
                blockSize: Int = 16, compressesTiles: Bool = false) {
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.extent = extent
        self.buffer = buffer
        self.parallelism = parallelism
        self.blockSize = blockSize
        self.compressesTiles = compressesTiles
    }

    /// - Throws: `MapDataError.invalidArgument` for zooms outside 0…16 or reversed, an extent
    ///   outside 256…16384, a buffer outside 0…extent, a block size that is not a power of two.
    public func validate() throws(MapDataError) {
        guard Self.zoomRange.contains(minZoom), Self.zoomRange.contains(maxZoom), minZoom <= maxZoom else {
            throw MapDataError(.invalidArgument, "zoom range \(minZoom)…\(maxZoom) is not within 0…16, lowest first")
        }
        guard (256...16384).contains(extent) else { throw MapDataError(.invalidArgument, "extent \(extent) is outside 256…16384") }
        guard (0...extent).contains(buffer) else { throw MapDataError(.invalidArgument, "buffer \(buffer) is outside 0…\(extent)") }
        guard parallelism >= 1 else { throw MapDataError(.invalidArgument, "parallelism \(parallelism) is below 1") }
        guard blockSize >= 1, blockSize & (blockSize - 1) == 0 else {
            throw MapDataError(.invalidArgument, "blockSize \(blockSize) is not a power of two")
        }
    }

    /// Tiles per side of the blocks zoom `z` is cut in: `blockSize` at `maxZoom`, half as many
    /// per zoom below it, at least one tile. A block of any zoom thus covers the ground of one
    /// block of `maxZoom`, or one tile where a tile is larger: no zoom gathers more of the
    /// extract in one block than that, however low.
    public func blockSide(atZoom z: Int) -> Int {
        min(1 << z, max(1, blockSize >> max(0, maxZoom - z)))
    }
}

/// A square of tiles of one zoom level that `MapTiler` cuts at once, and the features that
/// reach it (indices into `MapTiler.features`, ascending).
public struct TileBlock: Hashable, Sendable {
    public var zoom: Int
    public var columns: ClosedRange<Int>
    public var rows: ClosedRange<Int>
    public var members: [Int32]
}

/// One encoded tile, or a run of tiles with the same bytes: its address and its MVT bytes
/// (gzip-compressed when `TilingOptions.compressesTiles`).
public struct EncodedTile: Hashable, Sendable {
    public var zoom: Int
    public var x: Int
    public var y: Int
    public var data: [UInt8]
    /// Tiles from this one on, in PMTiles tile-id order, that hold these bytes: 1, or the
    /// 4^k tiles of an aligned square that a polygon fills (`TileFill`), which PMTiles stores
    /// as one run-length entry (spec §5).
    public var runLength: Int

    public init(zoom: Int, x: Int, y: Int, data: [UInt8], runLength: Int = 1) {
        self.zoom = zoom
        self.x = x
        self.y = y
        self.data = data
        self.runLength = runLength
    }
}

/// What generalisation left out for size while cutting (`MapTiler`'s rules), per layer.
public struct GeneralisationDrops: Hashable, Sendable {
    /// Features left out of a zoom level below the highest because each of their polygons is
    /// under 4 px² or each of their lines shorter than 1 px; counted once per zoom level.
    public var features: [MapLayer: Int] = [:]
    /// Merged areas (`PolygonMerging`: a tile's small buildings, land use or land cover of one
    /// class) under 4 px², dropped; counted once per tile.
    public var mergedAreas: [MapLayer: Int] = [:]

    public init() {}

    /// Adds another count to this one.
    public mutating func add(_ other: GeneralisationDrops) {
        features.merge(other.features, uniquingKeysWith: +)
        mergedAreas.merge(other.mergedAreas, uniquingKeysWith: +)
    }

    /// The drops as `geo tiles build` reports them: "112 (transportation 97, water 5) features
    /// under 4 px² or 1 px (counted per zoom), 70 (building 70) merged areas under 4 px²
    /// (counted per tile)".
    public var summary: String {
        "\(Self.perLayer(features)) features under 4 px² or 1 px (counted per zoom), "
            + "\(Self.perLayer(mergedAreas)) merged areas under 4 px² (counted per tile)"
    }

    /// "12 (building 10, landuse 2)": a total and its layers, largest first (equal counts in
    /// layer order); "0" for none.
    public static func perLayer(_ counts: [MapLayer: Int]) -> String {
        let total = counts.values.reduce(0, +)
        guard total > 0 else { return "0" }
        let layers = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map { "\($0.key.rawValue) \($0.value)" }
        return "\(total) (" + layers.joined(separator: ", ") + ")"
    }
}
