import Foundation
import Testing
import GeoTestSupport

/// A GPX track at 1 Hz from 2026-07-14T06:00:00Z: 10 minutes at one place, a 1.2 km drive at
/// 12 m/s, 10 minutes at another, then 3 minutes back on the road.
private func twoStaysGPX() -> String {
    var points: [(Double, Double)] = []
    for k in 0..<600 { points.append((52.5200 + Double(k % 3) * 1e-5, 13.4000)) }
    for k in 1...100 { points.append((52.5200, 13.4000 + Double(k) * 1.76e-4)) }  // 12 m per step east
    for k in 0..<600 { points.append((52.5200 + Double(k % 3) * 1e-5, 13.4176)) }
    for k in 1...180 { points.append((52.5200 + Double(k) * 1.08e-4, 13.4176)) }  // 12 m per step north
    let body = points.enumerated().map { i, p in
        let t = Date(timeIntervalSince1970: 1_784_008_800 + Double(i))
        return "<trkpt lat=\"\(p.0)\" lon=\"\(p.1)\"><time>\(ISO8601DateFormatter().string(from: t))</time></trkpt>"
    }.joined(separator: "\n")
    return "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\n\(body)\n</trkseg></trk></gpx>\n"
}

@Test func visits_printsOneJSONLinePerVisit_unobservedArrivalNull() async throws {
    try await withTemporaryDirectory { dir in
        let file = dir.appendingPathComponent("two.gpx")
        try twoStaysGPX().write(to: file, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["visits", file.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 2, "\(result.stdout)")
        let visits = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(visits[0]["arrivalDate"] is NSNull, "the track starts inside the first stay")
        // The dates are those of the fixes within half the radius (37.5 m) of a stay: 11.92 m per
        // step east, 12.0 m north, so the fixes 3 steps out (35.8 m, 36.0 m).
        #expect(visits[0]["departureDate"] as? String == "2026-07-14T06:10:02Z")
        #expect(visits[1]["arrivalDate"] as? String == "2026-07-14T06:11:36Z")
        #expect(visits[1]["departureDate"] as? String == "2026-07-14T06:21:42Z")
        let latitude = try #require(visits[1]["latitude"] as? Double), longitude = try #require(visits[1]["longitude"] as? Double)
        #expect(abs(latitude - 52.52001) < 2e-5 && abs(longitude - 13.4176) < 2e-4) // degrees (≈ 2 m, 12 m)
    }
}

@Test func visits_badOptionsAndFiles_failWithTheReason() async throws {
    for (arguments, reason) in [(["--radius", "0", "x.gpx"], "--radius"), (["--min-duration", "nan", "x.gpx"], "--min-duration"),
                                (["--departure-fixes", "0", "x.gpx"], "--departure-fixes"), (["/nonexistent/x.gpx"], "x.gpx")] {
        let result = try await GeoProcess.geo(["visits"] + arguments)
        #expect(result.status != 0 && result.stdout.isEmpty, "\(arguments)")
        #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
    }
}

@Test func visits_realHike_matchTrackintelStayPoints() async throws {
    // Fixtures/korita-zbevnica.trackintel.txt: trackintel 1.4.2's stay points (75 m, 5 min) on
    // the same GPX file. trackintel grows a stay from its first fix, LocationKit from the mean
    // and dates it by the fixes within half the radius: on this hike (fixes every 10–60 s,
    // ≈ 40 m scatter) the same four stops, ends up to 90 s earlier.
    guard let track = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("MonitoringTests/Fixtures/korita-zbevnica.trackintel.txt")
    let iso = ISO8601DateFormatter()
    let theirs = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
        let f = line.split(separator: " ").map(String.init)
        return (lat: try #require(Double(f[0])), lon: try #require(Double(f[1])), start: try #require(iso.date(from: f[2])), end: try #require(iso.date(from: f[3])))
    }
    let result = try await GeoProcess.geo(["visits", track.path])
    #expect(result.status == 0, "stderr: \(result.stderr)")
    let ours = try result.stdout.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    try #require(ours.count == theirs.count, "\(result.stdout)")
    for (o, t) in zip(ours, theirs) {
        let lat = try #require(o["latitude"] as? Double), lon = try #require(o["longitude"] as? Double)
        let metres = hypot((lat - t.lat) * 111_132, (lon - t.lon) * 111_132 * cos(t.lat * .pi / 180))
        #expect(metres < 50, "centre \(metres) m from trackintel's") // metres
        if let arrival = (o["arrivalDate"] as? String).flatMap(iso.date(from:)) {
            #expect(abs(arrival.timeIntervalSince(t.start)) <= 60, "arrival \(arrival) vs \(t.start)") // seconds
        }
        let departure = try #require((o["departureDate"] as? String).flatMap(iso.date(from:)))
        #expect(abs(departure.timeIntervalSince(t.end)) <= 120, "departure \(departure) vs \(t.end)") // seconds
    }
}
