import Foundation
import Testing
import GeoBase
import GeoTestSupport
import GPXCodec
import Positioning

@Test func gpxSource_damagedFileIsAnErrorUnlessRecovering() throws {
    let text = """
    <?xml version="1.0"?>
    <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>
    <trkpt lat="46.1" lon="14.1"><time>2020-01-01T00:00:00Z</time></trkpt>
    <trkpt lat="46.2" lon="14.2"><time>2020-01-01T00:00:01Z</time></trkpt>
    <trkpt lat="46.3" lon="14.3"><ti
    """
    try withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("cut.gpx").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: PositioningError.self) { try PositionSourceURI.source("gpx:\(path)?speed=max", startDate: Date()) }
        #expect(error?.message.contains("\(path) is damaged") == true && error?.message.contains("replays the 2 points") == true,
                "\(String(describing: error))")
        let damage = error?.underlying as? GPXError
        #expect(damage?.code == .truncated && damage?.line == 5 && damage?.column == 1, "\(String(describing: damage))")
        _ = try PositionSourceURI.source("gpx:\(path)?speed=max&recover", startDate: Date())
    }
}

/// A network source's port is a TCP port 1…65535 (`PositionSourceURI.Limits.port`): both ends
/// make a source (nothing connects before it is started); 0 and 65536 are refused, naming the range.
@Test func networkSourcePort_oneThrough65535_elseRefusedNamingTheRange() throws {
    for uri in ["gpsd://127.0.0.1:1", "nmea+tcp://127.0.0.1:65535"] { _ = try PositionSourceURI.source(uri, startDate: Date()) }
    for uri in ["gpsd://127.0.0.1:0", "nmea+tcp://127.0.0.1:65536"] {
        let error = #expect(throws: PositioningError.self, "\(uri)") { try PositionSourceURI.source(uri, startDate: Date()) }
        #expect(error?.message == "'\(uri)' needs host:port with a port in 1…65535")
    }
}
