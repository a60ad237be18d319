import Foundation
import Testing
import GeoBase
import GeoCore

/// Rows of `Fixtures/projections.tsv` (PROJ and mercantile values, see scripts/oracles).
private func fixtureRows(_ kind: String) throws -> [[Substring]] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/projections.tsv")
    let text = try String(contentsOf: url, encoding: .utf8)
    let rows = text.split(separator: "\n").map { $0.split(separator: "\t") }.filter { $0.first.map(String.init) == kind }
    try #require(rows.count >= 300, "fixture has too few \(kind) rows")
    return rows
}

private func number(_ s: Substring) throws -> Double { try #require(Double(String(s)), "not a number: \(s)") }

@Test func ecef_matchesPROJ() throws {
    for row in try fixtureRows("ecef") {
        let (lat, lon, h) = (try number(row[1]), try number(row[2]), try number(row[3]))
        let p = try Coordinate(latitude: lat, longitude: lon).ecef(height: h)
        // PROJ's geodetic→geocentric is exact; 0.1 mm allows for rounding at 6.4e6 m.
        #expect(abs(p.x - (try number(row[4]))) < 1e-4, "x at \(lat),\(lon)") // metres
        #expect(abs(p.y - (try number(row[5]))) < 1e-4, "y at \(lat),\(lon)")
        #expect(abs(p.z - (try number(row[6]))) < 1e-4, "z at \(lat),\(lon)")
        let back = Coordinate.fromECEF(p)
        #expect(abs(back.coordinate.latitude - lat) < 1e-11, "latitude round trip at \(lat),\(lon)") // degrees ≈ 1 µm
        if abs(lat) < 90 {
            #expect(abs(Bearing(degrees: back.coordinate.longitude).turn(to: Bearing(degrees: lon))) < 1e-11)
        }
        #expect(abs(back.height - h) < 1e-6, "height round trip at \(lat),\(lon)") // metres
    }
}

@Test func webMercator_matchesPROJ() throws {
    for row in try fixtureRows("mercator") {
        let c = try Coordinate(latitude: try number(row[1]), longitude: try number(row[2]))
        let p = WebMercator.project(c)
        #expect(abs(p.x - (try number(row[3]))) < 1e-6, "x at \(c)") // metres
        #expect(abs(p.y - (try number(row[4]))) < 1e-6, "y at \(c)") // metres
        let back = WebMercator.unproject(x: p.x, y: p.y)
        #expect(abs(back.latitude - c.latitude) < 1e-12 && abs(back.longitude - c.longitude) < 1e-12, "round trip at \(c)")
    }
}

@Test func tiles_matchMercantile() throws {
    for row in try fixtureRows("tile") {
        let c = try Coordinate(latitude: try number(row[1]), longitude: try number(row[2]))
        let tile = try Tile(containing: c, zoom: Int(String(row[3])) ?? -1)
        #expect(tile.x == Int(String(row[4])) && tile.y == Int(String(row[5])), "tile of \(c) at z\(tile.zoom)")
        let b = tile.bounds
        for (got, want) in [(b.south, row[6]), (b.west, row[7]), (b.north, row[8]), (b.east, row[9])] {
            #expect(abs(got - (try number(want))) < 1e-9, "bounds of \(tile)") // degrees
        }
        #expect(tile.quadkey == (row.count > 10 ? String(row[10]) : ""), "quadkey of \(tile)")
    }
}

@Test func tile_rejectsOutOfRange() {
    #expect(throws: GeoCoreError.self) { try Tile(x: 4, y: 0, zoom: 2) }
    #expect(throws: GeoCoreError.self) { try Tile(x: 0, y: 0, zoom: 31) }
    #expect(throws: GeoCoreError.self) { try Tile(containing: Coordinate(latitude: 0, longitude: 0), zoom: -1) }
}

@Test func tile_parentAndChildrenNest() throws {
    let t = try Tile(x: 2200, y: 1343, zoom: 12)
    #expect(t.parent == (try Tile(x: 1100, y: 671, zoom: 11)))
    #expect(t.children.count == 4)
    #expect(t.children.allSatisfy { $0.parent == t })
}

@Test func tilesCovering_crossesAntimeridian() throws {
    let box = try BoundingBox(south: -1, west: 179, north: 1, east: -179)
    let tiles = try Tile.covering(box, zoom: 3)
    // At z3 each column is 45° wide: the box touches the last and the first column, rows 3 and 4.
    #expect(Set(tiles) == Set([try Tile(x: 7, y: 3, zoom: 3), try Tile(x: 7, y: 4, zoom: 3),
                               try Tile(x: 0, y: 3, zoom: 3), try Tile(x: 0, y: 4, zoom: 3)]))
}

@Test func enu_roundTripsAndMeasuresUp() throws {
    let origin = try Coordinate(latitude: 43.7384, longitude: 7.4246)
    let plane = LocalTangentPlane(origin: origin, height: 50)
    let above = plane.enu(of: origin, height: 150)
    #expect(abs(above.up - 100) < 1e-6 && abs(above.east) < 1e-6 && abs(above.north) < 1e-6) // metres
    var rng = SplitMix64(seed: 3)
    for _ in 0..<200 {
        let offset = ENU(east: .random(in: -50_000...50_000, using: &rng), north: .random(in: -50_000...50_000, using: &rng),
                         up: .random(in: -100...3000, using: &rng))
        let (c, h) = plane.coordinate(of: offset)
        let back = plane.enu(of: c, height: h)
        #expect(abs(back.east - offset.east) < 1e-6 && abs(back.north - offset.north) < 1e-6 && abs(back.up - offset.up) < 1e-6,
                "round trip of \(offset)") // metres
    }
}

@Test func enu_axesPointEastAndNorth() throws {
    let plane = LocalTangentPlane(origin: try Coordinate(latitude: 0, longitude: 0))
    let east = plane.enu(of: try Coordinate(latitude: 0, longitude: 0.001))
    let north = plane.enu(of: try Coordinate(latitude: 0.001, longitude: 0))
    // 0.001° of longitude on the equator is a·π/180·0.001 = 111.319 m; the chord is shorter by < 1 mm.
    #expect(abs(east.east - 111.319_490_8) < 1e-3 && abs(east.north) < 1e-9) // metres
    #expect(north.north > 110 && north.north < 111 && abs(north.east) < 1e-9) // metres
}
