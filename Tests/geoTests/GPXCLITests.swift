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
    let cut = String(decoding: try Data(contentsOf: URL(fileURLWithPath: file)).prefix(700), as: UTF8.self)
    let bad = try await GeoProcess.geo(["gpx", "stats", "-"], stdin: cut)
    #expect(bad.status == 65, "a damaged file is EX_DATAERR, as the other commands' data errors")
    #expect(bad.stderr.contains("-:16:1: truncated"), "\(bad.stderr)")
    let recovered = try await GeoProcess.geo(["gpx", "stats", "--recover", "--json", "-"], stdin: cut)
    #expect(recovered.status == 0 && recovered.stdout.contains("\"waypoints\":1"), "\(recovered.stdout)")
}

private func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
}

/// 1-based line and byte column of the first occurrence of `needle`.
private func location(of needle: String, in text: String) throws -> (line: Int, column: Int) {
    let bytes = Array(text.utf8)
    let at = try #require(bytes.firstRange(of: Array(needle.utf8))?.lowerBound)
    let lineStart = (bytes[..<at].lastIndex(of: 0x0A) ?? -1) + 1
    return (bytes[..<at].filter { $0 == 0x0A }.count + 1, at - lineStart + 1)
}

/// A ride exported with an empty `<ele/>` in every point: every point is read, as gpxpy and
/// GPSBabel read them (scripts/oracles/gpx_bad_values.py: 871 points, 14913.7 m).
@Test func gpxStats_emptyElevationInEveryPoint_readsEveryPointWithWarnings() async throws {
    guard let file = try data("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let ride = try String(contentsOfFile: file, encoding: .utf8)
        .replacingOccurrences(of: "<ele>[^<]*</ele>", with: "<ele/>", options: .regularExpression)
    let r = try await GeoProcess.geo(["gpx", "stats", "--json", "-"], stdin: ride)
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stderr.isEmpty, "--json keeps warnings in the JSON: \(r.stderr)")
    let json = try jsonObject(r.stdout)
    #expect(json["points"] as? Int == 871)
    let length = try #require(json["length2D_m"] as? Double)
    #expect(abs(length - 14913.7) / 14913.7 < 1e-3, "within 0.1 % of gpxpy's 14913.7 m")
    #expect(json["elevationGain_m"] is NSNull, "no elevation is left to climb")
    #expect(json["warnings"] as? Int == 871)
    let first = try #require((json["firstWarnings"] as? [[String: Any]])?.first)
    let (line, column) = try location(of: "<ele/>", in: ride)
    #expect(first["element"] as? String == "ele" && first["code"] as? String == "empty value")
    #expect(first["line"] as? Int == line && first["column"] as? Int == column, "\(first)")
    #expect(json["recovery"] is NSNull)

    // Text mode: the first ten warnings on standard error, one line each, then the count.
    let text = try await GeoProcess.geo(["gpx", "stats", "-"], stdin: ride)
    #expect(text.status == 0 && text.stdout.contains("points:         871"), "\(text.stdout)")
    let lines = text.stderr.split(separator: "\n")
    #expect(lines.count == 11, "\(text.stderr)")
    #expect(lines.first == "geo gpx: -:\(line):\(column): warning: <ele> is empty, not a number; the field is left out")
    #expect(lines.last == "geo gpx: -: 871 warnings (10 shown)")
}

@Test func gpxStats_nonStandardFix_readsEveryPointWithWarnings() async throws {
    guard let file = try data("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let odd = try String(contentsOfFile: file, encoding: .utf8)
        .replacingOccurrences(of: "</trkpt>", with: "<fix>something_not_in_the_spec</fix></trkpt>")
    let r = try await GeoProcess.geo(["gpx", "stats", "--json", "-"], stdin: odd)
    #expect(r.status == 0, "\(r.stderr)")
    let json = try jsonObject(r.stdout)
    #expect(json["points"] as? Int == 871 && json["warnings"] as? Int == 871)
    let first = try #require((json["firstWarnings"] as? [[String: Any]])?.first)
    #expect(first["element"] as? String == "fix" && first["text"] as? String == "something_not_in_the_spec")
}

/// A position log killed mid-recording ends inside `<trkseg>` after its last complete point.
/// Without --recover every GPX command fails naming the place and suggesting --recover; with it,
/// every command keeps the complete points and says how many.
@Test func gpxCommands_killedLog_recoverKeepsEveryCompletePoint() async throws {
    guard let file = try data("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let whole = try String(contentsOfFile: file, encoding: .utf8)
    // Cut after the 100th complete track point (korita has 2 waypoints before its tracks).
    var end = whole.startIndex
    for _ in 0..<100 { end = try #require(whole.range(of: "</trkpt>", range: end..<whole.endIndex)).upperBound }
    let log = String(whole[..<end]) + "\n"
    let eof = Array(log.utf8).count
    let lastLine = log.filter { $0 == "\n" }.count + 1

    let strict = try await GeoProcess.geo(["gpx", "stats", "-"], stdin: log)
    #expect(strict.status != 0 && strict.stdout.isEmpty)
    #expect(strict.stderr.contains("geo gpx: -:\(lastLine):1: truncated"), "\(strict.stderr)")
    #expect(strict.stderr.contains("--recover"), "\(strict.stderr)")

    let r = try await GeoProcess.geo(["gpx", "stats", "--recover", "--json", "-"], stdin: log)
    #expect(r.status == 0, "\(r.stderr)")
    let json = try jsonObject(r.stdout)
    #expect(json["points"] as? Int == 100 && json["waypoints"] as? Int == 2)
    let recovery = try #require(json["recovery"] as? [String: Any], "\(r.stdout)")
    #expect(recovery["pointsKept"] as? Int == 102)
    #expect(recovery["offset"] as? Int == eof && recovery["line"] as? Int == lastLine, "\(recovery)")
    #expect(r.stderr.contains("recovered 102 points complete before the damage at byte \(eof)"), "\(r.stderr)")

    let csv = try await GeoProcess.geo(["gpx", "convert", "--recover", "--to", "csv", "-"], stdin: log)
    #expect(csv.status == 0 && csv.stdout.split(separator: "\n").count == 1 + 102, "\(csv.stderr)")
    for command in [["convert", "--to", "gpx"], ["clean"], ["smooth"], ["simplify", "--tolerance", "5"]] {
        let failed = try await GeoProcess.geo(["gpx"] + command + ["-"], stdin: log)
        #expect(failed.status != 0 && failed.stderr.contains("--recover"), "\(command): \(failed.stderr)")
        let kept = try await GeoProcess.geo(["gpx"] + command + ["--recover", "-"], stdin: log)
        #expect(kept.status == 0 && kept.stderr.contains("recovered 102 points"), "\(command): \(kept.stderr)")
        #expect(kept.stdout.contains("</gpx>"), "\(command) writes a complete document")
    }
}

@Test func gpxConvert_gpxIsWellFormed11() async throws {
    guard let file = try data("gpx/gpxpy/gpx1.0_with_all_fields.gpx") else { return }
    try await withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("converted.gpx")
        let r = try await GeoProcess.geo(["gpx", "convert", file, "--to", "gpx", "-o", out.path])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOf: out, encoding: .utf8)
        #expect(text.contains("version=\"1.1\"") && text.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
        if let xmllint = GeoProcess.which("xmllint") {
            let lint = try await GeoProcess.run(xmllint, ["--noout", out.path])
            #expect(lint.status == 0, "\(lint.stderr)")
        }
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
