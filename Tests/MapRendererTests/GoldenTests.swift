import Foundation
import GeoTestSupport
import MapRenderer
import Testing

/// Compares `image` with the committed golden `name` (Fixtures/golden): each channel within
/// `tolerance` levels, and at most `maxDiffering` pixels beyond it. With
/// `LOCATIONKIT_UPDATE_GOLDENS=1` the golden is rewritten instead (look at it before committing).
func expectMatchesGolden(_ image: Pixmap, _ name: String, tolerance: Int = 2, maxDiffering: Int = 0,
                         sourceLocation: SourceLocation = #_sourceLocation) throws {
    let url = fixtureURL("golden/\(name).png")
    if ProcessInfo.processInfo.environment["LOCATIONKIT_UPDATE_GOLDENS"] == "1" {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(try PNG.encode(image)).write(to: url)
        return
    }
    let golden = try PNG.decode([UInt8](Data(contentsOf: url)))
    #expect(golden.width == image.width && golden.height == image.height, sourceLocation: sourceLocation)
    guard golden.width == image.width, golden.height == image.height else { return }
    var differing = 0
    for i in stride(from: 0, to: image.bytes.count, by: 4) {
        if (0..<4).contains(where: { abs(Int(image.bytes[i + $0]) - Int(golden.bytes[i + $0])) > tolerance }) { differing += 1 }
    }
    #expect(differing <= maxDiffering, "\(name): \(differing) pixels differ by more than \(tolerance)", sourceLocation: sourceLocation)
}

@Test func golden_shapesAndStrokes() throws {
    var c = try Canvas(width: 96, height: 64, background: .white)
    // Even-odd five-pointed star (hollow centre) and non-zero star (solid).
    func star(_ cx: Double, _ cy: Double) -> Path {
        Path(polyline: (0..<5).map { i in
            let a = -Double.pi / 2 + Double(i) * 4 * .pi / 5
            return Point(x: cx + 14 * cos(a), y: cy + 14 * sin(a))
        }, closed: true)
    }
    c.fill(star(16, 17), color: Color(hex: 0x2060C0), rule: .evenOdd)
    c.fill(star(48, 17), color: Color(hex: 0x2060C0), rule: .nonZero)
    c.fill(Path(circleAt: Point(x: 78, y: 17), radius: 11.5), color: Color(hex: 0xE04020, alpha: 180))
    let zigzag = Path(polyline: [Point(x: 6, y: 56), Point(x: 16, y: 38), Point(x: 26, y: 56), Point(x: 36, y: 40)])
    c.stroke(zigzag, style: StrokeStyle(width: 5, join: .miter, cap: .butt), color: Color(hex: 0x303030))
    c.stroke(zigzag.applying(.translation(x: 32, y: 0)), style: StrokeStyle(width: 5, join: .round, cap: .round), color: Color(hex: 0x308030))
    c.stroke(Path(polyline: [Point(x: 70, y: 40), Point(x: 90, y: 58)]), style: StrokeStyle(width: 2, cap: .butt, dashes: [4, 2]), color: .black)
    c.stroke(Path(polyline: [Point(x: 70, y: 58), Point(x: 90, y: 40)]), style: StrokeStyle(width: 0.4), color: .black)
    try expectMatchesGolden(c.pixmap, "shapes")
}
