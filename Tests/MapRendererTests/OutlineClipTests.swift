import GeoCore
import MapData
@testable import MapRenderer
import Testing

/// A building cut by a vector tile edge, as a tile archive holds it: each of the two tiles has
/// its own copy clipped to the tile plus its buffer. Drawn at z16 (outlines from z15), 256 px
/// square around the tile edge.
private struct SplitBuilding {
    static let zoom = 16
    /// The tile edge, world x: between tiles 34_000 and 34_001 at z16.
    static let edge = 34_001.0 / 65_536
    static let tile = 1.0 / 65_536
    /// The tiles' buffer: 64 of 4096 units (`geo tiles build`'s, as tilemaker's and
    /// OpenMapTiles'), 4 px at the tile's own zoom.
    static let buffer = tile * 64 / 4096
    static let top = 23_000.3 / 65_536, bottom = 23_000.7 / 65_536
    /// 60 % of a tile wide, centred on the edge.
    static let left = edge - 0.3 * tile, right = edge + 0.3 * tile

    static func rectangle(_ minX: Double, _ maxX: Double) -> MapFeature {
        let ring = [MapPoint(x: minX, y: top), MapPoint(x: maxX, y: top), MapPoint(x: maxX, y: bottom), MapPoint(x: minX, y: bottom), MapPoint(x: minX, y: top)]
        return MapFeature(layer: .building, id: 1, source: .way, geometry: .polygons([MapPolygon(exterior: ring)]), properties: [], minZoom: 14)
    }

    static let whole = rectangle(left, right)
    static let copies = [rectangle(left, edge + buffer), rectangle(edge - buffer, right)]
    static let tiles: [WorldRect?] = [WorldRect(minX: edge - tile, minY: 23_000 / 65_536, maxX: edge, maxY: 23_001 / 65_536),
                                      WorldRect(minX: edge, minY: 23_000 / 65_536, maxX: edge + tile, maxY: 23_001 / 65_536)]

    static func render(_ index: MapFeatureIndex) throws -> Pixmap {
        let view = try MercatorViewport(center: MapPoint(x: edge, y: (top + bottom) / 2).coordinate, zoom: Double(zoom), width: 256, height: 256)
        var canvas = try Canvas(width: 256, height: 256, background: MapStyle.day.land)
        MapPainter(zoom: Double(zoom)).paint(index, through: view, on: &canvas)
        return canvas.pixmap
    }
}

/// The largest difference of any channel between two images, 0…255.
private func largestDifference(_ a: Pixmap, _ b: Pixmap) -> Int {
    zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
}

/// With each copy's outline stroked only inside its own tile, the two copies draw what the
/// whole building draws: along the cut edges (4 px either side of the tile edge, x = 124 and
/// 131 inside the building, which covers x 51…205, y 77…179) exactly, elsewhere within 4 of
/// 255 (where the copies' fills overlap, 8 px about the tile edge, the partly covered pixels
/// of the building's top and bottom edges count twice: 3 levels here). Stroked whole, the
/// copies' cut edges show as outline lines across the building (12 levels darker: a 0.6 px
/// hairline of the outline colour).
@Test func outlinesFromClippedTiles_skipTheCutEdges() throws {
    let whole = try SplitBuilding.render(MapFeatureIndex([SplitBuilding.whole]))
    let clipped = try SplitBuilding.render(MapFeatureIndex(SplitBuilding.copies, outlineBounds: SplitBuilding.tiles))
    let naive = try SplitBuilding.render(MapFeatureIndex(SplitBuilding.copies))
    #expect(largestDifference(whole, clipped) <= 4)
    func darkening(_ image: Pixmap, x: Int, y: Int) -> Int { Int(whole.color(x: x, y: y).green) - Int(image.color(x: x, y: y).green) }
    for x in [124, 131] {
        for y in 80..<177 {
            #expect(darkening(clipped, x: x, y: y) == 0, "(\(x), \(y))")
            #expect(darkening(naive, x: x, y: y) >= 8, "(\(x), \(y)): the cut edge shows when outlines are whole")
        }
    }
}

/// Liang–Barsky pieces of a ring inside a box: the part of a square's outline inside the
/// left half of the box, as one open line from the top edge round the left side to the
/// bottom edge (the walk's wrap-around joined), and a ring wholly inside kept closed.
@Test func ringParts_insideABox() {
    let square = [MapPoint(x: 0, y: 0), MapPoint(x: 4, y: 0), MapPoint(x: 4, y: 4), MapPoint(x: 0, y: 4)]
    let (pieces, closed) = MapPainter.parts(of: square, inside: WorldRect(minX: -1, minY: -1, maxX: 2, maxY: 5))
    #expect(!closed)
    #expect(pieces == [[MapPoint(x: 2, y: 4), MapPoint(x: 0, y: 4), MapPoint(x: 0, y: 0), MapPoint(x: 2, y: 0)]])
    let whole = MapPainter.parts(of: square, inside: WorldRect(minX: -1, minY: -1, maxX: 5, maxY: 5))
    #expect(whole.closed && whole.pieces == [square])
    #expect(MapPainter.parts(of: square, inside: WorldRect(minX: 10, minY: 10, maxX: 11, maxY: 11)).pieces.isEmpty)
}
