import Foundation
import Testing
import GeoCore
@testable import TrackFiltering

/// Rows of a committed oracle fixture (written by scripts/oracles/rts_fixture.py).
private func fixtureRows(_ name: String) throws -> (header: [String: Double], rows: [[Double?]]) {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
    let text = try String(contentsOf: url, encoding: .utf8)
    var header: [String: Double] = [:]
    var rows: [[Double?]] = []
    for line in text.split(separator: "\n") {
        if line.hasPrefix("# ") {
            for pair in line.dropFirst(2).split(separator: ",") {
                let kv = pair.split(separator: "=")
                header[String(kv[0])] = Double(kv[1])
            }
        } else if !line.hasPrefix("t,") {
            rows.append(line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) })
        }
    }
    return (header, rows)
}

@Test func rts_matchesPykalmanOnSeededWalk() throws {
    let (header, rows) = try fixtureRows("rts-pykalman.csv")
    try #require(rows.count == 240)
    let q = try #require(header["acceleration_noise"])
    // The fixture's plane is the filter's own: the first fix sits at its origin.
    let frame = LocalFrame(origin: Coordinate(uncheckedLatitude: 46.05, longitude: 14.5))
    var fixes: [Location] = []
    for r in rows {
        let t = try #require(r[0]), e = try #require(r[1]), n = try #require(r[2])
        fixes.append(Location(coordinate: frame.coordinate(east: e, north: n), timestamp: epoch.addingTimeInterval(t),
                              horizontalAccuracy: r[3].map { Distance(meters: $0) },
                              speed: r[4].map { Speed(metersPerSecond: $0) },
                              speedAccuracy: r[5].map { Speed(metersPerSecond: $0) },
                              course: r[6].map { Bearing(degrees: $0) }, courseAccuracy: r[7].map(Angle.degrees)))
    }
    // pykalman has no gate, no gap restart and Gaussian noise: switch the gate, restarts and
    // the Student-t weights off.
    let parameters = KalmanParameters(accelerationNoise: q, gateChiSquare: 1e12, maximumGap: .seconds(1e6),
                                      measurementDegreesOfFreedom: nil)
    let smoothed = KalmanSmoother(parameters: parameters).smoothed(fixes)
    try #require(smoothed.count == rows.count)
    var worst = 0.0
    for (s, r) in zip(smoothed, rows) {
        let p = frame.point(for: s.coordinate)
        let ee = try #require(r[8]), en = try #require(r[9])
        worst = max(worst, ((p.east - ee) * (p.east - ee) + (p.north - en) * (p.north - en)).squareRoot())
    }
    // Same equations, independent code: agreement to a millimetre.
    #expect(worst < 1e-3, "largest difference from pykalman \(worst) m")
}
