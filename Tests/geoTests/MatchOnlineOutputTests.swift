import Foundation
import GeoCore
import GeoBase
import GeoTestSupport
import MapMatching
import RoadNetwork
import Testing
import TraceFiles

/// A straight 800 m residential street a–b, its matcher, and a trace along it: a fix every
/// 100 m, 10 s apart, 3 m north of the street, the fourth entry unread (nil).
struct StraightStreetTrace {
    let matcher: MapMatcher
    let a: Coordinate, b: Coordinate
    let entries: [TracePoint?]

    init() throws {
        var map = AsciiRoadMap("a       b", gridSize: 100)
        map.way("ab", ["highway": "residential"])
        matcher = try MapMatcher(graph: map.graph(profile: .car).graph)
        let a = try #require(map.coordinate("a")), b = try #require(map.coordinate("b"))
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        var entries: [TracePoint?] = (0...8).map { k in
            let onStreet = a.coordinate(at: .meters(Double(k) * 100), facing: a.bearing(to: b))
            return TracePoint(coordinate: onStreet.coordinate(at: .meters(3), facing: .degrees(0)),
                              time: start.addingTimeInterval(Double(k) * 10))
        }
        entries[3] = nil
        (self.a, self.b, self.entries) = (a, b, entries)
    }
}

/// `geo match --online`'s writer: one line per entry in input order, an unread entry's line with
/// nothing published, fixes along a straight 800 m street matched onto it.
@Test func writeOnline_oneLinePerEntry_inOrder() throws {
    let trace = try StraightStreetTrace()
    let (matcher, a, b, entries) = (trace.matcher, trace.a, trace.b, trace.entries)
    var sink: any ByteSink = MemorySink()
    try MatchOutput.writeOnline(entries, matcher: matcher, to: &sink)
    let text = String(decoding: try #require(sink as? MemorySink).bytes, as: UTF8.self)
    let lines = text.split(separator: "\n")
    #expect(lines.count == entries.count && text.hasSuffix("\n"))
    #expect(lines[3] == #"{"matched":null,"nodes":null,"confidence":null,"offRoadProbability":null,"revised":false}"#)
    for (k, line) in lines.enumerated() where k != 3 {
        let o = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let matched = try #require(o["matched"] as? [String: Double], "line \(k)")
        let p = try Coordinate(latitude: matched["latitude"] ?? .nan, longitude: matched["longitude"] ?? .nan)
        // On the street: within 0.5 m of the line a–b (the fix was 3 m off it).
        #expect(p.projected(onSegmentFrom: a, to: b).distance.meters < 0.5, "line \(k)")
    }
}
