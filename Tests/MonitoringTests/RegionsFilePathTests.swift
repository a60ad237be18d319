import Foundation
import GeoTestSupport
import Monitoring
import SystemIO
import Testing

@Test func regionsFile_atPath_readsTheFileAsItsBytes_andNamesAMissingOne() throws {
    guard let url = try Fixtures.url("osm/monaco.poly") else { return }
    let regions = try RegionsFile.conditions(atPath: url.path)
    #expect(regions.map(\.identifier) == ["none"]) // the .poly file's first line names it
    let missing = url.path + ".missing"
    let error = #expect(throws: SystemIOError.self) { try RegionsFile.conditions(atPath: missing) }
    #expect(error?.path == missing)
}
