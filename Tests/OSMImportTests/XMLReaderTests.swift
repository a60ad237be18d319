import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
@testable import OSMImport

func readAllXML(_ url: URL) throws -> (nodes: [OSMNode], ways: [OSMWay], relations: [OSMRelation], summary: OSMReadSummary) {
    var nodes: [OSMNode] = [], ways: [OSMWay] = [], relations: [OSMRelation] = []
    let summary = try OSMXMLReader(url: url).read { block in
        nodes += block.nodes
        ways += block.ways
        relations += block.relations
    }
    return (nodes, ways, relations, summary)
}

func readXML(_ text: String) throws -> (nodes: [OSMNode], ways: [OSMWay], relations: [OSMRelation], summary: OSMReadSummary) {
    var nodes: [OSMNode] = [], ways: [OSMWay] = [], relations: [OSMRelation] = []
    let summary = try OSMXMLReader.read(bytes: Array(text.utf8)) { block in
        nodes += block.nodes
        ways += block.ways
        relations += block.relations
    }
    return (nodes, ways, relations, summary)
}

@Test func bautzenXML_countsMatchOsmium() throws {
    guard let url = try Fixtures.url("osm/bautzen.osm") else { return }
    let all = try readAllXML(url)
    #expect(all.nodes.count == OsmiumCounts.bautzen.nodes)
    #expect(all.ways.count == OsmiumCounts.bautzen.ways)
    #expect(all.relations.count == OsmiumCounts.bautzen.relations)
    let box = try #require(all.summary.header?.boundingBox)
    #expect(abs(box.south - 51.1872) < 1e-9, "bounds minlat, degrees")
}

@Test(.onOwnThread) func monacoGzipXML_countsMatchOsmium() throws {
    guard let url = try Fixtures.url("osm/monaco-gh.osm.gz") else { return }
    let all = try readAllXML(url)
    #expect(all.nodes.count == OsmiumCounts.monacoGH.nodes)
    #expect(all.ways.count == OsmiumCounts.monacoGH.ways)
    #expect(all.relations.count == OsmiumCounts.monacoGH.relations)
    #expect(all.relations.contains { $0.members.contains { !$0.role.isEmpty } })
}

/// osmium converts the XML to PBF; both our readers must then see identical elements.
@Test func xmlAndPBFReaders_agreeOnOsmiumConversion() async throws {
    guard let xml = try Fixtures.url("osm/monaco-gh.osm.gz"), let osmium = Osmium.executable else { return }
    try await withTemporaryDirectory { dir in
        let pbf = dir.appendingPathComponent("monaco-gh.osm.pbf")
        let result = try await GeoProcess.run(osmium, ["cat", xml.path, "-o", pbf.path])
        try #require(result.status == 0, "osmium cat: \(result.stderr)")
        let fromXML = try readAllXML(xml)
        let fromPBF = try readAll(pbf)
        #expect(fromXML.nodes == fromPBF.nodes)
        #expect(fromXML.ways == fromPBF.ways)
        #expect(fromXML.relations == fromPBF.relations)
    }
}

