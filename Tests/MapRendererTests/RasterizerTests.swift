import MapRenderer
import Testing

/// The sum of a mask's coverage: the covered area in square pixels.
private func area(_ m: CoverageMask) -> Double { m.values.reduce(0) { $0 + Double($1) } }

@Test func halfPixelAlignedSquare_coversExactAreas() {
    var r = Rasterizer()
    let m = r.coverage(of: Path(rectX: 1.5, y: 1.5, width: 3, height: 3), rule: .nonZero, clipWidth: 8, clipHeight: 8)
    // Corners a quarter, edges a half, the inside whole: exact in binary floating point.
    #expect(m.coverage(x: 1, y: 1) == 0.25)
    #expect(m.coverage(x: 4, y: 4) == 0.25)
    #expect(m.coverage(x: 2, y: 1) == 0.5)
    #expect(m.coverage(x: 1, y: 3) == 0.5)
    #expect(m.coverage(x: 2, y: 2) == 1)
    #expect(m.coverage(x: 3, y: 3) == 1)
    #expect(m.coverage(x: 0, y: 0) == 0)
    #expect(m.coverage(x: 5, y: 2) == 0)
    #expect(area(m) == 9)
}

@Test func slantedTriangle_areaIsExact() {
    var r = Rasterizer()
    // Right triangle with legs 7 and 5 at non-integer positions: area 17.5 px².
    let path = Path(polyline: [Point(x: 0.3, y: 0.7), Point(x: 7.3, y: 0.7), Point(x: 0.3, y: 5.7)], closed: true)
    let m = r.coverage(of: path, rule: .nonZero, clipWidth: 16, clipHeight: 16)
    #expect(abs(area(m) - 17.5) < 1e-4)
    #expect(m.values.allSatisfy { $0 >= 0 && $0 <= 1 })
}

@Test func fillRules_nestedSquares() {
    var r = Rasterizer()
    var path = Path(rectX: 0, y: 0, width: 10, height: 10)
    path.append(Path(rectX: 3, y: 3, width: 4, height: 4)) // same winding
    let nonZero = r.coverage(of: path, rule: .nonZero, clipWidth: 10, clipHeight: 10)
    let evenOdd = r.coverage(of: path, rule: .evenOdd, clipWidth: 10, clipHeight: 10)
    #expect(area(nonZero) == 100)
    #expect(area(evenOdd) == 84)
    #expect(evenOdd.coverage(x: 5, y: 5) == 0)
    #expect(nonZero.coverage(x: 5, y: 5) == 1)
    // Opposite winding: a hole under both rules.
    var holed = Path(rectX: 0, y: 0, width: 10, height: 10)
    holed.append(Path(polyline: [Point(x: 3, y: 3), Point(x: 3, y: 7), Point(x: 7, y: 7), Point(x: 7, y: 3)], closed: true))
    #expect(area(r.coverage(of: holed, rule: .nonZero, clipWidth: 10, clipHeight: 10)) == 84)
}

/// The area of flattened contours by the shoelace formula, px².
private func shoelace(_ contours: [Path.Contour]) -> Double {
    contours.reduce(0) { sum, c in
        var a = 0.0
        for i in c.points.indices {
            let p = c.points[i], q = c.points[(i + 1) % c.points.count]
            a += p.x * q.y - q.x * p.y
        }
        return sum + a / 2
    }
}

@Test func circle_areaIsItsPolygonsAndNearPiRSquared() {
    var r = Rasterizer()
    let circle = Path(circleAt: Point(x: 20.3, y: 19.6), radius: 12)
    let m = r.coverage(of: circle, rule: .nonZero, clipWidth: 64, clipHeight: 64, tolerance: 0.2)
    // The rasterizer is exact for the flattened polygon …
    #expect(abs(area(m) - abs(shoelace(circle.flattened(tolerance: 0.2)))) < 1e-3)
    // … which lies inside the circle within 0.2 px: area at most (2/3)·0.2·2πr below π r².
    let exact = Double.pi * 144
    #expect(area(m) <= exact && area(m) > exact - 2.0 / 3 * 0.2 * 2 * .pi * 12)
}

@Test func clipping_keepsTheInsidePart() {
    var r = Rasterizer()
    // A 20×20 square at (−10, −10): a 10×10 quarter lies inside; a triangle crossing the left edge.
    #expect(area(r.coverage(of: Path(rectX: -10, y: -10, width: 20, height: 20), rule: .nonZero, clipWidth: 8, clipHeight: 8)) == 64)
    let tri = Path(polyline: [Point(x: -4, y: 0), Point(x: 4, y: 0), Point(x: -4, y: 8)], closed: true)
    // Inside x ≥ 0: the triangle (0,0),(4,0),(0,4) = 8 px².
    #expect(abs(area(r.coverage(of: tri, rule: .nonZero, clipWidth: 16, clipHeight: 16)) - 8) < 1e-4)
    #expect(area(r.coverage(of: Path(rectX: 20, y: 20, width: 5, height: 5), rule: .nonZero, clipWidth: 8, clipHeight: 8)) == 0)
}

