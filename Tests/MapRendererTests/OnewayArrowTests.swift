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
}
