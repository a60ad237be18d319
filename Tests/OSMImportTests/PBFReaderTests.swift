import Foundation
import Testing
import GeoCore
import GeoTestSupport
@testable import OSMImport

/// Element counts from `osmium fileinfo -e FILE` (osmium-tool 1.x, Debian), run on the
/// shared data files: the oracle for the readers.
enum OsmiumCounts {
    static let monaco = (nodes: 180_118, ways: 27_377, relations: 212)
    static let andorra = (nodes: 69_644, ways: 2_725, relations: 74)
    static let monacoGH = (nodes: 13_739, ways: 1_944, relations: 77)
    static let bautzen = (nodes: 781, ways: 97, relations: 0)
}

/// Reads a whole PBF file into arrays.
func readAll(_ url: URL, options: OSMReadOptions = OSMReadOptions()) throws -> (nodes: [OSMNode], ways: [OSMWay], relations: [OSMRelation], summary: OSMReadSummary) {
    var nodes: [OSMNode] = [], ways: [OSMWay] = [], relations: [OSMRelation] = []
    let summary = try OSMPBFReader(url: url, options: options).read { block in
        nodes += block.nodes
        ways += block.ways
        relations += block.relations
    }
    return (nodes, ways, relations, summary)
}

@Test(.onOwnThread) func monaco_countsMatchOsmium() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let all = try readAll(url)
    #expect(all.nodes.count == OsmiumCounts.monaco.nodes)
    #expect(all.ways.count == OsmiumCounts.monaco.ways)
    #expect(all.relations.count == OsmiumCounts.monaco.relations)
    #expect(all.summary.rejectedNodeCount == 0)
    // Monaco lies inside its header bbox (osmium: 7.349,43.71 – 7.491,43.77).
    let box = try #require(all.summary.header?.boundingBox)
    #expect(abs(box.west - 7.349) < 1e-9, "west edge, degrees")
    #expect(abs(box.north - 43.77) < 1e-9, "north edge, degrees")
    // Sorted file: ids increase within each kind.
    #expect(zip(all.nodes, all.nodes.dropFirst()).allSatisfy { $0.id < $1.id })
    #expect(all.nodes.allSatisfy { $0.metadata != nil && $0.metadata?.version ?? 0 > 0 })
}

@Test func andorra_countsMatchOsmium() throws {
    guard let url = try Fixtures.url("osm/andorra.osm.pbf") else { return }
    let all = try readAll(url)
    #expect(all.nodes.count == OsmiumCounts.andorra.nodes)
    #expect(all.ways.count == OsmiumCounts.andorra.ways)
    #expect(all.relations.count == OsmiumCounts.andorra.relations)
}

@Test(.onOwnThread) func monaco_parallelAndSerialReadsAgree() throws {
    guard let url = try Fixtures.url("osm/monaco.osm.pbf") else { return }
    let parallel = try readAll(url, options: OSMReadOptions(parallelism: 4))
    let serial = try readAll(url, options: OSMReadOptions(parallelism: 1))
    #expect(parallel.nodes == serial.nodes)
    #expect(parallel.ways == serial.ways)
    #expect(parallel.relations == serial.relations)
}

/// The committed counts above came from osmium; this asks osmium again, live (CI installs it).
@Test(arguments: ["osm/monaco.osm.pbf", "osm/andorra.osm.pbf", "osm/monaco-gh.osm.gz", "osm/bautzen.osm"])
func counts_matchOsmiumLive(_ file: String) async throws {
    guard let url = try Fixtures.url(file), let expected = try await osmiumCounts(url) else { return }
    var nodes = 0, ways = 0, relations = 0
    try OSMFileReader.read(url: url) { block in
        nodes += block.nodes.count
        ways += block.ways.count
        relations += block.relations.count
    }
    #expect(nodes == expected.nodes)
    #expect(ways == expected.ways)
    #expect(relations == expected.relations)
}
