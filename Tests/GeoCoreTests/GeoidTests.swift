import Foundation
import Testing
import GeoCore
import GeoTestSupport
import GeoBase

/// Rows of `Fixtures/geoid-egm96.tsv`: latitude, longitude, PROJ's EGM96 geoid height (cct
/// vgridshift over egm96_15.gtx, see scripts/oracles/geoid_fixture.py), and whether the point is
/// a random one (the named ones include the steepest geoid on land).
private func projRows() throws -> [(coordinate: Coordinate, n: Double, random: Bool)] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/geoid-egm96.tsv")
    let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }
    try #require(rows.count >= 400, "fixture has too few rows")
    return try rows.map { row in
        let f = row.split(separator: "\t").map { Double(String($0)) }
        let lat = try #require(f[0]), lon = try #require(f[1]), n = try #require(f[2])
        return (try Coordinate(latitude: lat, longitude: lon), n, row.hasSuffix("\trandom"))
    }
}

@Test func geoid_gtxGrid_matchesPROJ() throws {
    guard let geoid = try Fixtures.projEGM96() else { return }
    #expect(geoid.rows == 721 && geoid.columns == 1440)
    for (c, n, _) in try projRows() {
        let ours = try #require(geoid.separation(at: c), "no height at \(c)").meters
        // Same Float32 grid and the same bilinear interpolation; cct prints 6 decimals.
        #expect(abs(ours - n) < 1e-5, "N at \(c): \(ours) vs PROJ \(n)") // metres
    }
}

@Test func geoid_regionalGrid_interpolatesInsideAndAnswersNilOutside() throws {
    // A 2 × 3 grid from 10° N, 20° E every 1°: heights 0, 1, 2 (south row), 10, 11, NaN (north).
    let geoid = try Geoid(name: "test", south: 10, west: 20, latitudeSpacing: 1, longitudeSpacing: 1,
                          rows: 2, columns: 3, heights: [0, 1, 2, 10, 11, .nan])
    #expect(geoid.separation(at: try Coordinate(latitude: 10.5, longitude: 20.5))?.meters == 5.5) // mean of 0, 1, 10, 11
    #expect(geoid.separation(at: try Coordinate(latitude: 10, longitude: 20.25))?.meters == 0.25)
    #expect(geoid.separation(at: try Coordinate(latitude: 11, longitude: 20))?.meters == 10)
    #expect(geoid.separation(at: try Coordinate(latitude: 10.5, longitude: 21.5)) == nil, "next to a node without data")
    #expect(geoid.separation(at: try Coordinate(latitude: 9.9, longitude: 20.5)) == nil, "south of the grid")
    #expect(geoid.separation(at: try Coordinate(latitude: 10.5, longitude: 22.1)) == nil, "east of the grid")
    // The same grid given in 0…360° longitudes (west 340° = 20° W) answers at -19.5°.
    let west = try Geoid(name: "test", south: 10, west: 340, latitudeSpacing: 1, longitudeSpacing: 1,
                         rows: 2, columns: 3, heights: [0, 1, 2, 10, 11, .nan])
    #expect(west.separation(at: try Coordinate(latitude: 10.5, longitude: -19.5))?.meters == 5.5)
    #expect(west.separation(at: try Coordinate(latitude: 10.5, longitude: 20.5)) == nil)
}

@Test func geoid_badGTX_throwsWithTheByteAtFault() throws {
    func header(rows: Int32, columns: Int32, spacing: Double = 0.25) -> [UInt8] {
        var bytes: [UInt8] = []
        for d in [-90.0, -180.0, spacing, spacing] { bytes += withUnsafeBytes(of: d.bitPattern.bigEndian, Array.init) }
        for i in [rows, columns] { bytes += withUnsafeBytes(of: i.bigEndian, Array.init) }
        return bytes
    }
    #expect {
        try Geoid(gtx: [UInt8](repeating: 0, count: 12), name: "short.gtx")
    } throws: { ($0 as? GeoCoreError)?.code == .invalidGeoidGrid && "\($0)".contains("byte 12") }
    #expect {
        try Geoid(gtx: header(rows: 721, columns: 1440) + [UInt8](repeating: 0, count: 100), name: "cut.gtx")
    } throws: { ($0 as? GeoCoreError)?.code == .invalidGeoidGrid && "\($0)".contains("byte 32") && "\($0)".contains("found 140") }
    #expect {
        try Geoid(gtx: header(rows: .max, columns: .max), name: "huge.gtx")
    } throws: { ($0 as? GeoCoreError)?.code == .invalidGeoidGrid && "\($0)".contains("found 40") }
    #expect {
        try Geoid(gtx: header(rows: -1, columns: 4), name: "negative.gtx")
    } throws: { ($0 as? GeoCoreError)?.code == .invalidGeoidGrid }
    #expect {
        try Geoid(gtx: header(rows: 2, columns: 2, spacing: 0) + [UInt8](repeating: 0, count: 16), name: "flat.gtx")
    } throws: { ($0 as? GeoCoreError)?.code == .invalidGeoidGrid && "\($0)".contains("spacing") }
}
