import Foundation
import Testing
import GeoCore
import GeoTestSupport
import SystemIO

private let centre = Coordinate(uncheckedLatitude: 35.6812, longitude: 139.7671)
private let frame = LocalFrame(origin: centre)

/// A FeatureCollection with one 100 m square polygon named `fence`, wound clockwise.
private let fenceGeoJSON: String = {
    let corners = [(-100.0, -100.0), (-100, 100), (100, 100), (100, -100), (-100, -100)].map { frame.coordinate(east: $0.0, north: $0.1) }
    let ring = corners.map { "[\($0.longitude),\($0.latitude)]" }.joined(separator: ",")
    return #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"identifier":"fence"},"geometry":{"type":"Polygon","coordinates":[[\#(ring)]]}}]}"#
}()

/// A GPX track at 1 Hz from 2026-07-14T06:00:00Z through the given east offsets (metres; north 0).
private func gpx(_ eastings: [Double], startSecond: Int = 0) -> String {
    var s = #"<?xml version="1.0"?><gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"# + "\n"
    let t0 = Date(timeIntervalSince1970: 1_784_008_800) // 2026-07-14T06:00:00Z
    let format = ISO8601DateFormatter()
    for (i, east) in eastings.enumerated() {
        let c = frame.coordinate(east: east, north: 0)
        s += #"<trkpt lat="\#(c.latitude)" lon="\#(c.longitude)"><time>\#(format.string(from: t0.addingTimeInterval(Double(startSecond + i))))</time></trkpt>"# + "\n"
    }
    return s + "</trkseg></trk></gpx>\n"
}

private func lines(_ stdout: String) throws -> [[String: Any]] {
    try stdout.split(whereSeparator: \.isNewline).map { line in
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
    }
}

@Test func monitor_printsTheFirstDecision_thenTransitions() async throws {
    try await withTemporaryDirectory { dir in
        let regions = dir.appendingPathComponent("fence.geojson"), track = dir.appendingPathComponent("t.gpx")
        try fenceGeoJSON.write(to: regions, atomically: true, encoding: .utf8)
        // 40 s at the centre, 40 s 300 m east; 10 m accuracy: every fix decisive.
        try gpx(Array(repeating: 0, count: 40) + Array(repeating: 300, count: 40)).write(to: track, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["monitor", "--regions", regions.path, "--source", "gpx:\(track.path)?speed=max&accuracy=10"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try lines(result.stdout)
        #expect(events.map { $0["event"] as? String } == ["determined", "exit"])
        #expect(events.map { $0["state"] as? String } == ["inside", "outside"])
        #expect(events.map { $0["region"] as? String } == ["fence", "fence"])
        // Decided over 20 s of decisive fixes: at 06:00:20 and 06:01:00 (the first fix outside + 20 s).
        #expect(events.map { $0["time"] as? String } == ["2026-07-14T06:00:20.000Z", "2026-07-14T06:01:00.000Z"])
    }
}

@Test func monitor_printsNothingBeforeADecision() async throws {
    try await withTemporaryDirectory { dir in
        let regions = dir.appendingPathComponent("fence.geojson"), track = dir.appendingPathComponent("t.gpx")
        try fenceGeoJSON.write(to: regions, atomically: true, encoding: .utf8)
        // On the boundary: P(inside) = 0.5 on every fix.
        try gpx(Array(repeating: 100, count: 120)).write(to: track, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["monitor", "--regions", regions.path, "--source", "gpx:\(track.path)?speed=max&accuracy=15"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.contains("ignored"))
    }
}

@Test func monitor_store_isCreated_andSurvivesKill9() async throws {
    try await withTemporaryDirectory { dir in
        let regions = dir.appendingPathComponent("fence.geojson"), inside = dir.appendingPathComponent("in.gpx")
        let outside = dir.appendingPathComponent("out.gpx"), store = dir.appendingPathComponent("a/store")
        try fenceGeoJSON.write(to: regions, atomically: true, encoding: .utf8)
        // 36,000 fixes a second apart, replayed at 10× real time: decided inside after 2 s, killed
        // long before the replay could end (an hour), however loaded the machine. (With 3,000, a
        // CI run beside two other builds resumed this test after the 300 s replay had ended.)
        try gpx(Array(repeating: 0, count: 36_000)).write(to: inside, atomically: true, encoding: .utf8)
        try gpx(Array(repeating: 300, count: 40), startSecond: 36_000).write(to: outside, atomically: true, encoding: .utf8)
        let stderrFile = dir.appendingPathComponent("monitor.stderr").path
        let child = try ChildProcess.spawn(.init(
            executable: GeoProcess.geoExecutable.path,
            arguments: ["monitor", "--regions", regions.path, "--source", "gpx:\(inside.path)?speed=10&accuracy=10", "--store", store.path],
            standardOutput: .nullDevice, standardError: .file(stderrFile)))
        let storeFile = store.appendingPathComponent("geo-monitor.monitor").path
        let decided = await pollUntil { (try? String(contentsOfFile: storeFile, encoding: .utf8))?.contains("satisfied") == true }
        #expect(child.kill(), "geo monitor had ended before the kill: \((try? String(contentsOfFile: stderrFile, encoding: .utf8)) ?? "")")
        _ = try await child.exitStatus(timeout: .seconds(10))
        #expect(decided, "the store never recorded the decision")
        // The rerun rejoins the stored state: leaving is an exit, not a first decision.
        let result = try await GeoProcess.geo(["monitor", "--regions", regions.path, "--source", "gpx:\(outside.path)?speed=max&accuracy=10",
                                               "--store", store.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try lines(result.stdout).map { $0["event"] as? String } == ["exit"])
    }
}

@Test func monitor_readsOsmosisPoly() async throws {
    try await withTemporaryDirectory { dir in
        let corners = [(-100.0, -100.0), (100, -100), (100, 100), (-100, 100)].map { frame.coordinate(east: $0.0, north: $0.1) }
        let poly = "square\n1\n" + corners.map { "   \($0.longitude)   \($0.latitude)\n" }.joined() + "END\nEND\n"
        let regions = dir.appendingPathComponent("square.poly"), track = dir.appendingPathComponent("t.gpx")
        try poly.write(to: regions, atomically: true, encoding: .utf8)
        try gpx(Array(repeating: 300, count: 30) + Array(repeating: 0, count: 30)).write(to: track, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["monitor", "--regions", regions.path, "--source", "gpx:\(track.path)?speed=max&accuracy=10"])
        #expect(result.status == 0, "\(result.stderr)")
        let events = try lines(result.stdout)
        #expect(events.map { $0["event"] as? String } == ["determined", "enter"])
        #expect(events.map { $0["region"] as? String } == ["square", "square"])
    }
}

@Test func monitor_rejectsABowTie_withItsPlace() async throws {
    try await withTemporaryDirectory { dir in
        let regions = dir.appendingPathComponent("bad.geojson")
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[2,2],[2,0],[0,1],[0,0]]]}}]}"#
            .write(to: regions, atomically: true, encoding: .utf8)
        let result = try await GeoProcess.geo(["monitor", "--regions", regions.path, "--source", "gpx:/dev/null"])
        #expect(result.status == 65)
        #expect(result.stderr.contains("$.features[0]") && result.stderr.contains("self-intersecting"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let missing = try await GeoProcess.geo(["monitor", "--regions", dir.appendingPathComponent("none.geojson").path])
        #expect(missing.status == 66)
    }
}

/// Polls `condition` every 50 ms for up to 30 s.
private func pollUntil(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return condition()
}
