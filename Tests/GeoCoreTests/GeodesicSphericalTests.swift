import Foundation
import Testing
import GeoBase
import GeoCore

/// Checks the documented error bounds of `Spherical` against the geodesic (itself checked
/// against GeographicLib in GeodesicTests) on seeded sweeps.

private func randomPoint(_ rng: inout SplitMix64, maxLatitude: Double = 90) -> Coordinate {
    // Uniform on the sphere's area, clipped to ±maxLatitude.
    let lat = asin(rng.uniform(-1, 1) * sin(maxLatitude * .pi / 180)) * 180 / .pi
    return Coordinate(uncheckedLatitude: lat, longitude: rng.uniform(-180, 180))
}

@Test func haversine_within0point6PercentOfGeodesic_seededSweep() {
    var rng = SplitMix64(seed: 11)
    var worst = 0.0
    for k in 0..<20_000 {
        let a = randomPoint(&rng)
        var b = randomPoint(&rng)
        if k % 2 == 0 { // half of them short, 1 m to 1000 km
            let d = pow(10, rng.uniform(0, 6))
            b = a.coordinate(at: .meters(d), facing: .degrees(rng.uniform(0, 360)))
        }
        let geodesic = a.distance(to: b).meters
        guard geodesic > 0 else { continue }
        worst = max(worst, abs(Spherical.distance(from: a, to: b).meters - geodesic) / geodesic)
    }
    #expect(worst < 0.006, "worst relative error \(worst)") // documented bound 0.6 %
    #expect(worst > 0.004, "worst relative error \(worst)") // the sweep does reach the flattening's effect
}

@Test func sphericalBearing_within0point2DegreesUpTo10000km_seededSweep() {
    var rng = SplitMix64(seed: 12)
    var worst = 0.0
    for _ in 0..<20_000 {
        let a = randomPoint(&rng), b = randomPoint(&rng)
        let g = Geodesic.wgs84.inverse(from: a, to: b)
        guard g.distance.meters <= 10_000_000 else { continue }
        worst = max(worst, abs(g.initialBearing.turn(to: Spherical.initialBearing(from: a, to: b))))
    }
    #expect(worst < 0.2, "worst bearing error \(worst)°") // documented bound 0.2°
}

@Test(arguments: [
    // (max latitude °, max distance m, documented relative bound)
    (70.0, 1_000.0, 1e-8), (70.0, 10_000.0, 1e-6), (70.0, 100_000.0, 1e-4),
    (80.0, 1_000.0, 1e-7), (80.0, 10_000.0, 4e-6), (80.0, 100_000.0, 4e-4),
    (85.0, 1_000.0, 2e-7), (85.0, 10_000.0, 2e-5), (85.0, 100_000.0, 2e-3),
    (70.0, 1_000_000.0, 0.01), (80.0, 1_000_000.0, 0.03), (85.0, 1_000_000.0, 0.15),
])
func equirectangular_withinDocumentedBound_seededSweep(maxLatitude: Double, maxDistance: Double, bound: Double) {
    var rng = SplitMix64(seed: 13)
    var worst = 0.0
    for _ in 0..<20_000 {
        let a = randomPoint(&rng, maxLatitude: maxLatitude)
        let d = rng.uniform(0, 1) * maxDistance
        let b = a.coordinate(at: .meters(d), facing: .degrees(rng.uniform(0, 360)))
        guard abs(b.latitude) <= maxLatitude, d > 0 else { continue }
        worst = max(worst, abs(Spherical.equirectangularDistance(from: a, to: b).meters - d) / d)
    }
    #expect(worst < bound, "worst relative error \(worst) within ±\(maxLatitude)° up to \(maxDistance) m")
}

@Test func equirectangular_wrapsAcrossAntimeridian() throws {
    let a = try Coordinate(latitude: 10, longitude: 179.999)
    let b = try Coordinate(latitude: 10, longitude: -179.999)
    let geodesic = a.distance(to: b).meters
    #expect(abs(Spherical.equirectangularDistance(from: a, to: b).meters - geodesic) < 1e-3) // metres
    #expect(abs(Spherical.distance(from: a, to: b).meters - geodesic) / geodesic < 0.006)
}
