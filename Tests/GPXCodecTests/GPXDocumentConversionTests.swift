import Testing
@testable import GPXCodec

/// `GPXDocument.pointCount` and `upgradedToGPX11(creator:)` on a hand-written GPX 1.0 file:
/// counts read off the file, the 1.1 namespace and schema location as topografix.com
/// publishes them.
struct GPXDocumentConversionTests {
    static let gpx10 = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.0" creator="" xmlns="http://www.topografix.com/GPX/1/0">
          <wpt lat="48.0" lon="11.0"><name>start</name></wpt>
          <rte><rtept lat="48.0" lon="11.0"/><rtept lat="48.1" lon="11.1"/></rte>
          <trk>
            <trkseg><trkpt lat="48.0" lon="11.0"><course>90</course><speed>3.5</speed></trkpt><trkpt lat="48.0" lon="11.001"/><trkpt lat="48.0" lon="11.002"/></trkseg>
            <trkseg><trkpt lat="48.1" lon="11.0"/></trkseg>
          </trk>
        </gpx>
        """

    @Test func pointCount_countsWaypointsRouteAndTrackPoints() throws {
        let document = try GPXReader.read(bytes: Array(Self.gpx10.utf8))
        #expect(document.pointCount == 1 + 2 + 4)
        #expect(GPXDocument().pointCount == 0)
    }

    /// The file's two track segments (3 points, then 1), then its route (2 points), with the
    /// coordinates written in it; the waypoint is no line.
    @Test func polylines_trackSegmentsThenRoutes_inFileOrder() throws {
        let lines = try GPXReader.read(bytes: Array(Self.gpx10.utf8)).polylines
        #expect(lines.map(\.count) == [3, 1, 2])
        #expect(lines.map { $0.map(\.longitude) } == [[11.0, 11.001, 11.002], [11.0], [11.0, 11.1]])
        #expect(lines.map { $0.map(\.latitude) } == [[48.0, 48.0, 48.0], [48.1], [48.0, 48.1]])
        #expect(GPXDocument().polylines.isEmpty)
    }

    @Test func upgradedToGPX11_movesA10HeaderAndFillsAnEmptyCreator() throws {
        let document = try GPXReader.read(bytes: Array(Self.gpx10.utf8))
        #expect(document.header.version == .v1_0)
        let upgraded = document.upgradedToGPX11(creator: "LocationKit geo")
        #expect(upgraded.header.version == .v1_1)
        #expect(upgraded.header.schemaLocation == "http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd")
        #expect(upgraded.header.creator == "LocationKit geo")
        #expect(upgraded.tracks == document.tracks && upgraded.waypoints == document.waypoints)
        // Written as 1.1 and read back: the 1.1 namespace, course and speed left out.
        let xml = String(decoding: GPXWriter.bytes(upgraded), as: UTF8.self)
        #expect(xml.contains("xmlns=\"http://www.topografix.com/GPX/1/1\""))
        let back = try GPXReader.read(bytes: GPXWriter.bytes(upgraded))
        #expect(back.header.version == .v1_1 && back.pointCount == 7)
        #expect(back.tracks[0].segments[0].points[0].course == nil && back.tracks[0].segments[0].points[0].speed == nil)
    }

    @Test func upgradedToGPX11_keepsA11HeaderAndItsCreator() throws {
        var document = GPXDocument()
        document.header = GPXHeader(version: .v1_1, creator: "Garmin", schemaLocation: "x y")
        let upgraded = document.upgradedToGPX11(creator: "LocationKit geo")
        #expect(upgraded.header == document.header)
    }
}
