import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import GPXCodec

/// A source that hands out at most `chunk` bytes per read, to exercise every refill path.
struct ChunkedSource: ByteSource {
    let bytes: [UInt8]
    let chunk: Int
    var position = 0

    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(chunk, buffer.count, bytes.count - position)
        guard n > 0 else { return 0 }
        for k in 0..<n { buffer[k] = bytes[position + k] }
        position += n
        return n
    }
}

func allGPXFiles() throws -> [URL]? {
    guard let a = try Fixtures.files(in: "gpx/gpxpy", withExtension: "gpx"),
          let b = try Fixtures.files(in: "gpx/graphhopper", withExtension: "gpx") else { return nil }
    return a + b
}

func read(_ xml: String) throws(GPXError) -> GPXDocument {
    try GPXReader.read(bytes: Array(xml.utf8))
}

func trackPointCount(_ d: GPXDocument) -> Int {
    d.tracks.reduce(0) { $0 + $1.segments.reduce(0) { $0 + $1.points.count } }
}

@Test func realFiles_allReadWithTheirOneEmptyValue() throws {
    guard let files = try allGPXFiles() else { return }
    #expect(files.count == 36)
    for url in files {
        let bytes = try [UInt8](Data(contentsOf: url))
        let result = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions())
        if url.lastPathComponent == "unicode_with_bom.gpx" {
            // Its writer leaves an empty <fix></fix> (line 10, column 5).
            let w = try #require(result.warnings.first)
            #expect(result.warningCount == 1 && w.code == .emptyValue && w.element == "fix" && w.line == 10 && w.column == 5, "\(w)")
        } else {
            #expect(result.warningCount == 0, "\(url.lastPathComponent): \(result.warnings)")
        }
    }
}

/// A recovering read of `bytes`: the document and the damage, or no points and the error when
/// nothing could be recovered (the cut is before the `<gpx>` start tag ends).
func recoveringRead(_ bytes: [UInt8]) -> (document: GPXDocument, error: GPXError?) {
    do {
        let result = try GPXReader.read(MemorySource(bytes), options: GPXReadOptions(recovering: true))
        return (result.document, result.damage)
    } catch {
        return (GPXDocument(), error)
    }
}

@Test func realFiles_sameResultWithTinyReads() throws {
    guard let files = try allGPXFiles() else { return }
    for url in files {
        let bytes = try [UInt8](Data(contentsOf: url))
        let whole = try GPXReader.read(MemorySource(bytes))
        for chunk in [1, 7] {
            let pieces = try GPXReader.read(ChunkedSource(bytes: bytes, chunk: chunk))
            #expect(pieces == whole, "\(url.lastPathComponent) read \(chunk) bytes at a time")
        }
    }
}

@Test func gpx11AllFields_everyFieldRead() throws {
    guard let url = try Fixtures.url("gpx/gpxpy/gpx1.1_with_all_fields.gpx") else { return }
    let d = try GPXReader.read(bytes: Data(contentsOf: url))
    #expect(d.header.version == .v1_1)
    #expect(d.metadata.name == "example name")
    #expect(d.metadata.author?.email == "aaa@bbb.com")
    #expect(d.metadata.copyright?.author == "gpxauth")
    #expect(d.metadata.copyright?.year == "2013")
    #expect(d.metadata.bounds?.minLatitude == 1.2)
    #expect(d.metadata.author?.link?.text == "link text")
    #expect(d.metadata.links.first?.type == "link type2")
    #expect(d.metadata.keywords == "example keywords")
    #expect(d.metadata.extensions?.xml.contains("<ext:bbb>ccc</ext:bbb>") == true)
    #expect(d.waypoints.count == 2)
    let w = try #require(d.waypoints.first)
    #expect(abs(w.coordinate.latitude - 12.3) < 1e-12, "latitude within 1e-12 degrees")
    #expect(w.elevation?.meters == 75.1)
    #expect(w.time == ISO8601Time.date(from: "2013-01-02T02:03:00Z"))
    #expect(w.magneticVariation?.degrees == 1.1)
    #expect(w.geoidHeight?.meters == 2.0)
    #expect(w.name == "example name")
    #expect(w.comment == "example cmt")
    #expect(w.description == "example desc")
    #expect(w.source == "example src")
    #expect(w.links == [GPXLink(href: "http://link3", text: "link text3", type: "link type3")])
    #expect(w.symbol == "example sym")
    #expect(w.type == "example type")
    #expect(w.fix == .twoDimensional)
    #expect(w.satellites == 5)
    #expect(w.hdop == 6)
    #expect(w.vdop == 7)
    #expect(w.pdop == 8)
    #expect(w.ageOfDGPSData == 9)
    #expect(w.dgpsID == 45)
    #expect(w.extensions?.xml.contains("<ext:ccc>ddd</ext:ccc>") == true)
    #expect(d.routes.count == 2)
    #expect(d.tracks.first?.info.number == 1)
    #expect(d.extensions != nil)
}