@Test func strokes_capsAndJoins_haveTheirAreas() throws {
    var canvas = try Canvas(width: 32, height: 32, background: .white)
    let line = Path(polyline: [Point(x: 4, y: 10), Point(x: 20, y: 10)])
    // 16 px long, 4 px wide: butt 64, square 4·(16+4) = 80, round 64 + π·2² = 76.57 px².
    #expect(abs(area(canvas.strokeCoverage(of: line, style: StrokeStyle(width: 4, cap: .butt))) - 64) < 1e-4)
    #expect(abs(area(canvas.strokeCoverage(of: line, style: StrokeStyle(width: 4, cap: .square))) - 80) < 1e-4)
    // Round caps are polygons within the 0.2 px tolerance: at most (2/3)·0.2·(2π·2) px² short.
    let roundCaps = area(canvas.strokeCoverage(of: line, style: StrokeStyle(width: 4, cap: .round)))
    #expect(roundCaps <= 64 + .pi * 4 && roundCaps > 64 + .pi * 4 - 2.0 / 3 * 0.2 * 4 * .pi)
    // A right angle, 2 px wide, legs of 10: butt body 2·10 + 2·10 − overlap; each join adds its corner.
    let corner = Path(polyline: [Point(x: 4, y: 4), Point(x: 14, y: 4), Point(x: 14, y: 14)])
    let bevel = area(canvas.strokeCoverage(of: corner, style: StrokeStyle(width: 2, join: .bevel, cap: .butt)))
    let miter = area(canvas.strokeCoverage(of: corner, style: StrokeStyle(width: 2, join: .miter, cap: .butt)))
    let round = area(canvas.strokeCoverage(of: corner, style: StrokeStyle(width: 2, join: .round, cap: .butt)))
    // Legs: 10·2 each, minus the 1×1 square they share inside the corner = 39; the outer corner
    // square (1×1) adds 1 for a miter, half for a bevel, π/4 for a round join.
    #expect(abs(bevel - 39.5) < 1e-3)
    #expect(abs(miter - 40) < 1e-3)
    #expect(round <= 39 + .pi / 4 && round > 39 + .pi / 4 - 2.0 / 3 * 0.2 * .pi / 2)
    // A miter limit below √2 turns the right angle's miter into a bevel.
    #expect(abs(area(canvas.strokeCoverage(of: corner, style: StrokeStyle(width: 2, join: .miter, cap: .butt, miterLimit: 1.4))) - 39.5) < 1e-3)
}

@Test func dashes_coverTheirOnLengths() throws {
    var canvas = try Canvas(width: 64, height: 16, background: .white)
    let line = Path(polyline: [Point(x: 2, y: 8), Point(x: 42, y: 8)])
    // 40 px with 5 on / 3 off: on 0–5, 8–13, 16–21, 24–29, 32–37 (and 40–40) → 25 px × 2 px.
    let m = canvas.strokeCoverage(of: line, style: StrokeStyle(width: 2, cap: .butt, dashes: [5, 3]))
    #expect(abs(area(m) - 50) < 1e-3)
    #expect(m.coverage(x: 8, y: 7) == 0) // x 7–10 is the first gap (2 + 5 … 2 + 8)
    // A phase of 5 starts in the gap: on 3–8, 11–16, 19–24, 27–32, 35–40 → 25 px, ×2.
    let shifted = canvas.strokeCoverage(of: line, style: StrokeStyle(width: 2, cap: .butt, dashes: [5, 3], dashPhase: 5))
    #expect(abs(area(shifted) - 50) < 1e-3)
}

@Test func closedStroke_isARing() throws {
    var canvas = try Canvas(width: 32, height: 32, background: .white)
    let square = Path(rectX: 8, y: 8, width: 10, height: 10)
    let m = canvas.strokeCoverage(of: square, style: StrokeStyle(width: 2, join: .miter))
    // Outer 12×12 minus inner 8×8.
    #expect(abs(area(m) - 80) < 1e-3)
    #expect(m.coverage(x: 13, y: 13) == 0)
}

