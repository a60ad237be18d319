import Foundation
import GeoCore
import GeoTestSupport
import MapData
@testable import MapRenderer
import OSMImport
import Testing

/// The sample city's map features, written as a real `.osm.pbf` and read back.
private func sampleCityIndex() throws -> MapFeatureIndex {
    try withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("city.osm.pbf")
        try SampleCity.generate().write(to: pbf)
        return MapFeatureIndex(try MapDataExtraction.read(url: pbf).features)
    }
}

/// How many pixels have exactly this colour.
private func count(_ color: Color, in p: Pixmap) -> Int {
    var n = 0
    for y in 0..<p.height { for x in 0..<p.width where p.color(x: x, y: y) == color { n += 1 } }
    return n
}

@Test func mercatorViewport_orientationTurnsTheMap() throws {
    let centre = SampleCity.center
    let east = centre.coordinate(at: .meters(100), facing: .degrees(90))
    let north = try MercatorViewport(center: centre, zoom: 16, orientation: 0, width: 400, height: 400)
    let p = try #require(north.pixel(for: MapPoint(east)))
    // 100 m east at z16, 48° N: 100 / (156543.03 · cos 48° / 2^16) = 62.9 px right of centre;
    // Web Mercator's sphere is 0.19 % smaller than the ellipsoid's parallel there (N = a / W),
    // so the geodesic 100 m land 0.12 px further: 0.2 px tolerance.
    #expect(abs(p.x - 200 - 100 / north.metersPerPixel) < 0.2 && abs(p.y - 200) < 0.01)
    #expect(abs(north.metersPerPixel - 156_543.033_928 * cos(48 * Double.pi / 180) / 65_536) < 1e-6)
    // Heading east at the top: the point east of the centre is straight up.
    let eastUp = try MercatorViewport(center: centre, zoom: 16, orientation: 90, width: 400, height: 400)
    let q = try #require(eastUp.pixel(for: MapPoint(east)))
    #expect(abs(q.x - 200) < 0.01 && abs(q.y - (200 - 100 / north.metersPerPixel)) < 0.2)
    // world(at:) inverts pixel(for:).
    let back = eastUp.world(at: q)
    #expect(abs(back.x - MapPoint(east).x) < 1e-12 && abs(back.y - MapPoint(east).y) < 1e-12)
    #expect(throws: RenderError.self) { try MercatorViewport(center: centre, zoom: 30, width: 10, height: 10) }
}

/// A projection that hides everything right of a vertical line: lines are cut there.
private struct HalfProjection: RenderProjection {
    let inner: MercatorViewport
    let limit: Double
    func pixel(for world: MapPoint) -> Point? {
        guard let p = inner.pixel(for: world), p.x <= limit else { return nil }
        return p
    }
    var visibleWorldBounds: WorldRect? { nil }
}

@Test func drawsThroughTheCallersProjection_cuttingWhereItHides() throws {
    let view = try MercatorViewport(center: SampleCity.center, zoom: 16, width: 200, height: 100)
    let half = HalfProjection(inner: view, limit: 120)
    let line = [view.world(at: Point(x: 10, y: 50)), view.world(at: Point(x: 190, y: 50))]
    let pieces = half.pixelLines(line)
    #expect(pieces.count == 1)
    // The cut lies on the hidden boundary within bisection precision (2^-12 of the segment).
    #expect(abs((pieces.first?.last?.x ?? 0) - 120) < 180.0 / 4096 + 1e-9)
    var canvas = try Canvas(width: 200, height: 100, background: .white)
    var painter = MapPainter(zoom: 16)
    painter.style.land = .white
    painter.paint(MapFeatureIndex([]), overlays: [.polyline(line.map(\.coordinate), width: 4, color: .black)], through: half, on: &canvas)
    #expect(canvas.pixmap.color(x: 60, y: 50) == .black)
    #expect(canvas.pixmap.color(x: 160, y: 50) == .white)
}

