import Testing
import GeoTestSupport

@Test func help_listsEveryCommand() async throws {
    let result = try await GeoProcess.geo(["--help"])
    #expect(result.status == 0)
    for command in ["demo", "distance", "sample-city", "osm", "gpx", "eval", "nmea", "track", "simulate", "extract", "route"] {
        #expect(result.stdout.contains("  \(command) "), "geo --help does not list \(command)")
    }
}

@Test func demo_runsOnTheEmbeddedData() async throws {
    let result = try await GeoProcess.geo(["demo"])
    #expect(result.status == 0, "\(result.stderr)")
    // Each capability narrates itself: geodesy, the sample city's route, the simulated drive.
    #expect(result.stdout.contains("Paris → New York: 5852.935 km"))
    #expect(result.stdout.contains("route south-west → north-east"))
    #expect(result.stdout.contains("updates delivered of"))
}
