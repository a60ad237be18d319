import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import Monitoring

/// Rice CDF values from SciPy 1.17.1, `scipy.stats.rice.cdf(R, b=ν)` with σ = 1: (ν, R, P).
private let scipyRice: [(Double, Double, Double)] = [
    (0.0, 1.0, 0.3934693403), (0.5, 1.0, 0.3572857697), (2.0, 1.0, 0.0818923036), (1.0, 1.0, 0.2671201962),
    (1.5, 1.0, 0.1637809772), (2.5, 1.0, 0.0331828796), (4.0, 1.0, 0.0005899491), (0.0, 3.0, 0.9888910035),
    (0.5, 3.0, 0.9821563266), (2.0, 3.0, 0.7856379118), (1.5, 3.0, 0.8961730900), (2.5, 3.0, 0.6230101434),
    (3.0, 3.0, 0.4325202377), (3.5, 3.0, 0.2556596037), (4.5, 3.0, 0.0508178853), (6.0, 3.0, 0.0009144227),
    (8.5, 10.0, 0.9258724592), (9.5, 10.0, 0.6731459410), (10.0, 10.0, 0.4800278104), (10.5, 10.0, 0.2915478558),
    (11.5, 10.0, 0.0609730740), (13.0, 10.0, 0.0011681087), (17.5, 19.0, 0.9295669872), (18.5, 19.0, 0.6820072424),
    (19.0, 19.0, 0.4894978780), (19.5, 19.0, 0.2994485412), (20.5, 19.0, 0.0635872090), (22.0, 19.0, 0.0012454536),
]

@Test func rice_matchesSciPy_within1e5() {
    for (nu, r, expected) in scipyRice {
        for sigma in [1.0, 9.94] { // the CDF scales: distances in σ
            let p = InsideProbability.rice(distance: nu * sigma, radius: r * sigma, sigma: sigma)
            #expect(abs(p - expected) < 1e-5, "ν = \(nu) σ, R = \(r) σ, σ = \(sigma) m: \(p) vs SciPy \(expected)")
        }
    }
}

/// The fraction of `n` seeded normal offsets (σ per axis) around the fix that land inside.
private func monteCarlo(_ inside: (Double, Double) -> Bool, sigma: Double, n: Int = 20_000, seed: UInt64) -> Double {
    var rng = SplitMix64(seed: seed)
    var hits = 0
    for _ in 0..<n where inside(rng.gaussian() * sigma, rng.gaussian() * sigma) { hits += 1 }
    return Double(hits) / Double(n)
}

/// Monte Carlo (20,000 seeded draws: standard error ≤ 0.0036) against the closed forms on a grid
/// of distances and accuracies, for a 100 m circle: the Rice CDF where R < 20 σ, the normal
/// approximation above. Tolerance 0.015 (four standard errors plus the normal approximation's
/// 0.01 at R = 20 σ).
@Test(.onOwnThread) func circleProbability_matchesMonteCarlo() {
    let radius = 100.0
    var seed: UInt64 = 1
    for accuracy in [2.0, 5.0, 15.0, 40.0, 100.0, 300.0] {
        let sigma = InsideProbability.sigma(accuracy: accuracy)
        for distance in stride(from: 0.0, through: 220, by: 20) {
            seed += 1
            let closed = InsideProbability.circle(distance: distance, radius: radius, sigma: sigma)
            let mc = monteCarlo({ ((distance + $0) * (distance + $0) + $1 * $1).squareRoot() <= radius }, sigma: sigma, seed: seed)
            #expect(abs(closed - mc) < 0.015, "accuracy \(accuracy) m, \(distance) m from the centre: \(closed) vs Monte Carlo \(mc)")
        }
    }
}

/// The same for a polygon (a 200 m × 60 m rectangle with a 20 m square hole, wound clockwise):
/// cubature where it is small against the error, the normal approximation on the signed distance
/// where it is large. Tolerance 0.02 for the normal approximation (corners make it optimistic:
/// points are taken at least 3 σ from the corners along the long side), 0.015 for cubature.
@Test(.onOwnThread) func polygonProbability_matchesMonteCarlo() throws {
    let frame = LocalFrame(origin: try Coordinate(latitude: 48.85, longitude: 2.35))
    func ring(_ points: [(Double, Double)]) -> [Coordinate] {
        (points + [points[0]]).map { frame.coordinate(east: $0.0, north: $0.1) }
    }
    let region = try PolygonRegion(polygons: [[ring([(-100, -30), (-100, 30), (100, 30), (100, -30)]),
                                               ring([(40, -10), (60, -10), (60, 10), (40, 10)])]])
    var seed: UInt64 = 100
    for accuracy in [1.5, 3.0, 10.0, 30.0] {
        let sigma = InsideProbability.sigma(accuracy: accuracy)
        for north in stride(from: -60.0, through: 60, by: 10) {
            for east in [-20.0, 50.0] {
                seed += 1
                let c = frame.coordinate(east: east, north: north)
                let q = region.frame.point(for: c)
                let closed = InsideProbability.polygon(region, east: q.east, north: q.north, sigma: sigma)
                let mc = monteCarlo({ region.contains(east: q.east + $0, north: q.north + $1) }, sigma: sigma, seed: seed)
                let tolerance = region.minimumExtent >= InsideProbability.largeRegionRatio * sigma ? 0.02 : 0.015
                #expect(abs(closed - mc) < tolerance, "accuracy \(accuracy) m at (\(east), \(north)) m: \(closed) vs Monte Carlo \(mc)")
            }
        }
    }
}

@Test func normalApproximation_isWithin001OfRice_atTwentySigma() {
    // The switch point: a circle of 20 σ; worst case near the boundary.
    var worst = 0.0
    for s in stride(from: -4.0, through: 4, by: 0.1) {
        let rice = InsideProbability.rice(distance: 20 - s, radius: 20, sigma: 1)
        worst = max(worst, abs(rice - InsideProbability.normal(signedDistance: s, sigma: 1)))
    }
    #expect(worst < 0.0105, "worst difference \(worst)")
}
