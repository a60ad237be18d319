import Testing
import GeoBase
import GeoCore
import GeoTestSupport

/// The closest point by brute force: the geodesic start→end sampled every millimetre-ish step.
private func bruteForceClosest(_ p: Coordinate, _ a: Coordinate, _ b: Coordinate) -> Double {
    let line = Geodesic.wgs84.inverse(from: a, to: b)
    let steps = 20_000
    var best = Double.infinity
    for i in 0...steps {
        let q = a.coordinate(at: line.distance * (Double(i) / Double(steps)), facing: line.initialBearing)
        best = min(best, p.distance(to: q).meters)
    }
    return best
}

@Test(.onOwnThread) func segmentProjection_matchesBruteForceOnRoadSizedSegments() throws {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<40 {
        let a = try Coordinate(latitude: rng.uniform(-70, 70), longitude: rng.uniform(-180, 180))
        // Segments up to 2 km, query points up to 500 m away: the sizes of road edges and GPS error.
        let b = a.coordinate(at: .meters(rng.uniform(10, 2000)), facing: .degrees(rng.uniform(0, 360)))
        let p = a.coordinate(at: .meters(rng.uniform(0, 2500)), facing: .degrees(rng.uniform(0, 360)))
        let projection = p.projected(onSegmentFrom: a, to: b)
        let brute = bruteForceClosest(p, a, b)
        // Sampling step ≤ 0.1 m bounds the brute-force error; the planar foot is within 5 cm.
        #expect(abs(projection.distance.meters - brute) < 0.05, "p=\(p) a=\(a) b=\(b)") // metres
        #expect(projection.fraction >= 0 && projection.fraction <= 1)
    }
}

@Test func segmentProjection_clampsToTheEnds() throws {
    let a = try Coordinate(latitude: 0, longitude: 0), b = try Coordinate(latitude: 0, longitude: 0.01)
    let before = try Coordinate(latitude: 0.001, longitude: -0.005).projected(onSegmentFrom: a, to: b)
    #expect(before.fraction == 0 && before.coordinate == a)
    let middle = try Coordinate(latitude: 0.001, longitude: 0.005).projected(onSegmentFrom: a, to: b)
    #expect(abs(middle.fraction - 0.5) < 1e-9)
    // 0.001° of latitude at the equator is 110.574 m (GeographicLib).
    #expect(abs(middle.distance.meters - 110.574) < 0.01) // metres
}

@Test func segmentProjection_acrossTheAntimeridian() throws {
    let a = try Coordinate(latitude: 10, longitude: 179.99), b = try Coordinate(latitude: 10, longitude: -179.99)
    let p = try Coordinate(latitude: 10.0001, longitude: 180)
    let projection = p.projected(onSegmentFrom: a, to: b)
    #expect(abs(projection.fraction - 0.5) < 1e-6)
    #expect(abs(projection.coordinate.longitude) == 180)
    #expect(projection.distance.meters < 12) // 0.0001° of latitude ≈ 11.06 m
}

