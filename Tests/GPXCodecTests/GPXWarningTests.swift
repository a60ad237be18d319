import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import GPXCodec

/// The oracle fixture written by scripts/oracles/gpx_bad_values.py: what gpxpy and GPSBabel
/// read from every real file after an empty `<ele/>` in every point or a non-standard `<fix>`.
struct BadValuesOracle: Decodable {
    struct Reading: Decodable {
        var points, tracks, segments, routes, routePoints, waypoints, elevations: Int?
        var length2D_m: Double?
        var error: String?
    }
    struct Variant: Decodable {
        var replacements: Int
        var gpxpy: Reading
        var gpsbabel: Reading
    }
    /// The damages, as regular expressions the oracle script applies identically.
    static let variants: [String: (pattern: String, replacement: String, marker: String)] = [
        "emptyEle": ("<ele>[^<]*</ele>", "<ele/>", "<ele/>"),
        "badFix": ("</trkpt>", "<fix>something_not_in_the_spec</fix></trkpt>", "<fix>something_not_in_the_spec"),
    ]

    static func load() throws -> [String: [String: Variant]] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/gpx-bad-values.json")
        return try JSONDecoder().decode([String: [String: Variant]].self, from: Data(contentsOf: url))
    }

    /// The bytes of `original` with the variant's damage applied.
    static func damaged(_ original: [UInt8], _ variant: String) throws -> [UInt8] {
        let v = try #require(variants[variant])
        let text = String(decoding: original, as: UTF8.self)
        return Array(text.replacingOccurrences(of: v.pattern, with: v.replacement, options: .regularExpression).utf8)
    }
}

/// 1-based line and byte column of a byte offset, counted independently of the reader.
func lineAndColumn(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
    let before = bytes[..<offset]
    let line = before.filter { $0 == 0x0A }.count + 1
    let lineStart = (before.lastIndex(of: 0x0A) ?? -1) + 1
    return (line, offset - lineStart + 1)
}

func points(_ d: GPXDocument) -> [GPXPoint] { d.tracks.flatMap { $0.segments.flatMap(\.points) } }

@Test func badValues_readLikeGpxpyAndGPSBabel() throws {
    let oracle = try BadValuesOracle.load()
    #expect(oracle.count == 36)
    for (name, variants) in oracle.sorted(by: { $0.key < $1.key }) {
        guard let url = try Fixtures.url(name) else { return }
        let original = try [UInt8](Data(contentsOf: url))
        for (variant, expected) in variants.sorted(by: { $0.key < $1.key }) {
            let bytes = try BadValuesOracle.damaged(original, variant)
            let label = "\(name) \(variant)"
            let result = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions())
            let intact = try GPXReader.read(MemorySource(original), options: GPXReadOptions())
            let s = GPXStatistics(result.document)
            // One warning per damaged element, each dropping only its field.
            #expect(result.warningCount == intact.warningCount + expected.replacements, "\(label): \(result.warnings.prefix(3))")
            #expect(result.damage == nil, "\(label)")
            // GPSBabel reads every file; gpxpy reads the empty elevations but rejects the fix.
            let babel = expected.gpsbabel
            #expect(babel.error == nil, "\(label): GPSBabel \(babel.error ?? "")")
            #expect(s.points == babel.points && s.tracks == babel.tracks && s.waypoints == babel.waypoints, "\(label) counts vs GPSBabel")
            for reading in [expected.gpxpy, babel] where reading.error == nil {
                let length = try #require(reading.length2D_m)
                if !gpxpyFlatEarthOutliers.contains(name) {
                    #expect(abs(s.length2D.meters - length) <= 1e-3 * max(1, length), "\(label) 2D length within 0.1 %")
                }
            }
            if variant == "emptyEle", let elevations = expected.gpxpy.elevations {
                #expect(points(result.document).filter { $0.elevation != nil }.count == elevations, "\(label) elevations vs gpxpy")
            }
            // The first warning about a damaged element points at the first one.
            let marker = try #require(BadValuesOracle.variants[variant]).marker
            let element = variant == "emptyEle" ? "ele" : "fix"
            if expected.replacements > 0 {
                let first = try #require(result.warnings.first { $0.element == element && !intact.warnings.contains($0) }, "\(label)")
                let at = try #require(bytes.firstRange(of: Array(marker.utf8))?.lowerBound)
                let (line, column) = lineAndColumn(of: at, in: bytes)
                #expect(first.offset == at && first.line == line && first.column == column, "\(label): \(first)")
            }
            // Nothing else changed: the same points, coordinates and times as the intact file.
            #expect(points(result.document).map(\.coordinate) == points(intact.document).map(\.coordinate), "\(label) coordinates")
            #expect(points(result.document).map(\.time) == points(intact.document).map(\.time), "\(label) times")
            // A bad duplicate leaves an earlier valid value alone (gpxpy keeps the first fix too).
            #expect(points(result.document).map(\.fix) == points(intact.document).map(\.fix), "\(label) fixes")
        }
    }
}

