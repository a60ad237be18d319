import GeoBase
import GPXCodec
import Testing

/// A track of three points, the second at latitude 95 (on line 5): two are read, one warned of.
private let walk = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
    <trk><trkseg>
    <trkpt lat="46.1" lon="14.1"/>
    <trkpt lat="95" lon="14.2"/>
    <trkpt lat="46.3" lon="14.3"/>
    </trkseg></trk>
    </gpx>
    """

/// `GPXReadReport.streamed` and `.read`: the report names the file, counts what the reader
/// handed on and keeps the reader's warnings, the same whether streamed or read whole.
@Test func readReport_streamedAndWhole_countPointsAndKeepTheWarnings() throws {
    let (trackPoints, streamed) = try GPXReadReport.streamed(MemorySource(string: walk), file: "walk.gpx", options: GPXReadOptions()) { reader throws(GPXError) in
        var n = 0
        while let event = try reader.next() { if case .trackPoint = event { n += 1 } }
        return (n, n)
    }
    #expect(trackPoints == 2)
    let (document, whole) = try GPXReadReport.read(MemorySource(string: walk), file: "walk.gpx", options: GPXReadOptions())
    #expect(document.pointCount == 2)
    for report in [streamed, whole] {
        #expect(report.file == "walk.gpx" && report.points == 2 && report.damage == nil)
        #expect(report.warningCount == 1)
        #expect(report.warnings.map(\.code) == [.pointDropped] && report.warnings.first?.line == 5)
    }
}

/// A file cut off inside its third point: refused as truncated, or, recovering, read up to the
/// damage with the two complete points reported kept.
@Test func readReport_cutOffFile_isRefusedOrRecovered() throws {
    let cut = """
        <?xml version="1.0" encoding="UTF-8"?>
        <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
        <trk><trkseg>
        <trkpt lat="46.1" lon="14.1"/>
        <trkpt lat="46.2" lon="14.2"/>
        <trkpt lat="46.3"
        """
    #expect { try GPXReadReport.read(MemorySource(string: cut), file: "cut.gpx", options: GPXReadOptions()) } throws: { error in
        (error as? GPXError)?.code == .truncated
    }
    let (document, report) = try GPXReadReport.read(MemorySource(string: cut), file: "cut.gpx", options: GPXReadOptions(recovering: true))
    #expect(document.pointCount == 2 && report.points == 2)
    #expect(report.damage?.code == .truncated && report.damage?.line == 6)
}

/// The noting entry points: a read that ends notes its warnings (when asked) and what
/// recovering kept; a read that fails notes the failure lines, then rethrows the `GPXError`.
@Test func readReport_noting_tellsTheWarningsOrTheFailure() throws {
    var notes: [String] = []
    let (_, streamed) = try GPXReadReport.streamed(MemorySource(string: walk), file: "walk.gpx", options: GPXReadOptions(), warnings: true,
                                                   note: { notes.append($0) }) { reader in
        var n = 0
        while try reader.next() != nil { n += 1 }
        return ((), n)
    }
    #expect(notes == streamed.diagnosticLines(warnings: true) && notes.count == 1 && notes[0].hasPrefix("walk.gpx:5:"))
    notes = []
    _ = try GPXReadReport.read(MemorySource(string: walk), file: "walk.gpx", options: GPXReadOptions(), note: { notes.append($0) })
    #expect(notes.count == 1 && notes[0].contains("warning:"))
    notes = []
    _ = try GPXReadReport.streamed(MemorySource(string: walk), file: "walk.gpx", options: GPXReadOptions(), warnings: false,
                                   note: { notes.append($0) }) { _ in ((), 0) }
    #expect(notes.isEmpty)
    let cut = String(walk.prefix(walk.count / 2))
    #expect { try GPXReadReport.read(MemorySource(string: cut), file: "cut.gpx", options: GPXReadOptions(), note: { notes.append($0) }) } throws: { error in
        (error as? GPXError)?.code == .truncated
    }
    #expect(notes.count == 2 && notes[0].hasPrefix("cut.gpx:") && notes[1].contains("--recover keeps"))
}
