import GeoBase
import GeoCore
import Testing
@testable import GPXCodec

/// Absurd numbers in a file: the field is left out with a warning at its element's line and
/// column, the point and its other fields stay (issue 13 §2). Ranges: `GPXFieldRanges`.
@Test func pointFields_outOfRange_areLeftOutWithALocatedWarning() throws {
    let xml = """
        <gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>
        <trkpt lat="1" lon="2"><ele>1e308</ele><time>2020-01-01T00:00:00Z</time>
        <course>-5</course><speed>1e308</speed><hdop>-1</hdop><geoidheight>1e9</geoidheight></trkpt>
        <trkpt lat="1" lon="2.001"><ele>12</ele><course>359.5</course><speed>1e-308</speed><hdop>1.2</hdop></trkpt>
        </trkseg></trk></gpx>
        """
    let result = try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions())
    #expect(result.warnings.map(\.element) == ["ele", "course", "speed", "hdop", "geoidheight"])
    #expect(result.warnings.allSatisfy { $0.code == .invalidValue })
    #expect(result.warnings.map(\.line) == [2, 3, 3, 3, 3])
    #expect(result.warnings.map(\.column) == [24, 1, 20, 40, 55]) // counted by hand: 1-based byte columns of each start tag
    #expect(result.warnings.first { $0.element == "speed" }?.message.contains("outside 0…10000 m/s") == true)
    let points = result.document.tracks.flatMap(\.segments).flatMap(\.points)
    #expect(points.count == 2)
    #expect(points[0].elevation == nil && points[0].course == nil && points[0].speed == nil && points[0].hdop == nil)
    #expect(points[0].time != nil, "the point's valid fields stay")
    // In range, however small: 1e-308 m/s is a valid (if silly) speed.
    #expect(points[1].elevation?.meters == 12 && points[1].course?.degrees == 359.5)
    #expect(points[1].speed?.metersPerSecond == 1e-308 && points[1].hdop == 1.2)
}
