import Foundation
import Testing
import GeoBase
import GeoCore
import GPXCodec

/// GPX as CSV (RFC 4180): one row per point, names quoted only when they must be.
@Test func csv_rowsPerPoint_withRFC4180Quoting() throws {
    var document = GPXDocument()
    var waypoint = GPXPoint(coordinate: try Coordinate(latitude: 43.7, longitude: 7.4))
    waypoint.name = "Café \"Le Port\", quai"
    document.waypoints = [waypoint]
    let time = try #require(ISO8601Time.date(from: "2024-05-01T10:00:00Z"))
    let point = GPXPoint(coordinate: try Coordinate(latitude: 43.73, longitude: 7.42), elevation: .meters(12.5), time: time)
    document.tracks = [GPXTrack(segments: [GPXTrackSegment(points: [point, point])])]
    var sink: any ByteSink = MemorySink()
    try GPXCSV.write(document, to: &sink)
    let text = String(decoding: (sink as! MemorySink).bytes, as: UTF8.self)
    #expect(text == """
        kind,track,segment,index,latitude,longitude,elevation_m,time,name
        waypoint,,,0,43.7,7.4,,,"Café ""Le Port"", quai"
        trackpoint,0,0,0,43.73,7.42,12.5,2024-05-01T10:00:00Z,
        trackpoint,0,0,1,43.73,7.42,12.5,2024-05-01T10:00:00Z,

        """)
}