/// Every optional field of GPX 1.0 / 1.1 and of Garmin's TrackPointExtension, empty or invalid:
/// the point is kept, each field is left out, and each is one warning at its start tag.
@Test func everyOptionalField_invalidValueDropsOnlyThatField() throws {
    let fields: [(element: String, text: String)] = [
        ("ele", ""), ("time", "yesterday"), ("magvar", "east"), ("geoidheight", "1,5"), ("fix", "something_not_in_the_spec"),
        ("sat", "many"), ("hdop", "-"), ("vdop", "NaN"), ("pdop", "1e"), ("ageofdgpsdata", "old"), ("dgpsid", "4.5"),
        ("course", "north"), ("speed", "fast"),
    ]
    let garmin: [(element: String, text: String)] = [
        ("hr", "300"), ("cad", ""), ("atemp", "warm"), ("wtemp", "cold"), ("depth", "deep"), ("speed", "-"), ("course", "N"),
    ]
    var xml = "<gpx version=\"1.1\" creator=\"t\" xmlns:gpxtpx=\"\(GarminTrackPointExtension.namespaceV2)\">\n"
        + "<metadata><link><text>no href</text></link><time>today</time><bounds minlat=\"a\" minlon=\"1\" maxlat=\"2\" maxlon=\"3\"/></metadata>\n"
        + "<trk><number>one</number><trkseg>\n<trkpt lat=\"45.5\" lon=\"13.25\">\n"
    for f in fields { xml += "  <\(f.element)>\(f.text)</\(f.element)>\n" }
    xml += "  <extensions><gpxtpx:TrackPointExtension>\n"
    for f in garmin { xml += "    <gpxtpx:\(f.element)>\(f.text)</gpxtpx:\(f.element)>\n" }
    xml += "  </gpxtpx:TrackPointExtension></extensions>\n</trkpt>\n<trkpt lat=\"45.6\" lon=\"13.5\"><ele>12.5</ele></trkpt>\n</trkseg></trk></gpx>\n"
    let bytes = Array(xml.utf8)
    let result = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions())
    let kept = points(result.document)
    #expect(kept.count == 2)
    let p = try #require(kept.first)
    #expect(p.coordinate == Coordinate(uncheckedLatitude: 45.5, longitude: 13.25))
    #expect(p.elevation == nil && p.time == nil && p.magneticVariation == nil && p.geoidHeight == nil && p.fix == nil)
    #expect(p.satellites == nil && p.hdop == nil && p.vdop == nil && p.pdop == nil && p.ageOfDGPSData == nil && p.dgpsID == nil)
    #expect(p.course == nil && p.speed == nil)
    #expect(p.garminTrackPointExtension == GarminTrackPointExtension(), "every Garmin field left out")
    #expect(kept.last?.elevation?.meters == 12.5)
    #expect(result.document.metadata.links.isEmpty && result.document.metadata.time == nil && result.document.metadata.bounds == nil)
    #expect(result.document.tracks.first?.info.number == nil)

    // One warning per bad value, in file order, at the element's start tag.
    let expectedElements = ["link", "time", "bounds", "number"] + fields.map(\.element) + garmin.map { "gpxtpx:\($0.element)" }
    #expect(result.warnings.map(\.element) == expectedElements)
    #expect(result.warningCount == expectedElements.count)
    var searchFrom = 0
    for w in result.warnings {
        let tag = Array("<\(w.element)".utf8)
        let at = try #require(bytes[searchFrom...].firstRange(of: tag)?.lowerBound, "\(w)")
        searchFrom = at + 1
        let (line, column) = lineAndColumn(of: at, in: bytes)
        #expect(w.offset == at && w.line == line && w.column == column, "\(w)")
    }
    let byElement = Dictionary(result.warnings.map { ($0.element, $0) }, uniquingKeysWith: { a, _ in a })
    #expect(byElement["ele"]?.code == .emptyValue && byElement["ele"]?.text == "")
    #expect(byElement["gpxtpx:cad"]?.code == .emptyValue)
    #expect(byElement["fix"]?.code == .invalidValue && byElement["fix"]?.text == "something_not_in_the_spec")
    #expect(byElement["gpxtpx:hr"]?.code == .invalidValue && byElement["gpxtpx:hr"]?.text == "300")
    #expect(byElement["link"]?.code == .missingAttribute && byElement["bounds"]?.code == .invalidValue)
    // The extension XML is kept as written.
    #expect(p.extensions?.xml.contains("<gpxtpx:hr>300</gpxtpx:hr>") == true)
}

@Test func gpx10Fields_invalidValuesDropOnlyThoseFields() throws {
    let xml = "<gpx version=\"1.0\" xmlns=\"http://www.topografix.com/GPX/1/0\"><time></time><bounds minlat=\"1\" minlon=\"2\" maxlat=\"3\"/>"
        + "<trk><trkseg><trkpt lat=\"1\" lon=\"2\"><course>n/a</course><speed></speed><url>u</url></trkpt></trkseg></trk></gpx>"
    let result = try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions())
    #expect(result.warnings.map(\.element) == ["time", "bounds", "course", "speed"])
    #expect(result.warnings.map(\.code) == [.emptyValue, .missingAttribute, .invalidValue, .emptyValue])
    let p = try #require(points(result.document).first)
    #expect(p.course == nil && p.speed == nil && p.links.first?.href == "u")
}

