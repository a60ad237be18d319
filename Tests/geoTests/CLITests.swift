import Testing
import GeoTestSupport

@Test func help_listsEveryCommand() throws {
    let result = try GeoProcess.geo(["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("demo"))
}
