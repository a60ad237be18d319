public import GeoCore
internal import MapData

/// A block of XYZ tiles drawn as one image and cut into 256² tiles (the metatile of Mapnik's
/// mod_tile and of Tirex): strokes and fills run on across the tiles' edges as in any image,
/// and labels and icons, which are only placed where they fit whole on the image, cannot be
/// cut by a tile edge inside the block. Geometry is not cut at the block's edge either:
/// features are chosen with a margin around it and clipped by the rasterizer, so a road
/// leaving one block continues in the next.
public struct Metatile: Sendable, Hashable {
    /// Tiles a side of a full block (4 × 4 tiles, a 1024² image).
    public static let side = 4
    /// Pixels a side of one tile.
    public static let tileSize = 256

    public let zoom: Int
    /// The block's tile columns and rows.
    public let columns: Range<Int>, rows: Range<Int>

    /// The blocks of `side × side` tiles (fewer at the edges of `tiles`) that hold `tiles`, in
    /// row-major block order.
    public static func blocks(covering tiles: [Tile]) -> [Metatile] {
        guard let first = tiles.first else { return [] }
        var minX = first.x, maxX = first.x, minY = first.y, maxY = first.y
        for t in tiles { minX = min(minX, t.x); maxX = max(maxX, t.x); minY = min(minY, t.y); maxY = max(maxY, t.y) }
        var out: [Metatile] = []
        for by in stride(from: minY, through: maxY, by: side) {
            for bx in stride(from: minX, through: maxX, by: side) {
                out.append(Metatile(zoom: first.zoom, columns: bx..<min(bx + side, maxX + 1), rows: by..<min(by + side, maxY + 1)))
            }
        }
        return out
    }

    public init(zoom: Int, columns: Range<Int>, rows: Range<Int>) {
        self.zoom = zoom
        self.columns = columns
        self.rows = rows
    }

    /// The full block (`side × side` tiles, all of the grid below zoom 2) that holds tile
    /// (`x`, `y`) of zoom `zoom`, aligned to multiples of the side.
    public static func block(holding x: Int, _ y: Int, zoom: Int) -> Metatile {
        let n = min(side, 1 << zoom), bx = x / n * n, by = y / n * n
        return Metatile(zoom: zoom, columns: bx..<(bx + n), rows: by..<(by + n))
    }

    /// The block's centre.
    public var center: Coordinate {
        let n = Double(1 << zoom)
        return MapPoint(x: Double(columns.lowerBound + columns.upperBound) / 2 / n, y: Double(rows.lowerBound + rows.upperBound) / 2 / n).coordinate
    }

    /// The view of the whole block: its centre at zoom `zoom`, `columns × rows` tiles large.
    public func viewport() throws(RenderError) -> MercatorViewport {
        try MercatorViewport(center: center, zoom: Double(zoom), width: columns.count * Self.tileSize, height: rows.count * Self.tileSize)
    }

    /// Cuts the block's image, drawn at `pixelRatio` (tiles of `256 × pixelRatio` pixels a
    /// side), into its tiles, row by row.
    public func tiles(of image: Pixmap, pixelRatio: Int = 1) throws(RenderError) -> [(x: Int, y: Int, image: Pixmap)] {
        let size = Self.tileSize * pixelRatio
        var out: [(x: Int, y: Int, image: Pixmap)] = []
        for y in rows {
            for x in columns {
                out.append((x, y, try image.cropped(x: (x - columns.lowerBound) * size, y: (y - rows.lowerBound) * size, width: size, height: size)))
            }
        }
        return out
    }
}
