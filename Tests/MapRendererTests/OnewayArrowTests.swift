import GeoCore
import MapData
@testable import MapRenderer
import Testing


/// One-way arrows along roads (OSM Carto's, from zoom 16).
struct OnewayArrowTests {
    /// A 300 px minor road running east through the middle of a 400 × 100 image.
    private func draw(oneway: Int64?, zoom: Double) throws -> Pixmap {
        let view = try MercatorViewport(center: Coordinate(uncheckedLatitude: 43.73, longitude: 7.42), zoom: zoom, width: 400, height: 100)
        let line = [view.world(at: Point(x: 50, y: 50)), view.world(at: Point(x: 350, y: 50))]
        var properties = [MapProperty("class", .string("minor"))]
        if let oneway { properties.append(MapProperty("oneway", .int(oneway))) }
        let road = MapFeature(layer: .transportation, id: 1, source: .way, geometry: .lines([line]), properties: properties, minZoom: 0)
        let painter = MapPainter(zoom: zoom)
        var canvas = try Canvas(width: 400, height: 100, background: painter.style.land)
        painter.paint(MapFeatureIndex([road]), through: view, on: &canvas)
        return canvas.pixmap
    }

    /// Columns holding arrow-coloured pixels (within 40 levels a channel), with how many each.
    private func arrowColumns(_ p: Pixmap) -> [Int: Int] {
        let c = MapPainter.onewayArrowColor
        var out: [Int: Int] = [:]
        for y in 0..<p.height {
            for x in 0..<p.width {
                let q = p.color(x: x, y: y)
                if abs(Int(q.red) - Int(c.red)) < 40, abs(Int(q.green) - Int(c.green)) < 40, abs(Int(q.blue) - Int(c.blue)) < 40 { out[x, default: 0] += 1 }
            }
        }
        return out
    }

    @Test func onewayRoad_hasArrowsPointingTheWayTrafficGoes() throws {
        for (oneway, east) in [(Int64(1), true), (-1, false)] {
            let columns = arrowColumns(try draw(oneway: oneway, zoom: 16))
            // Two arrows, 90 px and 270 px along the 300 px road (at x = 140 and 320), 14 px long.
            #expect((130...150).contains { columns[$0] != nil } && (310...330).contains { columns[$0] != nil }, "\(columns.keys.sorted())")
            #expect(columns.keys.allSatisfy { (130...150).contains($0) || (310...330).contains($0) })
            // The head narrows from its base (the tallest column) to the tip ahead of it.
            let around140 = columns.filter { (130...150).contains($0.key) }
            let base = try #require(around140.max { ($0.value, east ? -$0.key : $0.key) < ($1.value, east ? -$1.key : $1.key) }).key
            let tip = try #require(east ? around140.keys.max() : around140.keys.min())
            #expect(east ? tip >= base + 3 : tip <= base - 3, "oneway \(oneway): \(around140.sorted { $0.key < $1.key })")
        }
    }

    @Test func arrows_onlyFromZoom16_andOnlyOnOnewayRoads() throws {
        #expect(arrowColumns(try draw(oneway: 1, zoom: 15)).isEmpty)
        #expect(arrowColumns(try draw(oneway: nil, zoom: 17)).isEmpty)
        #expect(!arrowColumns(try draw(oneway: 1, zoom: 17)).isEmpty)
    }

    /// A 500 px one-way minor road running east across a 600 × 100 image at z16, named
    /// "Boulevard de Suisse": arrows would go 90, 270 and 450 px along it (x = 140, 320, 500),
    /// and the name is centred on the road's middle (x = 300), over the second arrow's place.
    private func namedOnewayRoad() throws -> (MercatorViewport, MapFeatureIndex) {
        let view = try MercatorViewport(center: Coordinate(uncheckedLatitude: 43.73, longitude: 7.42), zoom: 16, width: 600, height: 100)
        let line = [view.world(at: Point(x: 50, y: 50)), view.world(at: Point(x: 550, y: 50))]
        let road = MapFeature(layer: .transportation, id: 1, source: .way, geometry: .lines([line]),
                              properties: [MapProperty("class", .string("minor")), MapProperty("oneway", .int(1))], minZoom: 0)
        let name = MapFeature(layer: .transportationName, id: 1, source: .way, geometry: .lines([line]),
                              properties: [MapProperty("class", .string("minor")), MapProperty("name", .string("Boulevard de Suisse"))], minZoom: 0)
        return (view, MapFeatureIndex([road, name]))
    }

    /// Arrows are symbols placed after the labels: none inside a placed label's box (the arrow
    /// under the street name is hidden), the others stay.
    @Test func arrowUnderAStreetName_isHidden() throws {
        guard let faces = try notoFaces() else { return }
        let (view, index) = try namedOnewayRoad()
        var painter = MapPainter(zoom: 16)
        painter.text = try TextRenderer(faces: faces)
        painter.drawsAttribution = false
        let placed = try painter.placedLabels(index, through: view, width: 600, height: 100)
        // The street name: one box per glyph; an arrow: one box around its 14 px.
        let names = placed.filter { $0.boxes.count > 1 }, arrows = placed.filter { $0.boxes.count == 1 }
        try #require(names.count == 1, "the name is placed")
        let nameBoxes = names[0].boxes
        #expect(nameBoxes.map(\.minX).min()! < 320 && nameBoxes.map(\.maxX).max()! > 320, "the name covers the middle arrow's place")
        for arrow in arrows {
            #expect(!nameBoxes.contains { $0.intersects(arrow.boxes[0]) }, "arrow at \(arrow.anchor) inside the name's boxes")
        }
        #expect(arrows.map { Int($0.anchor.x.rounded()) }.sorted() == [140, 500], "\(arrows.map(\.anchor))")

        // Drawn in one pass on an image: no arrow-coloured pixel under the name.
        var canvas = try Canvas(width: 600, height: 100, background: painter.style.land)
        painter.paint(index, through: view, on: &canvas)
        let columns = arrowColumns(canvas.pixmap)
        #expect(columns.keys.allSatisfy { (130...150).contains($0) || (490...510).contains($0) }, "\(columns.keys.sorted())")
    }
}