@Test func bomCommentsCDATAEntitiesUnicode_read() throws {
    let xml = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- c -->\n<gpx version=\"1.1\" creator=\"t\"><!-- inside -->\n"
        + "<wpt lat=\"1.5\" lon=\"-2.25\"><name>A &amp; B &lt;&#x263A;&#65;&gt;</name><desc><![CDATA[<b>bold</b> & co]]></desc>"
        + "<cmt>Čšž — 日本</cmt><!-- skip --><sym>x<!-- y -->z</sym></wpt></gpx>"
    let d = try read(xml)
    let w = try #require(d.waypoints.first)
    #expect(w.name == "A & B <☺A>")
    #expect(w.description == "<b>bold</b> & co")
    #expect(w.comment == "Čšž — 日本")
    #expect(w.symbol == "xz")
    #expect(w.coordinate.longitude == -2.25)
}

/// A `fix` value and the `version` attribute are read with XML white space around them
/// (XML 1.0 §2.3: space, tab, CR, LF, and CR LF) and not with any other.
@Test func fixAndVersion_readAcrossXMLWhiteSpace_only() throws {
    func point(version: String, fix: String) throws -> GPXDocument {
        try read("<gpx version=\"\(version)\" creator=\"t\"><wpt lat=\"1\" lon=\"2\"><fix>\(fix)</fix></wpt></gpx>")
    }
    let spaced = try point(version: " \t1.0\r\n", fix: "\r\n\t 3d \n")
    #expect(spaced.header.version == .v1_0)
    #expect(spaced.waypoints.first?.fix == .threeDimensional)
    #expect(try point(version: "1.1", fix: "dgps").waypoints.first?.fix == .dgps)
    // A no-break space is not XML white space: the value is not one of the five.
    #expect(try point(version: "1.1", fix: "\u{A0}3d").waypoints.first?.fix == nil)
}

@Test func noNamespaceNoVersion_gpx10ElementsMakeItGPX10() throws {
    guard let url = try Fixtures.url("gpx/gpxpy/track_with_speed.gpx") else { return }
    let d = try GPXReader.read(bytes: Data(contentsOf: url))
    #expect(d.header.version == .v1_0)
    let p = try #require(d.tracks.first?.segments.first?.points.first)
    #expect(p.speed != nil)
}

@Test func extensions_keptVerbatim() throws {
    let ext = "\n  <gpxtpx:TrackPointExtension><gpxtpx:hr>142</gpxtpx:hr><!-- c --><x a='1'/></gpxtpx:TrackPointExtension>&amp;\n"
    let d = try read("<gpx version=\"1.1\" creator=\"t\" xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><extensions>\(ext)</extensions></trkpt></trkseg></trk></gpx>")
    let p = try #require(d.tracks.first?.segments.first?.points.first)
    #expect(p.extensions?.xml == ext)
    #expect(d.header.namespaces == [GPXNamespace(prefix: "gpxtpx", uri: "http://www.garmin.com/xmlschemas/TrackPointExtension/v1")])
}

@Test func times_subSecondZonesAndMissingZ() throws {
    func t(_ s: String) -> Double? { ISO8601Time.date(from: s)?.timeIntervalSince1970 }
    #expect(t("1970-01-01T00:00:00Z") == 0)
    #expect(t("2016-05-27T10:08:47.8Z") == 1_464_343_727.8)
    #expect(t("2016-05-27T10:08:47.800Z") == 1_464_343_727.8)
    #expect(t("2016-05-27T12:08:47+02:00") == 1_464_343_727)
    #expect(t("2016-05-27T08:38:47-0130") == 1_464_343_727)
    #expect(t("2016-05-27T10:08:47") == 1_464_343_727)
    #expect(t("2016-05-27 10:08:47Z") == 1_464_343_727)
    #expect(t(" 2000-02-29T00:00:00Z\n") == 951_782_400)
    #expect(t("2001-02-29T00:00:00Z") == nil)
    #expect(t("2016-05-27T10:08Z") == nil)
    #expect(t("2016-05-27T10:08:47.Z") == nil)
    #expect(t("garbage") == nil)
    // 100 ns resolution survives.
    let d = try #require(ISO8601Time.date(from: "2012-01-01T00:00:00.1234567Z"))
    #expect(abs(d.timeIntervalSince1970 - 1_325_376_000.1234567) < 2e-7, "within 0.2 µs")
}