/// A point without a usable `lat` / `lon` is dropped with a warning; the points around it stay.
@Test func requiredCoordinates_missingOrOutOfRangeDropThePoint() throws {
    let xml = """
        <gpx version="1.1" creator="t">
        <wpt lon="2"><name>no lat</name></wpt>
        <wpt lat="1" lon="2"/>
        <rte><rtept lat="91" lon="2"/><rtept lat="3" lon="4"/></rte>
        <trk><trkseg>
          <trkpt lat="5" lon="abc"><ele>1</ele></trkpt>
          <trkpt lat="6" lon=""/>
          <trkpt lat="7" lon="-180.5"/>
          <trkpt lat="8" lon="180"/>
        </trkseg></trk>
        </gpx>
        """
    let result = try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions())
    let d = result.document
    #expect(d.waypoints.map(\.coordinate.latitude) == [1])
    #expect(d.routes.first?.points.map(\.coordinate.latitude) == [3])
    #expect(points(d).map(\.coordinate.latitude) == [8])
    #expect(result.warnings.allSatisfy { $0.code == .pointDropped })
    #expect(result.warnings.map(\.element) == ["wpt", "rtept", "trkpt", "trkpt", "trkpt"])
    #expect(result.warnings.map(\.line) == [2, 4, 6, 7, 8])
    #expect(result.warnings.map(\.column) == [1, 6, 3, 3, 3])
    #expect(result.warnings.map(\.text) == ["", "91", "abc", "", "-180.5"])
}

@Test func warnings_keptUpToTheLimitAllCounted() throws {
    var xml = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>"
    for i in 0..<50 { xml += "<trkpt lat=\"\(i)\" lon=\"0\"><ele/></trkpt>" }
    xml += "</trkseg></trk></gpx>"
    let result = try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions(warningLimit: 3))
    #expect(result.warnings.count == 3 && result.warningCount == 50)
    #expect(points(result.document).count == 50)
}

/// The streaming reader recovers by the same option: it closes what the damage left open, so a
/// statistics pass over the stream equals the statistics of the recovered document.
@Test func streamingRecovery_closesOpenSegmentAndTrack() throws {
    guard let url = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let bytes = Array(try [UInt8](Data(contentsOf: url)).prefix(30_000))
    let reader = GPXStreamReader(source: MemorySource(bytes), options: GPXReadOptions(recovering: true))
    var events: [GPXEvent] = []
    while let e = try reader.next() { events.append(e) }
    let damage = try #require(reader.damage)
    #expect(damage.code == .truncated)
    #expect(Array(events.suffix(2).map { if case .trackEnd = $0 { "trackEnd" } else if case .segmentEnd = $0 { "segmentEnd" } else { "other" } })
            == ["segmentEnd", "trackEnd"])
    var acc = GPXStatisticsAccumulator()
    for e in events { acc.add(e) }
    let document = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions(recovering: true)).document
    #expect(acc.statistics == GPXStatistics(document))
    #expect(acc.statistics.points > 0)
    // Without the option the same bytes are an error.
    #expect(throws: GPXError.self) { try GPXReader.read(MemorySource(bytes), options: GPXReadOptions()) }
}

@Test func brokenStructure_staysAnErrorEvenWhenValuesAreLenient() {
    // A mismatched end tag inside a point is broken XML, not a bad value.
    let xml = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"><ele>1</time></trkpt></trkseg></trk></gpx>"
    #expect {
        try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions())
    } throws: { error in
        guard let e = error as? GPXError else { return false }
        return e.code == .malformedXML && e.line == 2 && e.column == 30
    }
}

/// A warning is located at its element's start tag even when the element's text is longer than
/// the reader's 256 KiB window (the start tag has left the window by the time the text is read).
@Test func warningLocation_survivesAWindowRefill() throws {
    let prefix = "<gpx version=\"1.1\" creator=\"t\">\n<trk>\n  <number>"
    let xml = prefix + "\n<!-- c -->" + String(repeating: "x", count: 300_000) + "</number><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk></gpx>"
    let result = try GPXReader.read(ChunkedSource(bytes: Array(xml.utf8), chunk: 4096), options: GPXReadOptions())
    let w = try #require(result.warnings.first)
    #expect(w.element == "number" && w.code == .invalidValue)
    #expect(w.line == 3 && w.column == 3 && w.offset == Array(prefix.utf8).count - 8, "\(w.line):\(w.column) at \(w.offset)")
    #expect(trackPointCount(result.document) == 1)
}

@Test func asyncTrackPoints_recoveringEndsAtTheLastCompletePoint() async throws {
    let xml = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/><trkpt lat=\"3\" lon=\"4\"><ele>5"
    var lats: [Double] = []
    for try await p in GPXTrackPoints(source: MemorySource(string: xml), options: GPXReadOptions(recovering: true)) {
        lats.append(p.coordinate.latitude)
    }
    #expect(lats == [1])
    await #expect(throws: GPXError.self) {
        for try await _ in GPXTrackPoints(source: MemorySource(string: xml)) {}
    }
}
