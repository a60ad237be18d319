import Foundation
import Testing
import GeoTestSupport

/// A GPX walk at 1 Hz from 2026-07-14T06:00:00Z: 2 minutes at 1.4 m/s north, 10 minutes at one
/// place with Gauss–Markov noise (10 s correlation, 5 m RMS, seeded), 3 minutes walking on.
private func walkStayWalkGPX() -> String {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func uniform() -> Double { // SplitMix64, so the track is the same on every run
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
    func gaussian() -> Double { (-2 * log(max(uniform(), 1e-300))).squareRoot() * cos(2 * .pi * uniform()) }
    let a = exp(-1 / 10.0), sigma = 5 / 2.0.squareRoot()
    var ex = 0.0, ey = 0.0, north = 0.0
    var body: [String] = []
    for t in 0..<900 {
        if t < 120 || t >= 720 { north += 1.4 }
        ex = a * ex + sigma * (1 - a * a).squareRoot() * gaussian()
        ey = a * ey + sigma * (1 - a * a).squareRoot() * gaussian()
        let lat = 52.52 + (north + ey) / 111_250, lon = 13.4 + ex / (111_250 * cos(52.52 * .pi / 180))
        let time = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: 1_784_008_800 + Double(t)))
        body.append(String(format: "<trkpt lat=\"%.8f\" lon=\"%.8f\"><time>%@</time></trkpt>", lat, lon, time))
    }
    return "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n"
        + body.joined(separator: "\n") + "\n</trkseg></trk></gpx>\n"
}

// Issue 33, item 2, CONTRACT.md: `geo track --visits` prints the arrival while the stay goes on
// ("departureDate": null), then the departure with both dates; default preset.
@Test func track_visits_arrivalWhileStaying_thenDeparture() async throws {
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("walk.gpx")
        try walkStayWalkGPX().write(to: file, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["track", "--source", "gpx:\(file.path)?speed=max", "--visits"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let objects = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let start = Date(timeIntervalSince1970: 1_784_008_800)
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func seconds(_ value: Any?) -> Double? { // update times have milliseconds, visit dates none
            (value as? String).flatMap { fractional.date(from: $0) ?? ISO8601DateFormatter().date(from: $0) }.map { $0.timeIntervalSince(start) }
        }
        let visits = objects.enumerated().filter { $0.element["event"] as? String == "visit" }
        try #require(visits.count == 2, "\(result.stdout.suffix(2000))")
        let (arrivalIndex, arrival) = visits[0], (departureIndex, departure) = visits[1]
        #expect(arrival["departureDate"] is NSNull)
        #expect(seconds(arrival["arrivalDate"]).map { abs($0 - 120) <= 30 } == true, "arrival \(arrival)")
        #expect(seconds(departure["arrivalDate"]) == seconds(arrival["arrivalDate"]))
        #expect(seconds(departure["departureDate"]).map { abs($0 - 720) <= 120 } == true, "departure \(departure)")
        // Printed while the stay goes on: before the first update of the walk on (t ≥ 720 s),
        // after the stationary update (the stay is paused within 3 minutes).
        let walkOn = try #require(objects.firstIndex { $0["event"] as? String == "update" && (seconds($0["time"]) ?? 0) >= 720 })
        let pause = try #require(objects.firstIndex { $0["stationary"] as? Bool == true })
        #expect(seconds(objects[pause]["time"]).map { $0 > 120 && $0 <= 300 } == true)
        #expect(arrivalIndex < walkOn && walkOn < departureIndex)
        for key in ["latitude", "longitude", "horizontalAccuracy"] { #expect(arrival[key] is Double, "\(key)") }
    }
}
