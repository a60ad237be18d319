import Foundation
import Testing
import GeoCore
import Monitoring
import Positioning
import TrackFiltering

// RegionWatch (`geo monitor`'s run): a replayed walk into a circle decided fix by fix, each
// event one line told against the region's last decided state, one flush per fix.

@Test func regionWatch_walkIntoACircle_determinedOutsideThenEnter_andCountsTheIgnoredFix() async throws {
    let centre = try Coordinate(latitude: 48, longitude: 11)
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)
    func fix(_ metresNorth: Double, _ seconds: Double, accuracy: Double? = 5) -> Location {
        Location(coordinate: Geodesic.wgs84.direct(from: centre, bearing: .degrees(0), distance: .meters(metresNorth)).coordinate,
                 timestamp: t0.addingTimeInterval(seconds), horizontalAccuracy: accuracy.map { .meters($0) })
    }
    // 1 km north (outside a 100 m circle, 5 m accuracy: decisive), then at its centre, 30 s
    // apart; one fix without an accuracy, which the monitor ignores.
    let walk = [fix(1000, 0), fix(1000, 30), fix(0, 60), fix(0, 90), fix(0, 120, accuracy: nil), fix(0, 150)]
    let source = try LocationReplaySource(locations: walk, pacing: .asFastAsPossible)
    let monitor = try RegionMonitor(named: "test", directory: nil)
    let circle = try CircularGeographicCondition(center: centre, radius: .meters(100))
    var lines: [String] = [], flushes = 0
    let ignored = try await RegionWatch.run(monitor, conditions: [("park", .circle(circle))], dwell: nil, source: source,
                                            line: { lines.append($0) }, flush: { flushes += 1 })
    #expect(ignored == 1)
    #expect(flushes == walk.count)
    let events = lines.compactMap { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).map { "\($0["event"] ?? "") \($0["state"] ?? "")" }
    }
    #expect(events.count == lines.count)
    #expect(events.first == "determined outside")
    #expect(events.last == "enter inside")
    #expect(lines.allSatisfy { $0.contains(#""region":"park""#) })
}
