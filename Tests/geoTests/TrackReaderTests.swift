import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import GPXCodec
import MapMatching
import Testing
import TraceFiles

// `geo match` reads CSV and GeoJSON traces' times as ISO 8601 (ISO8601Time: fractions, a space for
// `T`, offsets) or Unix seconds; 2024-05-01T10:00:00Z is 1714557600 (GNU `date -u -d … +%s`).

@Test func csvTimes_fractionsSpacesOffsetsAndUnixSeconds() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("trace.csv").path
        try Data("""
        lat,lon,time
        48.0,11.0,2024-05-01T10:00:00.250Z
        48.0001,11.0,2024-05-01 10:00:01Z
        48.0002,11.0,2024-05-01T12:00:02+02:00
        48.0003,11.0,1714557603.5
        """.utf8).write(to: URL(fileURLWithPath: path))
        let times = try TraceFile.csv(path).map { $0.time?.timeIntervalSince1970 }
        #expect(times == [1_714_557_600.25, 1_714_557_601, 1_714_557_602, 1_714_557_603.5])
        try Data("lat,lon,time\n48.0,11.0,2024-02-30T10:00:00Z\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(throws: (any Error).self) { try TraceFile.csv(path) }
    }
}

@Test func geoJSONCoordTimes_keepTheirFractions() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("trace.geojson").path
        try Data("""
        {"type":"Feature","geometry":{"type":"LineString","coordinates":[[11.0,48.0],[11.0,48.0001]]},
         "properties":{"coordTimes":["2024-05-01T10:00:00.5Z","2024-05-01T10:00:01.75Z"]}}
        """.utf8).write(to: URL(fileURLWithPath: path))
        #expect(try TraceFile.geoJSON(path).map { $0.time?.timeIntervalSince1970 } == [1_714_557_600.5, 1_714_557_601.75])
    }
}

/// `TraceFile.gpxDocument`, what `geo snapshot --track` draws: a GPX file whole (two track
/// segments, a route, a waypoint), and the line and column of a malformed one.
@Test func gpxDocument_readsTheWholeFile_orSaysWhereItBreaks() throws {
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("drawn.gpx").path
        try Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
        <wpt lat="43.73" lon="7.42"/>
        <rte><rtept lat="43.73" lon="7.415"/><rtept lat="43.735" lon="7.43"/></rte>
        <trk><trkseg><trkpt lat="43.7384" lon="7.42"/><trkpt lat="43.74" lon="7.4246"/></trkseg><trkseg><trkpt lat="43.739" lon="7.422"/></trkseg></trk>
        </gpx>
        """.utf8).write(to: URL(fileURLWithPath: path))
        let document = try TraceFile.gpxDocument(path)
        #expect(document.waypoints.count == 1 && document.routes.map(\.points.count) == [2])
        #expect(document.tracks.first?.segments.map(\.points.count) == [2, 1])
        #expect(document.tracks.first?.segments.first?.points.last?.coordinate.longitude == 7.4246)

        // An unclosed <trkseg> closed by </trk>: line 3, where </trk> stands.
        try Data("<gpx version=\"1.1\" creator=\"t\">\n<trk><trkseg><trkpt lat=\"1\" lon=\"2\"/>\n</trk></gpx>\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: TraceFileError.self) { try TraceFile.gpxDocument(path) }
        #expect(error?.location.hasPrefix("\(path):3:") == true, "\(String(describing: error))")
        #expect(error?.code == .malformed)
    }
}

/// The reader's format choice by extension is Foundation's `URL.pathExtension`, lowercased
/// (the oracle), without building a URL.
@Test func fileExtension_isURLsPathExtensionLowercased() {
    for path in ["track.gpx", "dir/Track.GPX", "/a/b.c/trace.geojson", "trace.json", "x.csv", "drive.nmea", "noextension",
                 "dir.gpx/file", ".gpx", "dir/.hidden", "a.b.c", "-", "trailing/slash.gpx/", "name.", "/"] {
        #expect(TraceFile.fileExtension(of: path) == URL(fileURLWithPath: path).pathExtension.lowercased(), "\(path)")
    }
}
