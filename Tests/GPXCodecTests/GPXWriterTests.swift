import Foundation
import GeoBase
import GeoCore
import GeoTestSupport
import Testing
@testable import GPXCodec

@Test func realFiles_writeReadRoundTripIsLossless() throws {
    guard let files = try allGPXFiles() else { return }
    for url in files {
        let original = try GPXReader.read(bytes: Data(contentsOf: url))
        let written = GPXWriter.bytes(original)
        let back = try GPXReader.read(bytes: written)
        #expect(back == original, "\(url.lastPathComponent)")
        // Writing again gives the same bytes.
        #expect(GPXWriter.bytes(back) == written, "\(url.lastPathComponent)")
    }
}

@Test func realFiles_asGPX11KeepEverythingBut10OnlyFields() throws {
    guard let files = try allGPXFiles() else { return }
    for url in files {
        var original = try GPXReader.read(bytes: Data(contentsOf: url))
        original.header.version = .v1_1
        let back = try GPXReader.read(bytes: GPXWriter.bytes(original))
        // GPX 1.1 has no course or speed elements.
        func strip(_ p: GPXPoint) -> GPXPoint { var p = p; p.course = nil; p.speed = nil; return p }
        var expected = original
        expected.waypoints = expected.waypoints.map(strip)
        expected.tracks = expected.tracks.map { t in
            var t = t
            t.segments = t.segments.map { s in var s = s; s.points = s.points.map(strip); return s }
            return t
        }
        expected.routes = expected.routes.map { r in var r = r; r.points = r.points.map(strip); return r }
        #expect(back == expected, "\(url.lastPathComponent)")
    }
}

@Test func numbers_neverUseExponent() throws {
    var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 0.000091697, longitude: -1e-7), elevation: .meters(5e-6))
    p.hdop = 1e21
    p.vdop = .nan
    var doc = GPXDocument(header: GPXHeader(creator: "t"))
    doc.waypoints = [p]
    let text = GPXWriter.string(doc)
    #expect(text.contains("lat=\"0.000091697\" lon=\"-0.0000001\""))
    #expect(text.contains("<ele>0.000005</ele>"))
    #expect(text.contains("<hdop>1000000000000000000000</hdop>"))
    #expect(!text.contains("vdop"))
    let back = try GPXReader.read(bytes: Array(text.utf8))
    #expect(back.waypoints.first?.coordinate == p.coordinate)
    // An HDOP of 1e21 is written as asked, and read back as out of range (GPXFieldRanges.dilution).
    #expect(back.waypoints.first?.hdop == nil)
}

@Test func escaping_textAndAttributesRoundTrip() throws {
    var p = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))
    p.name = "a<b>&\"c\" 'd'\r\n\te — ☺ \u{1}"
    p.links = [GPXLink(href: "http://x/?a=1&b=\"2\"\n", text: "t&t")]
    var doc = GPXDocument(header: GPXHeader(creator: "A & \"B\""))
    doc.waypoints = [p]
    let back = try GPXReader.read(bytes: GPXWriter.bytes(doc))
    #expect(back.header.creator == "A & \"B\"")
    #expect(back.waypoints.first?.name == "a<b>&\"c\" 'd'\r\n\te — ☺ ")
    #expect(back.waypoints.first?.links == p.links)
}

@Test func streamWriter_flushesIncrementally() throws {
    var w = try GPXStreamWriter(sink: MemorySink(), header: GPXHeader(creator: "t"))
    try w.beginTrack(GPXPathInfo(name: "n"))
    try w.beginSegment()
    for i in 0..<10_000 {
        try w.write(trackPoint: GPXPoint(coordinate: Coordinate(uncheckedLatitude: Double(i) / 1000, longitude: 0),
                                         time: Date(timeIntervalSince1970: Double(i))))
    }
    try w.endSegment()
    try w.endTrack()
    let sink = try w.finish()
    let d = try GPXReader.read(bytes: sink.bytes)
    #expect(trackPointCount(d) == 10_000)
    #expect(d.tracks.first?.info.name == "n")
}

