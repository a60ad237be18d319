import Foundation
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
    try await withTemporaryDirectory { dir in
        let png = dir.appendingPathComponent("demo.png")
        let result = try await GeoProcess.geo(["demo", "--snapshot", png.path])
        #expect(result.status == 0, "\(result.stderr)")
        // Each capability narrates itself: geodesy, the sample city's route, the simulated drive,
        // the map data and snapshot, the geofence crossed by the drive.
        #expect(result.stdout.contains("Paris → New York: 5852.935 km"))
        #expect(result.stdout.contains("route south-west → north-east"))
        #expect(result.stdout.contains("updates delivered of"))
        #expect(result.stdout.contains("MVT tiles"))
        #expect(result.stdout.contains("fence inside") && result.stdout.contains("fence outside"))
        let bytes = try Data(contentsOf: png)
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), "the snapshot is a PNG")
    }
}
