import Foundation
import Testing
import GeoTestSupport

@Test func sampleCity_writesAFileThatOSMInfoReads() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("city.osm.pbf").path
        let written = try await GeoProcess.geo(["sample-city", "-o", path])
        #expect(written.status == 0, "\(written.stderr)")
        let info = try await GeoProcess.geo(["osm", "info", path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("format: pbf"))
        #expect(info.stdout.contains("relations: 5"))
        #expect(info.stdout.contains("rejected nodes: 0"))
    }
}

@Test func osmInfo_countsTheXMLFixture() async throws {
    guard let url = try Fixtures.url("osm/bautzen.osm") else { return }
    let info = try await GeoProcess.geo(["osm", "info", url.path])
    #expect(info.status == 0)
    #expect(info.stdout.contains("nodes: 781"), "osmium fileinfo -e counts 781 nodes")
    #expect(info.stdout.contains("ways: 97"))
}

@Test func osmInfo_badFileFailsWithOffset() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("bad.osm.pbf").path
        try Data([0, 0, 0, 9, 1, 2, 3]).write(to: URL(fileURLWithPath: path))
        let info = try await GeoProcess.geo(["osm", "info", path])
        #expect(info.status != 0)
        #expect(info.stderr.contains("offset 0"))
    }
}