@Test func times_formatRoundTripsShortest() throws {
    for s in ["2016-05-27T10:08:47Z", "2016-05-27T10:08:47.8Z", "2012-01-01T00:00:00.1234567Z", "1969-12-31T23:59:59.5Z", "2038-01-19T03:14:08.001Z"] {
        let d = try #require(ISO8601Time.date(from: s))
        #expect(ISO8601Time.string(from: d) == s)
    }
    // Any Date reads back identically.
    var rng = SplitMix64(seed: 11)
    for _ in 0..<2_000 {
        let d = Date(timeIntervalSince1970: Double.random(in: -1e9...4e9, using: &rng))
        let back = try #require(ISO8601Time.date(from: ISO8601Time.string(from: d)))
        #expect(back == d, "\(ISO8601Time.string(from: d))")
    }
}

@Test func malformed_errorsCarryLineAndColumn() {
    let cases: [(String, GPXError.Code, Int, Int)] = [
        ("<gpx version=\"1.1\">\n<wpt lat=\"1\" lon=\"2\">\n</trk></gpx>", .malformedXML, 3, 1),
        ("<kml></kml>", .notGPX, 1, 1),
        ("<gpx><wpt lat=\"1\" lon=\"2\"><name>&nbsp;</name></wpt></gpx>", .malformedXML, 1, 33),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><gpx/>", .unsupportedEncoding, 1, 1),
        ("", .truncated, 1, 1),
    ]
    for (xml, code, line, column) in cases {
        do {
            _ = try read(xml)
            Issue.record("no error for \(xml)")
        } catch {
            #expect(error.code == code, "\(xml): \(error)")
            #expect(error.line == line && error.column == column, "\(xml): \(error)")
        }
    }
}

/// The oracle for a cut file: the points whose `</trkpt>` lies wholly inside the prefix are
/// recovered, and the damage starts at the unfinished `<trkpt`, else at an unfinished tag,
/// else at the cut.
@Test(.onOwnThread) func truncatedRealFiles_recoverEveryCompletePoint() throws {
    guard let files = try allGPXFiles() else { return }
    for url in files {
        let bytes = try [UInt8](Data(contentsOf: url))
        let full = try GPXReader.read(MemorySource(bytes))
        let allPoints = full.tracks.flatMap { $0.segments.flatMap(\.points) }
        guard allPoints.count >= 3 else { continue }
        let closeTag = Array("</trkpt>".utf8), openTag = Array("<trkpt ".utf8)
        func occurrences(_ needle: [UInt8], in hay: ArraySlice<UInt8>) -> [Int] {
            guard hay.count >= needle.count else { return [] }
            return (hay.startIndex...(hay.endIndex - needle.count)).filter { i in hay[i..<(i + needle.count)].elementsEqual(needle) }
        }
        let closes = occurrences(closeTag, in: bytes[...])
        // Each point's start and the offset where it is complete (`/>` or `</trkpt>`).
        let spans: [(start: Int, end: Int)] = occurrences(openTag, in: bytes[...]).map { start in
            let tagEnd = bytes[start...].firstIndex(of: 0x3E) ?? bytes.count - 1
            if bytes[tagEnd - 1] == 0x2F { return (start, tagEnd + 1) }
            return (start, (closes.first { $0 > start } ?? bytes.count) + closeTag.count)
        }
        let cuts = stride(from: 1, to: bytes.count - 1, by: max(1, bytes.count / 97)).map { $0 }
        for cut in cuts {
            let prefix = Array(bytes[..<cut])
            let result = recoveringRead(prefix)
            if prefix.count >= 6, prefix.suffix(8).contains(0x3E), String(decoding: prefix.suffix(8), as: UTF8.self).contains("</gpx>") {
                #expect(result.error == nil)
                continue
            }
            let error = try #require(result.error, "\(url.lastPathComponent) cut at \(cut) gave no error")
            let complete = spans.filter { $0.end <= cut }.count
            let got = result.document.tracks.flatMap { $0.segments.flatMap(\.points) }
            #expect(got == Array(allPoints.prefix(complete)), "\(url.lastPathComponent) cut at \(cut)")
            // Where the damage starts.
            let unfinished = spans.first { $0.start < cut && $0.end > cut }
            let lastLT = prefix.lastIndex(of: 0x3C) ?? -1
            let lastGT = prefix.lastIndex(of: 0x3E) ?? -1
            let expected: Int
            if let unfinished { expected = unfinished.start } else if lastLT > lastGT { expected = lastLT } else { expected = cut }
            if complete > 0 || unfinished != nil {
                #expect(error.code == .truncated, "\(url.lastPathComponent) cut at \(cut): \(error)")
                #expect(error.offset == expected, "\(url.lastPathComponent) cut at \(cut): \(error)")
            }
        }
    }
}

