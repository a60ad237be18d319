import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import RoadNetwork
import Routing
import Testing

/// A 400 m street a–b and a 300 m street b–c at right angles (residential, two-way).
private func corner() -> (router: Router, map: AsciiRoadMap) {
    var map = AsciiRoadMap("""
        a   b


            c
        """, gridSize: 100)
    map.way("abc", ["highway": "residential"])
    return (Router(graph: map.graph(profile: .car).graph), map)
}

@Test func routeJSON_distanceDurationWeightEdgesAndGeometry() throws {
    let (router, map) = corner()
    let route = try router.route(from: try #require(map.coordinate("a")), to: try #require(map.coordinate("c")))
    let o = try #require(try JSONSerialization.jsonObject(with: Data(route.json.utf8)) as? [String: Any])
    // Metres and seconds to 0.001, as printed.
    #expect(abs((o["distance_m"] as? Double ?? 0) - 700) < 0.01)
    #expect(abs((o["duration_s"] as? Double ?? 0) - route.duration.seconds) <= 0.0005)
    #expect(o["edges"] as? Int == route.edges.count)
    let geometry = try #require(o["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "LineString" && (geometry["coordinates"] as? [[Double]])?.count == route.geometry.count)
    let metres = FixedDecimal.string(route.distance.meters, decimals: 3), seconds = FixedDecimal.string(route.duration.seconds, decimals: 3)
    #expect(route.json.hasPrefix(#"{"distance_m":\#(metres),"duration_s":\#(seconds),"#), "members in order, three decimals")
    let feature = try #require(try JSONSerialization.jsonObject(with: Data(route.geoJSON.utf8)) as? [String: Any])
    #expect(abs(((feature["properties"] as? [String: Double])?["distance_m"] ?? 0) - 700) < 0.01)
    #expect(route.summary == "distance_m=\(metres) duration_s=\(seconds)")
}

@Test func routeBatch_answersGoodLines_reportsBadOnesByNumber() throws {
    let (router, map) = corner()
    let a = try #require(map.coordinate("a")), c = try #require(map.coordinate("c"))
    let lines = ["\(a.latitude) \(a.longitude) \(c.latitude) \(c.longitude)", "# a comment", "", "1 2 3",
                 "\(a.latitude),\(a.longitude),\(c.latitude),\(c.longitude)", "48 11 95 11", "-60 0 -60 0.001"]
    var answers: [String] = [], bad: [Int] = []
    let counts = RouteBatch.answer(lines, router: router, options: RouteOptions(), answer: { answers.append($0) }, bad: { n, _ in bad.append(n) })
    #expect(counts.lines == 7 && counts.bad == 2 && bad == [4, 6], "a short line and a latitude of 95°")
    #expect(answers.count == 3)
    let route = try router.route(from: a, to: c)
    let answer = "\(FixedDecimal.string(route.distance.meters, decimals: 3)) \(FixedDecimal.string(route.duration.seconds, decimals: 3))\n"
    #expect(answers[0] == answer && answers[1] == answer, "blanks or commas between, metres and seconds to 0.001")
    #expect(answers[2] == "nan nan\n", "no road near the far point")
    #expect(RouteBatch.query("# 1 2 3 4") == .skipped && RouteBatch.query(" \t ") == .skipped)
}
