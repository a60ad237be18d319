import Foundation
import GeoCore
import GeoTestSupport
import MapData
@testable import MapRenderer
import OSMImport
import Testing

/// Raster tiles drawn in blocks (`Metatile`): no seams at tile or block edges.
@Suite(.serialized) struct MetatileTests {
    @Test func blocks_coverEveryTileOnce_inFourByFourBlocks() throws {
        let tiles = try Tile.covering(try BoundingBox(south: 43.7294, west: 7.4122, north: 43.7474, east: 7.4370), zoom: 16)
        let blocks = Metatile.blocks(covering: tiles)
        var seen: [String: Int] = [:]
        for b in blocks {
            #expect(b.columns.count <= 4 && b.rows.count <= 4 && b.zoom == 16)
            for y in b.rows { for x in b.columns { seen["\(x)/\(y)", default: 0] += 1 } }
        }
        #expect(Set(seen.keys) == Set(tiles.map { "\($0.x)/\($0.y)" }))
        #expect(seen.values.allSatisfy { $0 == 1 })
    }

    /// Two neighbouring blocks of Monaco at z16 against one image of both: every pixel of the
    /// two blocks' tiles equals the whole image's within 2 levels of 255 (the same pixel grid,
    /// only the origin moved by 1024 px), so roads run on across the block edge and across the
    /// tile edges inside. Labels are left out: they are placed per block by design.
    @Test(.onOwnThread) func neighbouringBlocks_continueEachOther_acrossTheEdge() throws {
        guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
        let index = MapFeatureIndex(try MapDataExtraction.read(url: url).features)
        // Block columns 34116…34119 and 34120…34123 at z16 over La Condamine and Monte Carlo (the
        // roads cross the edge between them).
        let left = Metatile(zoom: 16, columns: 34116..<34120, rows: 23894..<23898)
        let right = Metatile(zoom: 16, columns: 34120..<34124, rows: 23894..<23898)
        let both = Metatile(zoom: 16, columns: 34116..<34124, rows: 23894..<23898)
        func draw(_ block: Metatile) throws -> Pixmap {
            let view = try block.viewport()
            let painter = MapPainter(zoom: 16)
            var canvas = try Canvas(width: view.width, height: view.height, background: painter.style.land)
            painter.paint(index, through: view, on: &canvas)
            return canvas.pixmap
        }
        let whole = try draw(both)
        var worst = 0, roadPixelsOnTheEdge = 0
        for block in [left, right] {
            for tile in try block.tiles(of: try draw(block)) {
                let ox = (tile.x - both.columns.lowerBound) * 256, oy = (tile.y - both.rows.lowerBound) * 256
                for y in 0..<256 {
                    for x in 0..<256 {
                        let i = (y * 256 + x) * 4, j = ((oy + y) * whole.width + ox + x) * 4
                        for k in 0..<4 { worst = max(worst, abs(Int(tile.image.bytes[i + k]) - Int(whole.bytes[j + k]))) }
                    }
                }
            }
        }
        // Not vacuous: the edge column has road fills (white minor roads, coloured major ones).
        let style = MapStyle.day
        for y in 0..<whole.height {
            let c = whole.color(x: 1024, y: y)
            if c == .white || c == style.road("primary")?.fill || c == style.road("secondary")?.fill || c == style.road("tertiary")?.fill { roadPixelsOnTheEdge += 1 }
        }
        #expect(worst <= 2, "largest difference \(worst) levels")
        #expect(roadPixelsOnTheEdge >= 20, "\(roadPixelsOnTheEdge) road pixels on the block edge")
    }
}
