import Foundation
import GeoBase
import GeoCore
import GPXCodec
import Monitoring
import Positioning
import Testing

/// A GPX track of `points` (seconds after 2026-01-01T00:00:00Z, or nil for no time; metres
/// north of 48° N 11° E), HDOP 1 each.
private func track(_ points: [(seconds: Int?, north: Double)]) -> GPXStreamReader {
    let body = points.map { p in
        let lat = 48.0 + p.north / 111_200
        let time = p.seconds.map { "<time>\(ISO8601Time.string(from: Date(timeIntervalSince1970: 1_767_225_600 + Double($0))))</time>" } ?? ""
        return "<trkpt lat=\"\(lat)\" lon=\"11.0\">\(time)<hdop>1</hdop></trkpt>"
    }.joined()
    let gpx = "<?xml version=\"1.0\"?><gpx version=\"1.1\" creator=\"t\" xmlns=\"http://www.topografix.com/GPX/1/1\"><trk><trkseg>\(body)</trkseg></trk></gpx>"
    return GPXStreamReader(source: MemorySource(Array(gpx.utf8)))
}

private let t0 = Date(timeIntervalSince1970: 1_767_225_600)

/// Arriving from 1 km away, ten minutes at one spot, leaving: one visit from the first to the
/// last fix at the spot (VisitDetector's defaults: 75 m, 5 min, 2 fixes outside end it), nothing
/// under way at the end, no point skipped.
@Test func trackVisits_aTenMinuteStay_isOneVisitFromArrivalToDeparture() throws {
    let approach: [(seconds: Int?, north: Double)] = [(-120, 1_000), (-60, 500)]
    let stay: [(seconds: Int?, north: Double)] = (0...10).map { (60 * $0, 0) }
    let leave: [(seconds: Int?, north: Double)] = [(660, 500), (720, 1_000), (780, 1_500)]
    var visits: [Visit] = []
    let read = try TrackVisits.read(track(approach + stay + leave), detector: try VisitDetector(), accuracy: GPXAccuracyPolicy(uere: .meters(5))) {
        visits.append($0)
    }
    #expect(visits.count == 1)
    #expect(visits.first?.arrivalDate == t0)
    #expect(visits.first?.departureDate == t0.addingTimeInterval(600))
    #expect(read.points == 16 && read.untimed == 0 && read.backwards == nil && read.current == nil)
    #expect(read.lastFix?.timestamp == t0.addingTimeInterval(780))
}

/// A point without a time is skipped and counted; the first point earlier than the one before
/// it stops the read there, naming it (number from 1) and both times; a stay still going on at
/// the last fix is `current`.
@Test func trackVisits_untimedAndBackwardsPoints_areCountedAndStopTheRead() throws {
    let points: [(seconds: Int?, north: Double)] = [(-120, 1_000), (-60, 500)] + (0...6).map { (60 * $0, 0) } + [(nil, 0), (100, 0), (900, 0)]
    let read = try TrackVisits.read(track(points), detector: try VisitDetector(), accuracy: GPXAccuracyPolicy(uere: .meters(5))) { _ in
        Issue.record("no visit is finished")
    }
    #expect(read.points == 11 && read.untimed == 1)
    let backwards = try #require(read.backwards)
    #expect(backwards.point == 11 && backwards.time == t0.addingTimeInterval(100) && backwards.last == t0.addingTimeInterval(360))
    #expect(read.current?.arrivalDate == t0 && read.current?.isInProgress == true)
}

/// `problems(file:)`: the point out of time order is the failure (before the untimed count),
/// a track with no time at all fails, a few untimed points are a note, a clean read says nothing.
@Test func trackVisits_problems_failureForBackwardsOrNoTimes_noteForSomeUntimed() throws {
    func read(_ points: [(seconds: Int?, north: Double)]) throws -> TrackVisits {
        try TrackVisits.read(track(points), detector: try VisitDetector(), accuracy: GPXAccuracyPolicy(uere: .meters(5))) { _ in }
    }
    let backwards = try read([(0, 0), (nil, 0), (60, 0), (30, 0)]).problems(file: "t.gpx")
    #expect(backwards.failure == "t.gpx: track point 4 (2026-01-01T00:00:30Z) is earlier than the one before it (2026-01-01T00:01:00Z): "
                                 + "the track is out of time order, sort it by time; the visits before it are printed")
    #expect(backwards.note == nil)
    let untimed = try read([(nil, 0), (nil, 10)]).problems(file: "t.gpx")
    #expect(untimed.failure == "t.gpx: none of its 2 track points has a time; visits need times" && untimed.note == nil)
    let some = try read([(0, 0), (nil, 0), (60, 0)]).problems(file: "t.gpx")
    #expect(some.failure == nil && some.note == "t.gpx: 1 of 3 track points have no time and were skipped")
    let clean = try read([(0, 0), (60, 0)]).problems(file: "t.gpx")
    #expect(clean.failure == nil && clean.note == nil)
}
