import Foundation
import GeoBase
import GeoCore
import GPXCodec
import Testing
import TrackFiltering

/// A drive north at 10 m/s, one fix a second, HDOP 1, each point named `p<i>`; point 15 is
/// 5 km east of the line (a jump no vehicle makes in a second).
private func driveWithAJump() -> String {
    var gpx = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"#
    for i in 0..<40 {
        // 10 m of latitude is 10 / 111,195 degrees (spherical Earth, R 6,371,008.8 m: ample at this scale).
        let lat = 46.0 + Double(i) * 10 / 111_195, lon = 14.0 + (i == 15 ? 5_000 / (111_195 * cos(46 * Double.pi / 180)) : 0)
        gpx += #"<trkpt lat="\#(lat)" lon="\#(lon)"><time>2024-05-01T10:00:\#(i < 10 ? "0" : "")\#(i)Z</time><name>p\#(i)</name><hdop>1</hdop></trkpt>"#
    }
    return gpx + "</trkseg></trk></gpx>"
}

/// The points of `gpx` copied through one filter per segment, and the filters' report.
private func copy<Segment: GPXSegmentFilter>(_ gpx: String, _ segment: () -> Segment, report: (Segment) -> FilterReport) throws -> ([GPXPoint], FilterReport) {
    var leftOut = GPXFilteredCopy.LeftOut()
    var total = FilterReport()
    let reader = GPXStreamReader(source: MemorySource(string: gpx))
    let (sink, _) = try GPXFilteredCopy.copy(reader, to: MemorySink(), accuracy: GPXAccuracyPolicy(uere: .meters(5)), leftOut: &leftOut,
                                             segment: segment) { total.merge(report($0)) }
    let document = try GPXReader.read(bytes: sink.bytes)
    return (document.tracks.flatMap(\.segments).flatMap(\.points), total)
}

/// What both filters must do to a GPX segment: drop the warm-up and the jump, keep every other field of the
/// points they keep (here the name and HDOP), in file order, within metres of where they were.
private func expectFiltered(_ kept: [GPXPoint], report: FilterReport) throws {
    let original = try GPXReader.read(bytes: Array(driveWithAJump().utf8)).tracks[0].segments[0].points
    let names = kept.compactMap(\.name)
    #expect(names.count == kept.count, "every kept point keeps its name")
    // The automotive preset's 10 s warm-up takes p0…p9 (one fix a second); the jump goes.
    #expect(names == (10..<40).filter { $0 != 15 }.map { "p\($0)" })
    let indices = names.compactMap { Int($0.dropFirst()) }
    #expect(indices == indices.sorted())
    for (point, i) in zip(kept, indices) {
        #expect(point.hdop == 1)
        #expect(point.time == original[i].time)
        let moved = point.coordinate.distance(to: original[i].coordinate).meters
        #expect(moved < 5, "p\(i) moved \(moved) m: filtered, not another point's place")
    }
    #expect(report.received == 40)
}

@Test func smoothedCleaning_isAGPXSegmentFilterKeepingEachPointsFields() throws {
    let cleaner = TrackCleaner(configuration: try TrackFilterConfiguration.preset(named: "automotiveNavigation"))
    let (kept, report) = try copy(driveWithAJump()) { SmoothedCleaning<StandardRules, GPXPoint>(cleaner) } report: { $0.report }
    try expectFiltered(kept, report: report)
}

@Test func fixedLagSmoothing_isAGPXSegmentFilterKeepingEachPointsFields() throws {
    let configuration = try TrackFilterConfiguration.preset(named: "automotiveNavigation")
    let smoother = KalmanSmoother(parameters: configuration.kalman ?? KalmanParameters())
    let (kept, report) = try copy(driveWithAJump()) {
        FixedLagSmoothing<StandardRules?, GPXPoint>(smoother: smoother, rules: configuration.rules())
    } report: { $0.report }
    try expectFiltered(kept, report: report)
}
