@testable import MapRenderer
import Testing

/// A zigzag road 2000 px long crossing a 64 × 64 image, leaving and re-entering it, drawn
/// through the canvas (its outline cut to the image) and through the whole outline: the
/// coverage inside the image is the same (within 1e-4 of a pixel), for round, miter and bevel
/// joins, butt, round and square caps, and a dash pattern (cut after dashing, so it keeps its phase).
@Test func strokeCutToTheImage_coversTheSamePixels() {
    let zigzag = (0...20).map { i in Point(x: -900 + 100 * Double(i), y: i % 2 == 0 ? 10 : 50) }
    // A ring larger than the image around it, and one wholly inside.
    let ring = [Point(x: -30, y: -20), Point(x: 90, y: 20), Point(x: 40, y: 100)]
    let small = [Point(x: 20, y: 20), Point(x: 40, y: 25), Point(x: 30, y: 40)]
    let contours = [Path.Contour(points: zigzag, isClosed: false), Path.Contour(points: ring, isClosed: true), Path.Contour(points: small, isClosed: true)]
    let image = Stroker.Rectangle(minX: 0, minY: 0, maxX: 64, maxY: 64)
    for style in [StrokeStyle(width: 9, join: .round, cap: .round), StrokeStyle(width: 7, join: .miter, cap: .square),
                  StrokeStyle(width: 5, join: .bevel, cap: .butt, dashes: [13, 7], dashPhase: 3)] {
        var r = Rasterizer()
        let whole = r.coverage(of: Stroker.outline(of: contours, style: style), rule: .nonZero, clipWidth: 64, clipHeight: 64)
        let cutOutline = Stroker.outline(of: contours, style: style, clip: image)
        let cut = r.coverage(of: cutOutline, rule: .nonZero, clipWidth: 64, clipHeight: 64)
        var worst: Float = 0
        for y in 0..<64 { for x in 0..<64 { worst = max(worst, abs(whole.coverage(x: x, y: y) - cut.coverage(x: x, y: y))) } }
        #expect(worst < 1e-4, "\(style): coverage differs by \(worst)")
        // The cut outline stays near the image: no point beyond the grown rectangle.
        let reach = style.width / 2 * max(style.miterLimit, 2) + 1 + style.width
        #expect(cutOutline.allSatisfy { $0.points.allSatisfy { $0.x > -reach && $0.x < 64 + reach && $0.y > -reach && $0.y < 64 + reach } })
    }
}

/// A closed ring crossing the box is cut into open pieces that start and end on the box's
/// edges (never at a vertex inside, where a cap would show); a ring inside stays closed.
@Test func closedRingCrossingTheBox_isCutOnItsEdges() throws {
    let box = Stroker.Rectangle(minX: 0, minY: 0, maxX: 10, maxY: 10)
    // Starts inside: the piece through the first vertex must not be split there.
    let ring = [Point(x: 5, y: 5), Point(x: 20, y: 5), Point(x: 20, y: 8), Point(x: 5, y: 8)]
    let pieces = Stroker.clipped(ring, closed: true, to: box)
    #expect(pieces.count == 1)
    let piece = try #require(pieces.first)
    #expect(!piece.isClosed)
    let expected = [Point(x: 10, y: 8), Point(x: 5, y: 8), Point(x: 5, y: 5), Point(x: 10, y: 5)]
    #expect(piece.points.count == expected.count && zip(piece.points, expected).allSatisfy { ($0 - $1).length < 1e-9 }, "\(piece.points)")
    let inside = Stroker.clipped(ring.map { Point(x: $0.x / 4, y: $0.y) }, closed: true, to: box)
    #expect(inside.count == 1 && inside[0].isClosed && inside[0].points.count == 4)
    // A segment missing the box altogether leaves nothing.
    #expect(Stroker.clipped([Point(x: -5, y: -5), Point(x: 20, y: -1)], closed: false, to: box).isEmpty)
}
