import Foundation
import Testing
import GeoBase
import GeoCore
import GPXCodec

/// A GPX 1.0 file with a track (two points with elevation, time and 1.0's speed) and a waypoint.
private let gpx10 = """
    <?xml version="1.0"?>
    <gpx version="1.0" creator="logger" xmlns="http://www.topografix.com/GPX/1/0">
    <wpt lat="43.7" lon="7.4"><name>Port</name></wpt>
    <trk><trkseg>
    <trkpt lat="43.73" lon="7.42"><ele>12.5</ele><time>2024-05-01T10:00:00Z</time><speed>3.5</speed></trkpt>
    <trkpt lat="43.74" lon="7.43"><ele>13</ele><time>2024-05-01T10:00:10Z</time></trkpt>
    </trkseg></trk>
    </gpx>
    """

private func converted(_ format: GPXOutputFormat) throws -> String {
    let document = try GPXReader.read(bytes: Array(gpx10.utf8))
    var sink: any ByteSink = MemorySink()
    try format.write(document, creator: "test suite", to: &sink)
    return String(decoding: try #require(sink as? MemorySink).bytes, as: UTF8.self)
}

/// `gpx`: GPX 1.1 keeping the file's creator (the given one only fills an empty one), every
/// point kept, GPX 1.0's speed dropped (1.1 has no place for it); read back, the points are
/// the same.
@Test func gpxOutputFormat_gpx_isGPX11WithThePointsAndWithoutSpeed() throws {
    let text = try converted(.gpx)
    #expect(text.contains("version=\"1.1\""))
    #expect(text.contains("creator=\"logger\""))
    var anonymous = try GPXReader.read(bytes: Array(gpx10.utf8))
    anonymous.header.creator = ""
    var sink: any ByteSink = MemorySink()
    try GPXOutputFormat.gpx.write(anonymous, creator: "test suite", to: &sink)
    #expect(String(decoding: try #require(sink as? MemorySink).bytes, as: UTF8.self).contains("creator=\"test suite\""))
    #expect(text.contains("http://www.topografix.com/GPX/1/1"))
    #expect(!text.contains("<speed>"))
    let back = try GPXReader.read(bytes: Array(text.utf8))
    let points = try #require(back.tracks.first?.segments.first?.points)
    #expect(points.map(\.coordinate.latitude) == [43.73, 43.74])
    #expect(points.map { $0.elevation?.meters } == [12.5, 13])
    #expect(back.waypoints.map(\.name) == ["Port"])
}

/// `geojson`: one line (RFC 7946 FeatureCollection, positions [lon, lat, ele]) ending in a newline.
@Test func gpxOutputFormat_geojson_isOneLineOfLonLatPositions() throws {
    let text = try converted(.geojson)
    #expect(text.hasSuffix("}\n") && text.filter { $0 == "\n" }.count == 1)
    let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    #expect(root["type"] as? String == "FeatureCollection")
    let features = try #require(root["features"] as? [[String: Any]])
    #expect(features.count == 2) // the waypoint's Point, the track's MultiLineString
    let point = try #require((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [Double])
    #expect(point == [7.4, 43.7])
    let lines = try #require((features[1]["geometry"] as? [String: Any])?["coordinates"] as? [[[Double]]])
    #expect(lines == [[[7.42, 43.73, 12.5], [7.43, 43.74, 13]]])
}

/// `csv`: the header, then one row per point in document order (waypoints first).
@Test func gpxOutputFormat_csv_hasOneRowPerPoint() throws {
    #expect(try converted(.csv) == """
        kind,track,segment,index,latitude,longitude,elevation_m,time,name
        waypoint,,,0,43.7,7.4,,,Port
        trackpoint,0,0,0,43.73,7.42,12.5,2024-05-01T10:00:00Z,
        trackpoint,0,0,1,43.74,7.43,13.0,2024-05-01T10:00:10Z,

        """)
    #expect(GPXOutputFormat(rawValue: "kml") == nil)
}

/// A failed read's lines name the file, line and column; a cut-off file read without
/// recovering gets the hint that recovering keeps the points before the cut, a recovering
/// read (whose failure is then not the cut) does not.
@Test func gpxReadReport_failureLines_nameThePlaceAndHintsAtRecovering() throws {
    let cut = Array(gpx10.utf8.prefix(200))
    let error = try #require(throws: GPXError.self) { try GPXReader.read(MemorySource(cut), options: GPXReadOptions()) }
    #expect(error.code == .truncated)
    let lines = GPXReadReport.failureLines(error, file: "cut.gpx", recovering: false)
    #expect(lines == [
        "cut.gpx:\(error.line):\(error.column): truncated: \(error.message)",
        "cut.gpx: --recover keeps every point complete before line \(error.line), column \(error.column)",
    ])
    let recovering = GPXReadReport.failureLines(error, file: "cut.gpx", recovering: true)
    #expect(recovering == ["cut.gpx:\(error.line):\(error.column): truncated: \(error.message)"])
    let notGPX = GPXError(.notGPX, "root element is <kml>", line: 1, column: 1, offset: 0)
    #expect(GPXReadReport.failureLines(notGPX, file: "x", recovering: false).count == 1)
}
