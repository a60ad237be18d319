import Foundation
import Testing
import GeoTestSupport

/// Every command that reads a named file, with the file argument marked `FILE`.
private let readingCommands: [[String]] = [
    ["gpx", "stats", "FILE"],
    ["gpx", "convert", "FILE", "--to", "geojson"],
    ["nmea", "decode", "FILE"],
    ["osm", "info", "FILE"],
    ["extract", "FILE", "-o", "out.graph"],
    ["route", "--graph", "FILE", "--from", "48,11", "--to", "48.001,11.001"],
    ["simulate", "--route", "FILE", "--fast", "--count", "1"],
]

@Test(arguments: readingCommands)
func missingFileOrDirectory_isOneLineAndExit66(command: [String]) async throws {
    try await withTemporaryDirectory { dir in
        let missing = dir.appendingPathComponent("nope.gpx").path
        for (path, reason) in [(missing, "no such file"), (dir.path, "a directory, not a file")] {
            let arguments = command.map { $0 == "FILE" ? path : $0 == "out.graph" ? dir.appendingPathComponent("out.graph").path : $0 }
            let result = try await GeoProcess.geo(arguments)
            #expect(result.status == 66, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "geo: \(reason): \(path)\n", "\(arguments)")
            #expect(result.stdout.isEmpty)
        }
    }
}

@Test func truncatedOSMXML_namesTheFileAndPosition() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("cut.osm").path
        try Data("<?xml version=\"1.0\"?>\n<osm version=\"0.6\">\n <node id=\"1\" lat=\"1\" lon=\"2\"/>\n".utf8).write(to: URL(fileURLWithPath: path))
        for command in [["osm", "info", path], ["extract", path, "-o", dir.appendingPathComponent("g").path]] {
            let result = try await GeoProcess.geo(command)
            #expect(result.status == 65, "\(command): \(result.stderr)")
            #expect(result.stderr.hasPrefix("geo \(command[0] == "osm" ? "osm" : "extract"): \(path): truncated input:"), "\(result.stderr)")
            #expect(result.stderr.contains("(line 4, column 1) at byte offset 74"), "\(result.stderr)")
        }
        let recovered = try await GeoProcess.geo(["osm", "info", "--recover", path])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(recovered.stdout.contains("nodes: 1\n"), "\(recovered.stdout)")
        #expect(recovered.stderr.contains("--recover kept 1 nodes, 0 ways, 0 relations before the damage"), "\(recovered.stderr)")
    }
}

@Test func damagedGPXSource_failsUnlessRecovering() async throws {
    guard let url = try Fixtures.url("gpx/gpxpy/korita-zbevnica.gpx") else { return }
    let bytes = try Data(contentsOf: url)
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("cut.gpx").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        let strict = try await GeoProcess.geo(["track", "--source", "gpx:\(path)?speed=max", "--preset", "raw"])
        #expect(strict.status != 0, "\(strict.stderr)")
        #expect(strict.stderr.contains("\(path) is damaged") && strict.stderr.contains("truncated"), "\(strict.stderr)")
        #expect(strict.stdout.isEmpty)
        let recovered = try await GeoProcess.geo(["track", "--source", "gpx:\(path)?speed=max&recover", "--preset", "raw", "--count", "3"])
        #expect(recovered.status == 0, "\(recovered.stderr)")
        #expect(recovered.stdout.split(separator: "\n").count == 3)
    }
}

@Test func badGeoJSONRoute_namesTheFileLineAndColumn() async throws {
    try await withTemporaryDirectory { dir in
        let path = dir.appendingPathComponent("route.geojson").path
        try Data("{\"type\": \"LineString\",\n \"coordinates\": [[11,48], [11.01,48.01]\n".utf8).write(to: URL(fileURLWithPath: path))
        let result = try await GeoProcess.geo(["simulate", "--route", path, "--fast", "--count", "1"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr == "geo simulate: \(path): invalid GeoJSON: line 3, column 1 (byte offset 63): the text ends inside a JSON value\n",
                "\(result.stderr)")
    }
}

/// A `--source` that gives no position source is one line naming it and the reason, never the
/// usage text: a malformed URI is a usage error (64), a missing file 66 (issue 13 §3).
@Test(arguments: [
    (["track", "--source", "FILE"], 66),
    (["track", "--source", "gpx:"], 64),
    (["track", "--source", "carrier-pigeon://loft"], 64),
    (["monitor", "--regions", "REGIONS", "--source", "FILE"], 66),
] as [([String], Int32)])
func badSource_isOneLineNamingIt(arguments: [String], status: Int32) async throws {
    try await withTemporaryDirectory { dir in
        let missing = dir.appendingPathComponent("nope.gpx").path
        let regions = dir.appendingPathComponent("fence.geojson")
        try Data(#"{"type":"Feature","properties":{"name":"fence"},"geometry":{"type":"Polygon","coordinates":[[[11,48],[11.1,48],[11.1,48.1],[11,48]]]}}"#.utf8).write(to: regions)
        let result = try await GeoProcess.geo(arguments.map { $0 == "FILE" ? "gpx:" + missing : $0 == "REGIONS" ? regions.path : $0 })
        #expect(result.status == status, "\(arguments): \(result.stderr)")
        #expect(result.stderr.hasPrefix("geo \(arguments[0]): --source: "), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "one line, no usage text: \(result.stderr)")
        if arguments.contains("FILE") { #expect(result.stderr.contains(missing), "\(result.stderr)") }
    }
}
