import Foundation
import GeoBase
import GeoCore
import Testing
@testable import GPXCodec

/// A walk of three points 0.001° apart along the equator, 30 s apart, elevations 0, 10, 0, and a
/// waypoint: what `geo gpx stats` reads from it, in JSON and as text.
private let walk = """
    <gpx version="1.1" creator="t"><wpt lat="0" lon="0"/><trk><trkseg>
    <trkpt lat="0" lon="0"><ele>0</ele><time>2020-01-01T00:00:00Z</time></trkpt>
    <trkpt lat="0" lon="0.001"><ele>10</ele><time>2020-01-01T00:00:30Z</time></trkpt>
    <trkpt lat="0" lon="0.002"><ele>0</ele><time>2020-01-01T01:00:35Z</time></trkpt>
    </trkseg></trk></gpx>
    """

@Test func statisticsRead_countsEveryPointTheReportStates() throws {
    let (s, points) = try GPXStatistics.read(GPXStreamReader(source: MemorySource(string: walk)))
    #expect(s == GPXStatistics(try read(walk)), "the streaming pass equals the document's")
    #expect(points == 4 && s.points == 3 && s.waypoints == 1)
}

@Test func statisticsJSON_holdsEveryFigureAndTheReport() throws {
    let (s, points) = try GPXStatistics.read(GPXStreamReader(source: MemorySource(string: walk)))
    let report = GPXReadReport(file: "walk.gpx", warnings: [], warningCount: 0, damage: nil, points: points)
    let json = s.json(report: report)
    let o = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(o["points"] as? Int == 3 && o["waypoints"] as? Int == 1 && o["routes"] as? Int == 0)
    // The number's text as Swift reads it (correctly rounded; Foundation's parser is not).
    func number(_ key: String) -> Double? {
        guard let r = json.range(of: "\"\(key)\":") else { return nil }
        return Double(json[r.upperBound...].prefix { $0 != "," && $0 != "}" })
    }
    // Equatorial arc: a · Δλ = 6378137 m · 0.001° in radians per leg (to 1 µm); printed to
    // round-trip, so the text reads back to the very same Double.
    #expect(abs(s.length2D.meters - 2 * 6_378_137 * 0.001 * .pi / 180) < 1e-6)
    #expect(number("length2D_m") == s.length2D.meters && number("maxSpeed_mps") == s.maxSpeed?.metersPerSecond)
    #expect(o["duration_s"] as? Double == 3635 && o["elevationGain_m"] as? Double != nil)
    let bounds = try #require(o["bounds"] as? [String: Double])
    #expect(bounds == ["south": 0, "west": 0, "north": 0, "east": 0.002])
    #expect(o["warnings"] as? Int == 0 && o["recovery"] is NSNull)
    #expect(json.hasPrefix(#"{"points":3,"tracks":1,"segments":1,"routes":0,"waypoints":1,"length2D_m":"#), "members in order")
}

@Test func statisticsSummary_linesForPeople() throws {
    let s = GPXStatistics(try read(walk))
    let lines = s.summary.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == 11)
    #expect(lines[0] == "points:         3 in 1 track(s), 1 segment(s)")
    #expect(lines[3] == "length 2D:      222.6 m", "2 · 111.3 m, to 0.1 m")
    #expect(lines[5] == "duration:       1:00:35 (3635.000 s)")
    #expect(lines[10] == "bounds:         0.0,0.0 – 0.0,0.002")
    // A file without times or elevations says so.
    let bare = GPXStatistics(try read(#"<gpx version="1.1" creator="t"><trk><trkseg><trkpt lat="1" lon="2"/></trkseg></trk></gpx>"#))
    #expect(bare.summary.contains("duration:       –\n") && bare.summary.contains("elevation gain: –\n"))
}
