import Foundation
import Testing
import GeoCore
import TrackFiltering

private func fix(_ t: Double) throws -> Location {
    Location(coordinate: try Coordinate(latitude: 43.73, longitude: 7.42), timestamp: Date(timeIntervalSince1970: t))
}

/// Each reason's first run of drops is explained once: when it ends, or at once when it
/// reaches `longRun`; a stale run says how far behind the stream's latest fix it was.
@Test func drops_eachReasonExplainedOnce_whenItsFirstRunEndsOrGrowsLong() throws {
    var d = DropDiagnostics()
    let now = Date(timeIntervalSince1970: 10_000)
    d.saw(try fix(1_000))
    #expect(d.dropped(try fix(880), .stale, at: now) == nil)
    #expect(d.dropped(try fix(881), .stale, at: now) == nil)
    let staleLine = try #require(d.dropped(try fix(1_001), .warmUp, at: now))
    #expect(staleLine.hasPrefix("dropped 2 fixes as stale: "))
    #expect(staleLine.contains("the first was 2 min older than the stream's latest fix before it"))
    #expect(d.endRun()?.hasPrefix("dropped 1 fix as warm-up: ") == true)
    #expect(d.endRun() == nil)
    // A second stale run is not explained again.
    #expect(d.dropped(try fix(990), .stale, at: now) == nil)
    #expect(d.endRun() == nil)
    // A long run of a new reason is explained while it goes on.
    var line: String?
    for i in 0..<DropDiagnostics.longRun { line = d.dropped(try fix(2_000 + Double(i)), .impliedSpeed, at: now) }
    #expect(line?.hasPrefix("dropped \(DropDiagnostics.longRun) fixes so far as implied-speed: ") == true)
}

@Test func drops_summary_namesEachReasonWithItsCount() {
    var report = FilterReport()
    #expect(DropDiagnostics.summary(report) == nil)
    for reason in [nil, nil, RejectionReason.stale, .stale, .warmUp] { report.record(reason) }
    #expect(DropDiagnostics.summary(report) == "filter: 5 fixes, 2 delivered; dropped: stale 2, warm-up 1")
}

@Test func drops_durationForPeople() {
    #expect(DropDiagnostics.duration(3) == "3 s")
    #expect(DropDiagnostics.duration(720) == "12 min")
    #expect(DropDiagnostics.duration(-18_000) == "5 h")
    #expect(DropDiagnostics.duration(9 * 86_400) == "9 days")
}