@Test func compositing_isPremultipliedSourceOver() throws {
    var canvas = try Canvas(width: 4, height: 4, background: .white)
    canvas.fill(Path(rectX: 0, y: 0, width: 2, height: 4), color: Color(red: 255, green: 0, blue: 0, alpha: 128))
    canvas.fill(Path(rectX: 0, y: 0, width: 4, height: 0.5), color: .black)
    let c = canvas.pixmap.color(x: 0, y: 2)
    // 50.2 % red over white: 255 red, (1 − 0.502)·255 = 127 green and blue.
    #expect(c == Color(red: 255, green: 127, blue: 127))
    // Half-covered black over white: 128 gray (±1 for rounding).
    let g = canvas.pixmap.color(x: 3, y: 0)
    #expect(abs(Int(g.red) - 128) <= 1 && g.red == g.green && g.alpha == 255)
    // Transparent image: coverage gives alpha.
    var clear = try Canvas(Pixmap(width: 2, height: 2))
    clear.fill(Path(rectX: 0, y: 0, width: 1, height: 0.5), color: Color(red: 0, green: 0, blue: 255))
    #expect(clear.pixmap.color(x: 0, y: 0) == Color(red: 0, green: 0, blue: 255, alpha: 128))
}

@Test func hairline_scalesOpacity() throws {
    var canvas = try Canvas(width: 16, height: 8, background: .white)
    canvas.stroke(Path(polyline: [Point(x: 0, y: 4.5), Point(x: 16, y: 4.5)]), style: StrokeStyle(width: 0.5, cap: .butt), color: .black)
    // A pixel-centred 1 px line at half opacity: 50 % gray on its row, white elsewhere.
    #expect(abs(Int(canvas.pixmap.color(x: 8, y: 4).red) - 128) <= 1)
    #expect(canvas.pixmap.color(x: 8, y: 3) == .white)
}

@Test func badGeometry_isSkipped() throws {
    var canvas = try Canvas(width: 8, height: 8, background: .white)
    canvas.fill(Path(polyline: [Point(x: .nan, y: 1), Point(x: 3, y: .infinity), Point(x: 2, y: 2)], closed: true), color: .black)
    canvas.fill(Path(rectX: -1e300, y: -1e300, width: 2e300, height: 2e300), color: .black)
    #expect(canvas.pixmap.color(x: 4, y: 4) == .black)
    #expect(throws: RenderError.self) { try Pixmap(width: 0, height: 10) }
    #expect(throws: RenderError.self) { try Pixmap(width: 100_000, height: 10) }
}

@Test func absurdDashes_areBoundedWork() throws {
    var canvas = try Canvas(width: 64, height: 16, background: .white)
    // 10⁶ px of line with 10⁻⁶ px dashes would be 10¹² pieces: drawn solid instead.
    let line = Path(polyline: [Point(x: -500_000, y: 8), Point(x: 500_000, y: 8)])
    let m = canvas.strokeCoverage(of: line, style: StrokeStyle(width: 2, cap: .butt, dashes: [1e-6, 1e-6]))
    #expect(abs(area(m) - 128) < 1e-3)
}

@Test func rightClippedShape_coversToTheEdge() {
    var r = Rasterizer()
    // A square running off the right edge: its right side is never seen, the rows stay covered.
    let m = r.coverage(of: Path(rectX: 2.5, y: 1, width: 100, height: 2), rule: .nonZero, clipWidth: 10, clipHeight: 4)
    #expect(area(m) == 15)
    #expect(m.coverage(x: 9, y: 2) == 1 && m.coverage(x: 2, y: 1) == 0.5)
}

@Test func aliasedFill_pixelCentresOnAnEdgeGoToTheShapeOnTheirRightAndBelow() throws {
    // Two 3 × 3 squares sharing an edge through a column (then a row) of pixel centres, their
    // other sides on pixel boundaries. GL's top-left rule gives the centres on a shape's left and
    // top edges to it, those on its right and bottom edges not: each pixel to exactly one
    // square, the shared column (row) 4 to the second.
    for across in [true, false] {
        var canvas = try Canvas(width: 9, height: 9, background: .transparent)
        canvas.aliased = true
        func square(_ at: Double) -> Path {
            across ? Path(rectX: at, y: 1, width: 3, height: 3) : Path(rectX: 1, y: at, width: 3, height: 3)
        }
        canvas.fill(square(1.5), color: Color(red: 255, green: 0, blue: 0, alpha: 128))
        canvas.fill(square(4.5), color: Color(red: 0, green: 0, blue: 255, alpha: 128))
        for y in 0..<9 {
            for x in 0..<9 {
                let (along, side) = across ? (x, y) : (y, x)
                let expected = !(1...3).contains(side) ? 0 : (1...3).contains(along) ? 1 : (4...6).contains(along) ? 2 : 0
                let c = canvas.pixmap.color(x: x, y: y)
                let got = c.alpha == 0 ? 0 : c.red > 0 && c.blue == 0 ? 1 : c.blue > 0 && c.red == 0 ? 2 : -1
                #expect(got == expected, "pixel (\(x), \(y)), squares side by side: \(across): \(c)")
            }
        }
    }
}