@Test func point_detailFieldsCopyOnWrite() {
    var a = GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))
    a.name = "a"
    a.hdop = 1.5
    var b = a
    b.name = "b"
    #expect(a.name == "a" && b.name == "b" && b.hdop == 1.5)
    #expect(a != b)
    b.name = "a"
    #expect(a == b && a.hashValue == b.hashValue)
    b.name = nil
    b.hdop = nil
    #expect(b == GPXPoint(coordinate: a.coordinate))
    #expect(MemoryLayout<GPXPoint>.size <= 80)
}

/// What a crash-safe log file holds: each write replaces the closing tags of the previous one.
/// A class, so the test sees the bytes while the writer owns the sink.
private final class OverwrittenFile {
    var bytes: [UInt8] = []
    var closingTagsStart = 0
    /// The document after each write, or why it did not read.
    var documents: [Result<GPXDocument, GPXError>] = []
}

private struct OverwritingSink: GPXCompletingSink {
    let file: OverwrittenFile
    mutating func write(_ bytes: UnsafeRawBufferPointer, closingTagCount: Int) {
        file.bytes.replaceSubrange(file.closingTagsStart..., with: bytes)
        file.closingTagsStart = file.bytes.count - closingTagCount
        file.documents.append(Result { () throws(GPXError) in try GPXReader.read(bytes: file.bytes) })
    }
}

/// A completing writer leaves a complete document after every write, in every stage and at
/// the automatic 64 KiB flushes, and ends with exactly the bytes the plain writer writes.
@Test func completingWriter_leavesACompleteDocumentAfterEveryWrite() throws {
    let file = OverwrittenFile()
    let extensions = GPXExtensions(xml: "<trip>b</trip>")
    var document = GPXDocument(header: GPXHeader(creator: "t"))
    document.waypoints = [GPXPoint(coordinate: Coordinate(uncheckedLatitude: 1, longitude: 2))]
    document.routes = [GPXRoute(info: GPXPathInfo(name: "plan"), points: [GPXPoint(coordinate: Coordinate(uncheckedLatitude: 3, longitude: 4))])]
    let points = (0..<3_000).map { GPXPoint(coordinate: Coordinate(uncheckedLatitude: Double($0) / 1000, longitude: 0), time: Date(timeIntervalSince1970: Double($0))) }
    document.tracks = [GPXTrack(info: GPXPathInfo(name: "n"), segments: [GPXTrackSegment(points: Array(points[..<2])), GPXTrackSegment(points: Array(points[2...]))])]
    document.extensions = extensions

    var w = try GPXStreamWriter(completing: OverwritingSink(file: file), header: document.header, documentExtensions: extensions)
    try w.flush()
    try w.write(waypoint: document.waypoints[0])
    try w.flush()
    try w.beginRoute(document.routes[0].info)
    try w.flush()
    try w.write(routePoint: document.routes[0].points[0])
    try w.flush()
    try w.endRoute()
    try w.beginTrack(document.tracks[0].info)
    try w.flush()
    for segment in document.tracks[0].segments {
        try w.beginSegment()
        for p in segment.points { try w.write(trackPoint: p) } // the second segment flushes by itself
        try w.flush()
        try w.endSegment()
        try w.flush()
    }
    try w.endTrack()
    _ = try w.finish()

    #expect(file.documents.count > 10, "10 explicit flushes and automatic ones: \(file.documents.count) writes")
    for (i, result) in file.documents.enumerated() {
        #expect(throws: Never.self, "write \(i)") { _ = try result.get() }
        #expect((try? result.get())?.extensions == extensions, "write \(i)")
    }
    let pointsAfterEachWrite = file.documents.map { (try? $0.get()).map(trackPointCount) ?? -1 }
    #expect(pointsAfterEachWrite == pointsAfterEachWrite.sorted(), "points only grow: \(pointsAfterEachWrite)")
    #expect(file.bytes == GPXWriter.bytes(document), "the last write leaves the plain writer's document")
}
