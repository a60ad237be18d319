import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import GPXCodec

/// `point` as a `.measurements` read gives it: the text fields, links and raw XML left out.
private func measurementsOnly(_ point: GPXPoint) -> GPXPoint {
    var p = point
    p.name = nil
    p.comment = nil
    p.description = nil
    p.source = nil
    p.symbol = nil
    p.type = nil
    p.links = []
    p.extensions = nil
    return p
}

/// `document` with every point as a `.measurements` read gives it.
private func measurementsOnly(_ document: GPXDocument) -> GPXDocument {
    var d = document
    d.waypoints = d.waypoints.map(measurementsOnly)
    for r in d.routes.indices { d.routes[r].points = d.routes[r].points.map(measurementsOnly) }
    for t in d.tracks.indices {
        for s in d.tracks[t].segments.indices {
            d.tracks[t].segments[s].points = d.tracks[t].segments[s].points.map(measurementsOnly)
        }
    }
    return d
}

private let measurements = GPXReadOptions(pointFields: .measurements)

/// Every real file (gpxpy's and GraphHopper's test files, devices and apps of many kinds):
/// a `.measurements` read is the full read minus the points' text, with the same warnings and
/// statistics, also when the bytes come a few at a time (every refill path of the skips).
@Test func measurements_realFiles_fullReadMinusPointText() throws {
    guard let files = try allGPXFiles() else { return }
    #expect(files.count == 36)
    for url in files {
        let bytes = try [UInt8](Data(contentsOf: url))
        let full = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions())
        for chunk in [bytes.count, 7] {
            let lean = try GPXReader.read(ChunkedSource(bytes: bytes, chunk: chunk), options: measurements)
            let name = "\(url.lastPathComponent), \(chunk) bytes a read"
            #expect(lean.document == measurementsOnly(full.document), "\(name)")
            #expect(lean.warnings == full.warnings && lean.warningCount == full.warningCount, "\(name)")
            #expect(GPXStatistics(lean.document) == GPXStatistics(full.document), "\(name)")
        }
    }
}

/// The warnings of fields a `.measurements` read leaves out are still given, at the same line
/// and column: a `<link>` without `href`, an invalid Garmin heart rate.
@Test func measurements_skippedFields_stillWarnWithLineAndColumn() throws {
    let xml = """
        <gpx version="1.1" creator="t" xmlns:gpxtpx="\(GarminTrackPointExtension.namespaceV2)"><trk><trkseg>
        <trkpt lat="46.1" lon="14.2"><ele>abc</ele><link><text>no href</text></link>
        <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>999</gpxtpx:hr></gpxtpx:TrackPointExtension></extensions></trkpt>
        </trkseg></trk></gpx>
        """
    let full = try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions())
    let lean = try GPXReader.read(MemorySource(string: xml), options: measurements)
    #expect(full.warningCount == 3)
    #expect(lean.warnings == full.warnings, "\(lean.warnings)")
    let places = lean.warnings.map { "\($0.element)@\($0.line):\($0.column)" }
    #expect(places == ["ele@2:30", "link@2:44", "gpxtpx:hr@3:41"], "\(places)")
    let point = try #require(lean.document.tracks.first?.segments.first?.points.first)
    #expect(point.extensions == nil && point.links.isEmpty && point.elevation == nil)
}

/// Broken XML inside what a `.measurements` read skips is the same error, at the same place,
/// as in a full read: a mismatched tag in extensions, a bad reference in a name or a link, a
/// duplicate attribute in an unknown element.
@Test(arguments: [
    ("<extensions><a></b></extensions>", "malformed XML", 2, 45),
    ("<name>A &bogus; B</name>", "malformed XML", 2, 38),
    ("<link href=\"x&y\"/>", "malformed XML", 2, 43),
    ("<unknown><deeper a=\"1\" a=\"2\"/></unknown>", "malformed XML", 2, 53),
])
func measurements_brokenXMLInSkippedElements_isTheSameError(inner: String, code: String, line: Int, column: Int) {
    let xml = """
        <gpx version="1.1" creator="t"><trk><trkseg>
        <trkpt lat="46.1" lon="14.2">\(inner)</trkpt>
        </trkseg></trk></gpx>
        """
    func failure(_ options: GPXReadOptions) -> GPXError? {
        do { _ = try GPXReader.read(MemorySource(string: xml), options: options); return nil } catch { return error }
    }
    let full = failure(GPXReadOptions()), lean = failure(measurements)
    #expect(full != nil && lean?.code == full?.code && lean?.line == full?.line && lean?.column == full?.column,
            "full: \(String(describing: full)), measurements: \(String(describing: lean))")
    #expect(lean?.code.description == code && lean?.line == line && lean?.column == column, "\(String(describing: lean))")
}
