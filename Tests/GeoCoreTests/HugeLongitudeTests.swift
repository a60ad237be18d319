import Testing
import GeoCore

// GeographicLib reduces any finite longitude exactly (Math::AngNormalize is
// std::remainder(x, 360), an IEEE operation without rounding error), so a longitude of 1e17
// is the same meridian as -80°. LocationKit reduces, as GeographicLib does, rather than
// rejecting: every finite longitude names a meridian. Expected values are std::remainder's
// (the same IEEE remainder as Python's math.remainder), with +180 mapped to -180.

@Test(arguments: [
    (1e17, -80.0), (-1e17, 80.0), (1e300, 0.0), (540.0, -180.0), (-540.0, -180.0),
    (1_152_921_504_606_846_976.0, 136.0), (1.8e19, 0.0), (180.0, -180.0), (-180.0, -180.0), (359.5, -0.5),
])
func normalizedLongitude_reducesExactlyAsGeographicLib(longitude: Double, expected: Double) {
    #expect(Coordinate.normalizedLongitude(longitude) == expected, "exact, 0° tolerance")
}

@Test func distance_atHugeLongitude_equalsTheReducedMeridian() throws {
    let huge = try Coordinate(latitude: 10, longitude: 1e17)
    let reduced = try Coordinate(latitude: 10, longitude: -80)
    let east = try Coordinate(latitude: 10, longitude: 100)
    #expect(huge.longitude == -80)
    #expect(Geodesic.wgs84.inverse(from: huge, to: reduced).distance.meters == 0, "the same point")
    let viaHuge = Geodesic.wgs84.inverse(from: huge, to: east)
    let viaReduced = Geodesic.wgs84.inverse(from: reduced, to: east)
    #expect(viaHuge.distance.meters == viaReduced.distance.meters, "0 m tolerance")
    // The raw-degree entry point (the batch path) reduces the same way.
    let raw = Geodesic.wgs84.inverse(fromLatitude: 10, longitude: 1e17, toLatitude: 10, longitude: 100)
    #expect(abs(raw.distance.meters - viaReduced.distance.meters) < 1e-6, "within 1 µm")
}