@Test func recovery_lineAndColumnPointAtUnfinishedPoint() throws {
    let xml = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"></trkpt>\n  <trkpt lat=\"3\" lon=\"4\"><ele>1"
    let result = recoveringRead(Array(xml.utf8))
    let error = try #require(result.error)
    #expect(error.code == .truncated)
    #expect(error.line == 3 && error.column == 3, "\(error)")
    #expect(trackPointCount(result.document) == 1)
    #expect(throws: GPXError.self) { try GPXReader.read(MemorySource(string: xml), options: GPXReadOptions()) }
}

@Test func streaming_asyncSequenceYieldsTrackPoints() async throws {
    let xml = "<gpx version=\"1.1\" creator=\"t\"><wpt lat=\"9\" lon=\"9\"/><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/><trkpt lat=\"3\" lon=\"4\"/></trkseg><trkseg/><trkseg><trkpt lat=\"5\" lon=\"6\"/></trkseg></trk></gpx>"
    var lats: [Double] = []
    for try await p in GPXTrackPoints(source: MemorySource(string: xml)) { lats.append(p.coordinate.latitude) }
    #expect(lats == [1, 3, 5])
    let two = "<gpx version=\"1.1\" creator=\"t\"><trk><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg></trk><trk><trkseg><trkpt lat=\"7\" lon=\"8\"/></trkseg></trk></gpx>"
    var second: [Double] = []
    for try await p in GPXTrackPoints(source: MemorySource(string: two), track: 1) { second.append(p.coordinate.latitude) }
    #expect(second == [7])
    let d = try read(xml)
    #expect(d.tracks.first?.segments.count == 3)
    var count = 0
    try GPXStreamReader(source: MemorySource(string: xml)).forEachTrackPoint { _ in count += 1 }
    #expect(count == 3)
}

@Test(.onOwnThread) func streaming_memoryStaysBoundedOnLongInput() throws {
    // A generated 200k-point stream is read through a 256 KiB window that never grows.
    struct Generated: ByteSource {
        var remaining: Int
        var pending: [UInt8] = Array("<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n".utf8)
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            while pending.count < buffer.count, remaining >= 0 {
                if remaining == 0 { pending += Array("</trkseg></trk></gpx>\n".utf8) } else {
                    pending += Array("<trkpt lat=\"45.0\" lon=\"13.0\"><ele>1.5</ele><time>2020-01-01T00:00:00Z</time></trkpt>\n".utf8)
                }
                remaining -= 1
            }
            let n = min(buffer.count, pending.count)
            for k in 0..<n { buffer[k] = pending[k] }
            pending.removeFirst(n)
            return n
        }
    }
    let reader = GPXStreamReader(source: Generated(remaining: 200_000))
    var count = 0
    try reader.forEachTrackPoint { _ in count += 1 }
    #expect(count == 200_000)
    #expect(reader.windowCapacity == 1 << 18)
}

@Test func garminExtension_typedAccess() throws {
    guard let url = try Fixtures.url("gpx/gpxpy/gpx_with_garmin_extension.gpx") else { return }
    let d = try GPXReader.read(bytes: Data(contentsOf: url))
    let ext = try #require(d.waypoints.first?.garminTrackPointExtension)
    #expect(ext.heartRate == 171)
    #expect(ext.cadence == nil)
}

@Test func garminExtension_writtenAndReadBack() throws {
    let ext = GarminTrackPointExtension(heartRate: 150, cadence: 88, airTemperature: 21.5, waterTemperature: 14,
                                        depth: .meters(2.5), speed: .metersPerSecond(3.25), course: .degrees(271))
    var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))
    p.extensions = GPXExtensions(xml: "<other:x xmlns:other=\"urn:o\"><other:hr>1</other:hr></other:x>" + ext.xml)
    var doc = GPXDocument(header: GPXHeader(creator: "t"))
    doc.waypoints = [p]
    let back = try GPXReader.read(bytes: GPXWriter.bytes(doc))
    #expect(back.waypoints.first?.garminTrackPointExtension == ext)
    #expect(GPXPoint(coordinate: p.coordinate).garminTrackPointExtension == nil)
}

@Test func recovery_loggerRestartedMidFile() throws {
    // A logger that crashed mid-point and then started a new document in the same file.
    let xml = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"t\"><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"/>\n<trkpt lat=\"3\" lo<?xml version=\"1.0\"?>\n<gpx>"
    let result = recoveringRead(Array(xml.utf8))
    let error = try #require(result.error)
    #expect(error.code == .malformedXML)
    #expect(error.line == 4 && error.column == 18, "\(error)")
    #expect(trackPointCount(result.document) == 1)
}

@Test func lineEnds_normalisedInText() throws {
    let d = try read("<gpx version=\"1.1\" creator=\"t\"><wpt lat=\"1\" lon=\"2\"><desc>a\r\nb\rc&#13;</desc></wpt></gpx>")
    #expect(d.waypoints.first?.description == "a\nb\nc\r")
}
