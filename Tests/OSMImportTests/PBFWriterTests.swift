import Foundation
import Testing
import GeoCore
import GeoTestSupport
import MapData
@testable import OSMImport

/// Parses `osmium fileinfo -e` output into (nodes, ways, relations).
func osmiumCounts(_ url: URL) async throws -> (nodes: Int, ways: Int, relations: Int)? {
    guard let osmium = Osmium.executable else { return nil }
    let result = try await GeoProcess.run(osmium, ["fileinfo", "-e", url.path])
    try #require(result.status == 0, "osmium fileinfo rejected the file: \(result.stderr)")
    func count(_ label: String) -> Int {
        for line in result.stdout.split(separator: "\n") where line.contains("Number of \(label):") {
            return Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? -1
        }
        return -1
    }
    return (count("nodes"), count("ways"), count("relations"))
}

@Test(.onOwnThread) func monaco_roundTripKeepsEveryElement() async throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let original = try readAll(url)
    try await withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("monaco.osm.pbf")
        try OSMPBFWriter.write(nodes: original.nodes, ways: original.ways, relations: original.relations,
                               header: try #require(original.summary.header), to: out)
        let again = try readAll(out)
        #expect(again.nodes == original.nodes)
        #expect(again.ways == original.ways)
        #expect(again.relations == original.relations)
        #expect(again.summary.header?.boundingBox == original.summary.header?.boundingBox)
        #expect(again.relations.flatMap(\.members).contains { $0.role == "outer" })

        if let counts = try await osmiumCounts(out) {
            #expect(counts.nodes == OsmiumCounts.monaco.nodes)
            #expect(counts.ways == OsmiumCounts.monaco.ways)
            #expect(counts.relations == OsmiumCounts.monaco.relations)
        }
    }
}

@Test func writer_withoutMetadataAndRawBlocks_roundTrips() throws {
    let nodes = (1...20_000).map { i in
        OSMNode(id: Int64(i), latitudeE7: Int32(i * 37 - 400_000), longitudeE7: Int32(-i * 91),
                tags: i % 7 == 0 ? ["amenity": "cafe", "name": "Café \(i)"] : [:])
    }
    let ways = [OSMWay(id: 5, nodeRefs: [3, 2, 1, 20_000], tags: ["highway": "primary", "": "dropped"])]
    let relations = [OSMRelation(id: -9, members: [OSMMember(type: .way, ref: 5, role: ""), OSMMember(type: .relation, ref: -9, role: "sub")])]
    try withTemporaryDirectory { dir in
        let out = dir.appendingPathComponent("no-metadata.osm.pbf")
        try OSMPBFWriter.write(nodes: nodes, ways: ways, relations: relations, to: out,
                               options: .init(elementsPerBlock: 3_000, compressionLevel: 0))
        let back = try readAll(out)
        #expect(back.nodes == nodes)
        #expect(back.ways.first?.nodeRefs == [3, 2, 1, 20_000])
        #expect(back.ways.first?.tags == ["highway": "primary"], "the empty key is absurd and dropped on reading")
        #expect(back.summary.ignoredTagCount == 1)
        #expect(back.relations == relations)
        #expect(back.summary.blockCount == 9, "7 node blocks of ≤3000, one way block, one relation block")
    }
}