@Test func xml_decodesEntitiesMetadataAndMembers() throws {
    let text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!-- a comment with <tags> inside -->
    <osm version="0.6" generator="hand">
     <node id="-1" lat="48.1234567" lon='11.5' version="3" timestamp="2016-01-02T03:04:05Z" changeset="9" uid="7" user="A &amp; B">
      <tag k="name" v="Caf&#233; &lt;Nord&gt; &quot;1&quot; &#x263A;"/>
     </node>
     <node id="2" lat="-0.00000005" lon="-179.99999999"/>
     <way id="10"><nd ref="-1"/><nd ref="2"/><tag k="highway" v="residential"/></way>
     <relation id="20">
      <member type="way" ref="10" role="from"/><member type="node" ref="2" role="via"/>
      <tag k="type" v="restriction"/>
     </relation>
    </osm>
    """
    let all = try readXML(text)
    try #require(all.nodes.count == 2)
    #expect(all.nodes[0].id == -1)
    #expect(all.nodes[0].latitudeE7 == 481_234_567)
    #expect(all.nodes[0].longitudeE7 == 115_000_000)
    #expect(all.nodes[0].tags["name"] == "Café <Nord> \"1\" ☺")
    #expect(all.nodes[0].metadata == OSMMetadata(version: 3, timestamp: 1_451_703_845, changeset: 9, uid: 7, user: "A & B"))
    #expect(all.nodes[1].latitudeE7 == -1, "rounded half away from zero")
    #expect(all.nodes[1].longitudeE7 == -1_800_000_000)
    #expect(all.ways == [OSMWay(id: 10, nodeRefs: [-1, 2], tags: ["highway": "residential"])])
    #expect(all.relations.first?.members == [OSMMember(type: .way, ref: 10, role: "from"), OSMMember(type: .node, ref: 2, role: "via")])
    #expect(all.summary.header?.writingProgram == "hand")
}

@Test func xml_absurdCoordinatesAndTagsAreDroppedWithCounts() throws {
    let long = String(repeating: "x", count: 256)
    let text = """
    <osm version="0.6">
     <node id="1" lat="91.0" lon="0"/>
     <node id="2" lat="1" lon="200"/>
     <node id="3" lat="1" lon="2"><tag k="" v="empty key"/><tag k="note" v="\(long)"/><tag k="ok" v="yes"/></node>
    </osm>
    """
    let all = try readXML(text)
    #expect(all.nodes.map(\.id) == [3])
    #expect(all.nodes.first?.tags == ["ok": "yes"])
    #expect(all.summary.rejectedNodeCount == 2)
    #expect(all.summary.ignoredTagCount == 2)
}

/// Timestamps against GNU `date -u -d TEXT +%s` (the oracle): a leap day, the last second of a
/// century, before 1970 and before 1901; a leap second, which `date` refuses, is POSIX's next
/// minute's second 0 (as CivilCalendar documents).
@Test func xml_timestamps_matchGNUDate() throws {
    let cases: [(String, Int64)] = [("2024-02-29T23:59:59Z", 1_709_251_199), ("1999-12-31T23:59:59Z", 946_684_799),
                                    ("1969-07-20T20:17:40Z", -14_182_940), ("1900-03-01T00:00:00Z", -2_203_891_200),
                                    ("2016-12-31T23:59:60Z", 1_483_228_800)]
    for (text, seconds) in cases {
        let all = try readXML("<osm version=\"0.6\"><node id=\"1\" lat=\"1\" lon=\"2\" timestamp=\"\(text)\"/></osm>")
        #expect(all.nodes.first?.metadata?.timestamp == seconds, "\(text)")
        #expect(all.summary.droppedMetadataValueCount == 0)
    }
}

/// A metadata value that does not parse is dropped and counted; the element, its tags and its
/// other metadata stay, and so does the file.
@Test func xml_badMetadataValues_areDroppedWithACount_theElementsKept() throws {
    let text = """
    <osm version="0.6">
     <node id="1" lat="1" lon="2" version="x" changeset="12" uid="99999999999" timestamp="2023-02-31T00:00:00Z" user="u">
      <tag k="a" v="b"/>
     </node>
     <way id="5" version="2" timestamp="2023-02-28T24:00:00Z"><nd ref="1"/></way>
     <relation id="6" changeset="99999999999999999999" uid="-1"/>
     <relation id="7" version="" timestamp="2023-02-28 12:00:00Z"/>
    </osm>
    """
    let all = try readXML(text)
    #expect(all.nodes.map(\.id) == [1])
    #expect(all.nodes.first?.tags == ["a": "b"])
    #expect(all.nodes.first?.metadata == OSMMetadata(changeset: 12, user: "u"))
    #expect(all.ways.first?.nodeRefs == [1])
    #expect(all.ways.first?.metadata == OSMMetadata(version: 2))
    #expect(all.relations.map(\.id) == [6, 7])
    #expect(all.relations.first?.metadata == OSMMetadata(uid: -1))
    #expect(all.relations.last?.metadata == nil, "every value dropped: no metadata")
    #expect(all.summary.droppedMetadataValueCount == 7)
}

@Test func xml_truncatedInputReportsLineAndKeepsEarlierElements() throws {
    let text = "<osm version=\"0.6\">\n <node id=\"1\" lat=\"1\" lon=\"2\"/>\n <node id=\"2\" lat=\"1\" lo"
    var kept: [OSMNode] = []
    let error = #expect(throws: OSMError.self) {
        try OSMXMLReader.read(bytes: Array(text.utf8)) { kept += $0.nodes }
    }
    #expect(error?.code == .truncated)
    #expect(error?.line == 3)
    #expect(error?.column == 2)
    #expect(kept.map(\.id) == [1])
}

@Test func xml_malformedMarkupIsAnError() throws {
    let error = #expect(throws: OSMError.self) {
        try readXML("<osm>\n<node id=\"x1\" lat=\"1\" lon=\"2\"/></osm>")
    }
    #expect(error?.code == .invalidXML)
    #expect(error?.line == 2)
}

/// Finds the `osmium` tool (osmium-tool; CI installs it) or returns nil to skip.
enum Osmium {
    static var executable: URL? {
        for dir in ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"] {
            let url = URL(fileURLWithPath: dir).appendingPathComponent("osmium")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        if Fixtures.isCI { Issue.record("osmium (osmium-tool) is required under CI") }
        return nil
    }
}

@Test func xml_overpassNoteAndMetaAreSkipped() throws {
    let text = """
    <?xml version="1.0" encoding="UTF-8"?>
    <osm version="0.6" generator="Overpass API 0.7.62">
    <note>The data included in this document is from www.openstreetmap.org. The data is made available under ODbL.</note>
    <meta osm_base="2024-01-01T00:00:00Z"/>
      <node id="1" lat="48.0" lon="11.0"/>
    </osm>
    """
    let all = try readXML(text)
    #expect(all.nodes.map(\.id) == [1])
}

@Test func xml_chunkBoundariesAnywhereGiveTheSameElements() throws {
    var text = "<?xml version='1.0'?>\n<!-- c --><osm version=\"0.6\">\n"
    for i in 1...300 { text += " <node id=\"\(i)\" lat=\"1.5\" lon=\"2.5\"><tag k=\"name\" v=\"n&amp;\(i)\"/></node>\n" }
    text += " <way id=\"1\"><nd ref=\"1\"/><nd ref=\"2\"/></way>\n</osm>\n"
    let bytes = Array(text.utf8)
    let whole = try readXML(text)
    for chunkSize in [1, 2, 3, 7, 64, 1_000] {
        var offset = 0
        var nodes: [OSMNode] = [], ways: [OSMWay] = []
        _ = try OSMXMLReader.parse(chunks: {
            guard offset < bytes.count else { return nil }
            defer { offset += chunkSize }
            return Array(bytes[offset..<min(offset + chunkSize, bytes.count)])
        }, options: OSMReadOptions(blockSize: 70)) { block in
            nodes += block.nodes
            ways += block.ways
        }
        #expect(nodes == whole.nodes, "chunks of \(chunkSize) bytes")
        #expect(ways == whole.ways, "chunks of \(chunkSize) bytes")
    }
    #expect(whole.nodes.count == 300)
    #expect(whole.nodes.last?.tags["name"] == "n&300")
}

@Test(.onOwnThread) func gzipXML_inSmallChunksGivesTheSameElements() throws {
    guard let url = try Fixtures.url("osm/monaco-gh.osm.gz") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    let whole = try readAllXML(url)
    var offset = 0
    var nodes = 0, ways: [OSMWay] = []
    _ = try OSMXMLReader.parse(chunks: {
        guard offset < bytes.count else { return nil }
        defer { offset += 4_099 }
        return Array(bytes[offset..<min(offset + 4_099, bytes.count)])
    }, options: OSMReadOptions()) { block in
        nodes += block.nodes.count
        ways += block.ways
    }
    #expect(nodes == OsmiumCounts.monacoGH.nodes)
    #expect(ways == whole.ways)
}

@Test(.onOwnThread) func truncatedGzipXML_isAnError() throws {
    guard let url = try Fixtures.url("osm/monaco-gh.osm.gz") else { return }
    let bytes = try [UInt8](Data(contentsOf: url))
    var delivered = 0
    let error = #expect(throws: OSMError.self) {
        try OSMXMLReader.read(bytes: Array(bytes[..<(bytes.count / 2)])) { delivered += $0.count }
    }
    #expect(error?.code == .truncated)
    #expect(delivered > 0, "elements before the cut are kept")
}

@Test func xml_cutBetweenElementsIsTruncatedAndKeepsThem() throws {
    let text = "<osm version=\"0.6\">\n <node id=\"1\" lat=\"1\" lon=\"2\"/>\n <node id=\"2\" lat=\"1\" lon=\"2\"/>\n"
    var kept: [OSMNode] = []
    let error = #expect(throws: OSMError.self) {
        try OSMXMLReader.read(bytes: Array(text.utf8)) { kept += $0.nodes }
    }
    #expect(error?.code == .truncated, "</osm> never comes")
    #expect(error?.line == 4 && error?.column == 1 && error?.offset == text.utf8.count, "\(String(describing: error))")
    #expect(kept.map(\.id) == [1, 2])
}

@Test func xml_mismatchedTagsAndDTDEntitiesAreErrorsWithLocations() throws {
    let mismatched = #expect(throws: OSMError.self) {
        try readXML("<osm>\n <way id=\"1\"><nd ref=\"1\"></way>\n</osm>")
    }
    #expect(mismatched?.code == .invalidXML)
    #expect(mismatched?.line == 2 && mismatched?.column == 26, "\(String(describing: mismatched))")
    // Entities a DOCTYPE declares are never expanded (no "billion laughs").
    let laughs = "<!DOCTYPE osm [<!ENTITY a \"lol\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>\n<osm><node id=\"1\" lat=\"1\" lon=\"2\"><tag k=\"x\" v=\"&b;\"/></node></osm>"
    let entity = #expect(throws: OSMError.self) { try readXML(laughs) }
    #expect(entity?.code == .invalidXML)
    #expect(entity?.line == 2, "\(String(describing: entity))")
}

@Test func xml_attributeWhiteSpaceIsNormalizedAndReferencesKept() throws {
    let all = try readXML("<osm><node id=\"1\" lat=\"1\" lon=\"2\"><tag k=\"note\" v=\"a\tb\r\nc&#10;d\"/></node></osm>")
    #expect(all.nodes.first?.tags["note"] == "a b c\nd", "XML 1.0 §3.3.3, as osmium (expat) reads it")
}
