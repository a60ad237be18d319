import Foundation
import GeoCore
import Testing

/// `Geodesic.distance` against GeographicLib (legs of 10 m and more) and the exact chord
/// (shorter legs), fixture from scripts/oracles/geodesic_legs_fixture.py: within 1e-9
/// relative everywhere, and within the stated bound s²/(48 ρ²) on the chord path.
@Test func distance_legs_withinOneBillionthOfGeographicLib() throws {
    let rows = try GeodesicFixture.rows("geodesic-legs.tsv")
    #expect(rows.count > 2500)
    let rho = Ellipsoid.wgs84.equatorialRadius * (1 - Ellipsoid.wgs84.flattening) * (1 - Ellipsoid.wgs84.flattening)
    var failures: [String] = []
    var worst: [String: Double] = [:]
    for (kind, v) in rows {
        let s = Geodesic.wgs84.distance(fromLatitude: v[0], longitude: v[1], toLatitude: v[2], longitude: v[3])
        if v[4] == 0 {
            if s != 0 { failures.append("\(kind) \(v): \(s) m for coincident points") }
            continue
        }
        let relative = abs(s - v[4]) / v[4]
        worst[kind] = max(worst[kind] ?? 0, relative)
        // The proven bound on the chord path, plus the reference's own uncertainty: 1e-14
        // relative for the exact chord (legs under 10 m), 2 nm for GeographicLib's round-off.
        let reference = v[4] < 10 ? 1e-14 : 2e-9 / v[4]
        let bound = v[4] <= Geodesic.chordLegLimit ? v[4] * v[4] / (48 * rho * rho) * 1.01 + reference : 1e-9
        if relative > min(1e-9, bound) {
            failures.append("\(kind) \(v[0]) \(v[1]) \(v[2]) \(v[3]): \(s) m vs \(v[4]) m, relative \(relative)")
        }
    }
    print("distance: worst relative error by kind \(worst)")
    #expect(Set(worst.keys) == ["track", "tiny", "polar", "antimeridian", "equator", "long"])
    #expect(failures.isEmpty, "\(failures.count) failures, first: \(failures.prefix(10).joined(separator: "\n"))")
}

@Test func distance_outOfRangeLatitude_isNaN() {
    #expect(Geodesic.wgs84.distance(fromLatitude: 91, longitude: 0, toLatitude: 0, longitude: 0).isNaN)
    #expect(Geodesic.wgs84.distance(fromLatitude: 0, longitude: .nan, toLatitude: 0, longitude: 0).isNaN)
    #expect(Geodesic.wgs84.distance(fromLatitude: 0, longitude: .infinity, toLatitude: 0, longitude: 0).isNaN)
}
