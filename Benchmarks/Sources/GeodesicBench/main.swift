// In-process throughput of the WGS84 geodesic inverse (Karney 2013) on seeded random pairs.
// Usage: GeodesicBench [pairs]   (default 1,000,000)
import BenchSupport
import GeoCore

let count = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 1_000_000
var rng = SplitMix64(seed: 20_260_521)
var pairs: [(Double, Double, Double, Double)] = []
pairs.reserveCapacity(count)
for _ in 0..<count {
    pairs.append((Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng),
                  Double.random(in: -90...90, using: &rng), Double.random(in: -180..<180, using: &rng)))
}

/// Runs `body` over every pair three times and prints the best throughput.
@MainActor
func measure(_ name: String, _ body: ((Double, Double, Double, Double)) -> Double) {
    let clock = ContinuousClock()
    var best = Duration.seconds(1_000_000)
    var checksum = 0.0
    for _ in 0..<3 {
        var sum = 0.0
        let elapsed = clock.measure {
            for p in pairs { sum += body(p) }
        }
        best = min(best, elapsed)
        checksum = sum
    }
    let seconds = best.seconds
    print("\(name): \(count) pairs, best of 3: \(seconds) s, \(Int(Double(count) / seconds)) pairs/s, "
        + "\(seconds / Double(count) * 1e9) ns/pair (checksum \(checksum))")
}

let geodesic = Geodesic.wgs84
measure("geodesic inverse (raw degrees)") { p in
    let r = geodesic.inverse(fromLatitude: p.0, longitude: p.1, toLatitude: p.2, longitude: p.3)
    return r.distance.meters + r.initialAzimuth + r.finalAzimuth
}
let coordinates = pairs.map { (Coordinate(uncheckedLatitude: $0.0, longitude: $0.1),
                               Coordinate(uncheckedLatitude: $0.2, longitude: $0.3)) }
var index = 0
measure("Coordinate.distance(to:)") { _ in
    defer { index = (index + 1) % coordinates.count }
    return coordinates[index].0.distance(to: coordinates[index].1).meters
}
measure("Spherical.distance (haversine)") { p in
    Spherical.distance(from: Coordinate(uncheckedLatitude: p.0, longitude: p.1),
                       to: Coordinate(uncheckedLatitude: p.2, longitude: p.3)).meters
}
