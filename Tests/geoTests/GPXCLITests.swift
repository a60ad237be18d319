import Foundation
import GeoTestSupport
import Testing

private func data(_ path: String) throws -> String? { try Fixtures.url(path)?.path }

@Test func gpxStats_jsonHasEveryField() async throws {
    guard let file = try data("gpx/gpxpy/cerknicko-jezero.gpx") else { return }
    let r = try await GeoProcess.geo(["gpx", "stats", file, "--json"])
    #expect(r.status == 0, "\(r.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
    for key in ["points", "tracks", "segments", "routes", "waypoints", "length2D_m", "length3D_m", "duration_s",
                "movingTime_s", "elevationGain_m", "elevationLoss_m", "maxSpeed_mps", "bounds"] {
        #expect(json[key] != nil, "missing \(key)")
    }
    // gpxpy (scripts/oracles/gpx_stats.py): 296 points in 8 tracks, duration 4239 s.
    #expect(json["points"] as? Int == 296)
    #expect(json["tracks"] as? Int == 8)
    #expect(json["waypoints"] as? Int == 7)
    #expect(json["duration_s"] as? Double == 4239)
    let length = try #require(json["length2D_m"] as? Double)
    #expect(abs(length - 4580.1) / 4580.1 < 1e-3, "within 0.1 % of gpxpy's 4580.1 m")
}

@Test func gpxStats_textAndErrorsWithLineColumn() async throws {
    guard let file = try data("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let ok = try await GeoProcess.geo(["gpx", "stats", file])
    #expect(ok.status == 0 && ok.stdout.contains("points:         871"), "\(ok.stdout)")
    let cut = FileManager.default.temporaryDirectory.appendingPathComponent("geo-gpx-cut-\(UUID().uuidString).gpx")
    try Data(try Data(contentsOf: URL(fileURLWithPath: file)).prefix(700)).write(to: cut)
    let bad = try await GeoProcess.geo(["gpx", "stats", cut.path])
    #expect(bad.status != 0)
    #expect(bad.stderr.contains("\(cut.path):16:1: truncated"), "\(bad.stderr)")
    let recovered = try await GeoProcess.geo(["gpx", "stats", "--recover", "--json", cut.path])
    #expect(recovered.status == 0 && recovered.stdout.contains("\"waypoints\":1"), "\(recovered.stdout)")
}

@Test func gpxConvert_gpxIsWellFormed11() async throws {
    guard let file = try data("gpx/gpxpy/gpx1.0_with_all_fields.gpx") else { return }
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("geo-gpx-\(UUID().uuidString).gpx")
    let r = try await GeoProcess.geo(["gpx", "convert", file, "--to", "gpx", "-o", out.path])
    #expect(r.status == 0, "\(r.stderr)")
    let text = try String(contentsOf: out, encoding: .utf8)
    #expect(text.contains("version=\"1.1\"") && text.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
    if let xmllint = GeoProcess.which("xmllint") {
        let lint = try await GeoProcess.run(xmllint, ["--noout", out.path])
        #expect(lint.status == 0, "\(lint.stderr)")
    }
}

@Test func gpxConvert_geojsonAndCSV() async throws {
    guard let file = try data("gpx/gpxpy/track-with-empty-segment.gpx") else { return }
    let g = try await GeoProcess.geo(["gpx", "convert", file, "--to", "geojson"])
    #expect(g.status == 0, "\(g.stderr)")
    let json = try #require(try JSONSerialization.jsonObject(with: Data(g.stdout.utf8)) as? [String: Any])
    #expect(json["type"] as? String == "FeatureCollection")
    let features = try #require(json["features"] as? [[String: Any]])
    let geometry = try #require(features.first?["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "MultiLineString")
    let lines = try #require(geometry["coordinates"] as? [[[Double]]])
    #expect(lines.map(\.count).reduce(0, +) == 9, "gpxpy counts 9 points")
    // Positions are [lon, lat, ele].
    #expect(lines.first?.first?.first == 6.0819695)
    let c = try await GeoProcess.geo(["gpx", "convert", file, "--to", "csv"])
    #expect(c.status == 0)
    let rows = c.stdout.split(separator: "\n")
    #expect(rows.first == "kind,track,segment,index,latitude,longitude,elevation_m,time,name")
    #expect(rows.count == 1 + 9)
}
