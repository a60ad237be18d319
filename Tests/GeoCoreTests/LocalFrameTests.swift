import Foundation
import Testing
import GeoBase
@testable import GeoCore

// Radii of curvature on WGS84 (NIMA TR8350.2 §3): M = a(1 − e²) and N = a at the equator,
// M = N = a²/b at the poles (a = 6378137 m, 1/f = 298.257223563). The scales per degree at
// the equator follow: M·π/180 = 110574.2758 m of latitude, a·π/180 = 111319.4908 m of longitude.
@Test func radiiOfCurvature_matchWGS84AtEquatorAndPole() {
    let e = Ellipsoid.wgs84
    let equator = e.radiiOfCurvature(sinSquaredLatitude: 0)
    #expect(abs(equator.meridional - 6_335_439.327) < 1e-3) // metres
    #expect(abs(equator.primeVertical - 6_378_137) < 1e-6) // metres
    let pole = e.radiiOfCurvature(sinSquaredLatitude: 1)
    #expect(abs(pole.meridional - 6_399_593.626) < 1e-3) // metres
    #expect(abs(pole.primeVertical - 6_399_593.626) < 1e-3) // metres
}

@Test func localFrame_metresPerDegreeAtTheEquator() {
    let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 0, longitude: 0))
    #expect(abs(frame.metersPerDegreeLatitude - 110_574.2758) < 1e-3) // metres
    #expect(abs(frame.metersPerDegreeLongitude - 111_319.4908) < 1e-3) // metres
    // At a pole a degree of longitude has no length; the frame keeps it at 1 mm.
    #expect(LocalFrame(origin: Coordinate(uncheckedLatitude: 90, longitude: 0)).metersPerDegreeLongitude == 1e-3)
}

/// The flat frame agrees with the exact ENU frame near its origin: within 1 cm at 100 m in
/// a seeded sweep of origins (|latitude| ≤ 60°) and offsets. (Further out they part by about
/// `d²·tan φ/2N`: the frame keeps parallels straight, the tangent plane does not.)
@Test func localFrame_agreesWithTheTangentPlaneNearTheOrigin() {
    var rng = SplitMix64(seed: 11)
    for _ in 0..<2_000 {
        let origin = Coordinate(uncheckedLatitude: rng.uniform(-60, 60), longitude: rng.uniform(-180, 180))
        let frame = LocalFrame(origin: origin), plane = LocalTangentPlane(origin: origin)
        let east = rng.uniform(-100, 100), north = rng.uniform(-100, 100)
        let p = frame.coordinate(east: east, north: north)
        let exact = plane.enu(of: p)
        #expect(abs(exact.east - east) < 0.01 && abs(exact.north - north) < 0.01, "at \(origin) + (\(east), \(north)) m")
        let back = frame.point(for: p)
        #expect(abs(back.east - east) < 1e-6 && abs(back.north - north) < 1e-6, "round trip at \(origin)") // metres
    }
}

/// The frame's three distances measure short lines alike: within 1e-4 relative of the WGS84
/// geodesic up to 1 km at |latitude| ≤ 70°, the constant-scale planar one within 1e-3.
@Test func localFrame_distancesAgreeWithTheGeodesic() throws {
    var rng = SplitMix64(seed: 12)
    for _ in 0..<2_000 {
        let a = Coordinate(uncheckedLatitude: rng.uniform(-70, 70), longitude: rng.uniform(-180, 180))
        let frame = LocalFrame(origin: a)
        let b = frame.coordinate(east: rng.uniform(-700, 700), north: rng.uniform(-700, 700))
        let geodesic = a.distance(to: b).meters
        try #require(geodesic > 1)
        #expect(abs(LocalFrame.distance(a, b) - geodesic) / geodesic < 1e-4, "\(a) → \(b)")
        #expect(abs(frame.distance(a, b) - geodesic) / geodesic < 1e-4, "\(a) → \(b)")
        #expect(abs(frame.planarDistance(a, b) - geodesic) / geodesic < 1e-3, "\(a) → \(b)")
    }
}

@Test func localFrame_wrapsAcrossTheAntimeridian() {
    let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 10, longitude: 179.9995))
    let across = Coordinate(uncheckedLatitude: 10, longitude: -179.9995)
    let expected = 0.001 * frame.metersPerDegreeLongitude
    #expect(abs(frame.point(for: across).east - expected) < 1e-6) // metres
    #expect(abs(frame.planarDistance(frame.origin, across) - expected) < 1e-6) // metres
    #expect(abs(LocalFrame.distance(frame.origin, across) - expected) < 1e-3) // metres
}

/// The frame's cosine series (cos φ₀ and sin φ₀ once per frame, no division) stays within its
/// documented bound of libm's `cos`: 1e-13 within 0.01 rad of the origin's latitude, in a seeded
/// sweep of origins up to ±89° (the terms left out are d⁶/720 + d⁷/5040 ≈ 1.4e-15 at 0.01 rad).
@Test func localFrame_cosineSeriesWithinItsBound() {
    var rng = SplitMix64(seed: 13)
    var worst = 0.0
    for _ in 0..<20_000 {
        let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: rng.uniform(-89, 89), longitude: 0))
        let phi = frame.latitude0 + rng.uniform(-0.00999, 0.00999)
        worst = max(worst, abs(frame.cosine(phi) - cos(phi)))
    }
    #expect(worst < 1e-13, "largest difference from cos: \(worst)")
}

/// `LocalFrame.distance` (the filters' hop measure, through the cosine series) against
/// GeographicLib's geodesic lengths on the short legs of scripts/oracles/geodesic_legs_fixture.py
/// (1 cm to 1.4 km, latitudes up to ±89°, across the antimeridian), the frame at the leg's
/// start: within 1e-5 relative, the bound its documentation states (the frame's radii instead
/// of the midpoint's; the worst leg here is 2.4e-6).
@Test func localFrame_distanceMatchesGeographicLibOnShortLegs() throws {
    let rows = try GeodesicFixture.rows("geodesic-legs.tsv")
    var worst = 0.0, checked = 0
    for (kind, v) in rows where ["track", "polar", "antimeridian", "equator"].contains(kind) && abs(v[0]) < 89 {
        let a = Coordinate(uncheckedLatitude: v[0], longitude: v[1]), b = Coordinate(uncheckedLatitude: v[2], longitude: v[3])
        let s = LocalFrame(origin: a).distance(a, b)
        worst = max(worst, abs(s - v[4]) / v[4])
        checked += 1
    }
    #expect(checked > 1800)
    #expect(worst < 1e-5, "largest relative difference from GeographicLib: \(worst)")
}