@Test func categories_hideAndShow() throws {
    let index = try sampleCityIndex()
    let view = try MercatorViewport(center: SampleCity.center, zoom: 16, width: 320, height: 240)
    func render(_ change: (inout MapStyle) -> Void) throws -> Pixmap {
        var painter = MapPainter(zoom: 16)
        change(&painter.style)
        var canvas = try Canvas(width: 320, height: 240, background: .white)
        painter.paint(index, through: view, on: &canvas)
        return canvas.pixmap
    }
    let plain = try render { _ in }
    #expect(count(MapStyle.day.building, in: plain) > 1000, "buildings are drawn")
    #expect(count(MapStyle.day.building, in: try render { $0.hidden = [.buildings] }) == 0)
    // POIs are on by default (the seed hides a category on request); a category hidden, or
    // only others shown, leaves no POI disc colour.
    let cafeColour = MapStyle.day.poiColor("restaurant")
    #expect(count(cafeColour, in: plain) > 50)
    #expect(count(cafeColour, in: try render { $0.hiddenPOIClasses = ["restaurant", "cafe", "fast_food", "bar"] }) == 0)
    #expect(count(cafeColour, in: try render { $0.showsAllPOIs = false }) == 0)
    #expect(count(cafeColour, in: try render { $0.showsAllPOIs = false; $0.shownPOIClasses = ["restaurant"] }) > 50)
    #expect(count(cafeColour, in: try render { $0.showsAllPOIs = false; $0.shownPOIClasses = ["fuel"] }) == 0)
    // Roads hidden: no minor-road white fill left on a white-free land.
    let noRoads = try render { $0.hidden = [.roads] }
    #expect(count(.white, in: noRoads) < count(.white, in: plain) / 4)
}

@Test func languagePreference_choosesNameLang() throws {
    let tagged = MapFeature(layer: .place, id: 1, source: .node, geometry: .points([MapPoint(SampleCity.center)]),
                            properties: [MapProperty("class", .string("city")), MapProperty("name", .string("Monaco")), MapProperty("name:ja", .string("モナコ"))],
                            minZoom: 4)
    guard let faces = try notoFaces() else { return }
    var style = MapStyle.day
    #expect(LabelPlacement(text: try TextRenderer(faces: faces), style: style, collisions: CollisionIndex()).name(tagged) == "Monaco")
    style.language = "ja"
    #expect(LabelPlacement(text: try TextRenderer(faces: faces), style: style, collisions: CollisionIndex()).name(tagged) == "モナコ")
    style.language = "ar"
    #expect(LabelPlacement(text: try TextRenderer(faces: faces), style: style, collisions: CollisionIndex()).name(tagged) == "Monaco", "no name:ar: the name")
}

@Test func golden_sampleCitySnapshot() throws {
    guard let faces = try notoFaces() else { return }
    let index = try sampleCityIndex()
    let centre = SampleCity.center
    let view = try MercatorViewport(center: centre, zoom: 16, orientation: 20, width: 360, height: 270)
    var painter = MapPainter(zoom: 16)
    painter.text = try TextRenderer(faces: faces)
    painter.style.showsAllPOIs = false
    painter.style.shownPOIClasses = ["restaurant", "cafe", "fuel", "parking"]
    var canvas = try Canvas(width: 360, height: 270, background: .white)
    let track = [centre.coordinate(at: .meters(300), facing: .degrees(250)), centre, centre.coordinate(at: .meters(250), facing: .degrees(30))]
    painter.paint(index, overlays: [
        .polyline(track),
        .circle(center: centre, radius: .meters(60)),
        .marker(centre.coordinate(at: .meters(120), facing: .degrees(120))),
    ], through: view, on: &canvas)
    try expectMatchesGolden(canvas.pixmap, "sample-city", tolerance: 24, maxDiffering: 200)
    // The attribution is in the bottom-right corner: dark text pixels there.
    let corner = (250..<360).flatMap { x in (256..<270).map { canvas.pixmap.color(x: x, y: $0) } }
    let attributed = corner.filter { $0.red < 110 }.count
    #expect(attributed > 30)
    // Raster tiles go without it (a street name may reach into the corner instead).
    painter.drawsAttribution = false
    var tile = try Canvas(width: 360, height: 270, background: .white)
    painter.paint(index, through: view, on: &tile)
    let bare = (250..<360).flatMap { x in (256..<270).map { tile.pixmap.color(x: x, y: $0) } }
    #expect(bare.filter { $0.red < 110 }.count < attributed / 5)
}
